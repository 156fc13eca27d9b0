#pragma once
// A fresh directory under the system temp dir for one test, removed with
// its contents at the end of the scope; write_file puts a file in it.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace refbench::test {

class ScratchDir {
public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "refbench-unit-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }

  // The absolute path of `child` inside the directory.
  std::string operator/(const std::string& child) const { return (m_path / child).string(); }
  const std::filesystem::path& path() const { return m_path; }
  std::string str() const { return m_path.string(); }

private:
  std::filesystem::path m_path;
};

// Writes `text` to `path` (bytes as they are, replacing what was there),
// creating its parent directories.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

} // namespace refbench::test
