#include <refbench/util/files.hpp>

#include <cstdio>
#include <fstream>

namespace refbench::util {

bool write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      return false;
    }
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

} // namespace refbench::util
