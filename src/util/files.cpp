#include <refbench/util/files.hpp>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <functional>
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

namespace {

// What kind of file `mode` is, for messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    return "a device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISFIFO(mode)) {
    return "a pipe";
  }
  return "not a regular file";
}

} // namespace

namespace {

// `path` opened for reading as `kinds` allows (see read_file), with its
// status; a pipe left blocking.
std::expected<std::pair<Fd, struct stat>, std::string> open_readable(const std::filesystem::path& path,
                                                                     std::size_t max_bytes, Readable kinds) {
  const bool here = kinds == Readable::regular_here;
  // non-blocking: a FIFO without a writer must not hang the open
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (here ? O_NOFOLLOW : 0)));
  if (!fd.valid()) {
    return std::unexpected(errno == ELOOP && here ? std::string("it is a symbolic link") : std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return std::unexpected(std::strerror(errno));
  }
  const bool pipe = S_ISFIFO(st.st_mode) && !here;
  if (!S_ISREG(st.st_mode) && !pipe) {
    return std::unexpected(fmt::format("it is {}, not a regular file", kind_of(st.st_mode)));
  }
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return std::unexpected(fmt::format("it has {} bytes, more than the {} read", st.st_size, max_bytes));
  }
  if (pipe) { // a pipe is read as it comes
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  }
  return std::pair{std::move(fd), st};
}

// Reads `fd` to its end in chunks given to `take`; at most `max_bytes`.
std::expected<void, std::string> read_chunks(int fd, std::size_t max_bytes,
                                             const std::function<void(std::string_view)>& take) {
  std::array<char, 1 << 16> buffer{};
  std::size_t total = 0;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return std::unexpected(std::strerror(errno));
    }
    if (got == 0) {
      return {};
    }
    total += static_cast<std::size_t>(got);
    if (total > max_bytes) { // it grew, or a pipe goes on
      return std::unexpected(fmt::format("it has more than the {} bytes read", max_bytes));
    }
    take(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
}

} // namespace

std::expected<std::string, std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes,
                                                  Readable kinds) {
  auto opened = open_readable(path, max_bytes, kinds);
  if (!opened) {
    return std::unexpected(opened.error());
  }
  std::string text;
  if (S_ISREG(opened->second.st_mode)) {
    text.reserve(static_cast<std::size_t>(opened->second.st_size)); // read into place, not grown as it comes
  }
  if (auto read = read_chunks(opened->first.get(), max_bytes, [&](std::string_view chunk) { text += chunk; }); !read) {
    return std::unexpected(read.error());
  }
  return text;
}

std::expected<void, std::string> read_lines(const std::filesystem::path& path,
                                            const std::function<void(std::string_view, std::size_t)>& line,
                                            std::size_t max_bytes, Readable kinds) {
  auto opened = open_readable(path, max_bytes, kinds);
  if (!opened) {
    return std::unexpected(opened.error());
  }
  std::string carry; // a line begun in an earlier chunk
  std::size_t number = 0;
  auto read = read_chunks(opened->first.get(), max_bytes, [&](std::string_view chunk) {
    for (auto at = chunk.find('\n'); at != std::string_view::npos; at = chunk.find('\n')) {
      if (carry.empty()) {
        line(chunk.substr(0, at), ++number);
      } else {
        carry += chunk.substr(0, at);
        line(carry, ++number);
        carry.clear();
      }
      chunk.remove_prefix(at + 1);
    }
    carry += chunk;
  });
  if (!read) {
    return std::unexpected(read.error());
  }
  if (!carry.empty()) {
    line(carry, ++number);
  }
  return {};
}

} // namespace refbench::util
