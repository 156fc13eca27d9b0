#include <refbench/util/files.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace refbench::util {

bool write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  std::string temporary = path.string() + ".tmp-XXXXXX";
  Fd fd(::mkostemp(temporary.data(), O_CLOEXEC)); // O_EXCL: a new file, never a planted one
  if (!fd.valid()) {
    return false;
  }
  auto fail = [&] {
    const int saved = errno;
    fd.reset();
    ::unlink(temporary.c_str());
    errno = saved;
    return false;
  };
  if (::fchmod(fd.get(), 0644) != 0 || !write_all(fd.get(), text.data(), text.size())) {
    return fail();
  }
  if (::close(fd.release()) != 0) {
    return fail();
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) { // replaces a symlink at `path`, never follows it
    return fail();
  }
  return true;
}

bool out_of_space(int error_number) {
  return error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG;
}

bool is_real_directory(const std::filesystem::path& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

bool point_symlink(const std::filesystem::path& link, const std::filesystem::path& target) {
  const std::filesystem::path next = link.string() + ".next";
  if (::unlink(next.c_str()) != 0 && errno != ENOENT) {
    return false;
  }
  if (::symlink(target.c_str(), next.c_str()) != 0) {
    return false;
  }
  if (std::rename(next.c_str(), link.c_str()) != 0) {
    const int saved = errno;
    ::unlink(next.c_str());
    errno = saved;
    return false;
  }
  return true;
}

Fd create_fresh_file(const std::filesystem::path& path, int extra_flags) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Fd();
  }
  return Fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags, 0644));
}

std::expected<std::string, std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::unexpected(std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return std::unexpected(std::strerror(errno));
  }
  return text.str();
}

} // namespace refbench::util
