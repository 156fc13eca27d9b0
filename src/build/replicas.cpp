#include <refbench/build/replicas.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/fd.hpp>

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

namespace refbench::build {
namespace {

namespace fs = std::filesystem;

bool matches(const fs::path& relative, const std::vector<std::string>& globs) {
  if (globs.empty()) {
    return true;
  }
  const std::string text = relative.generic_string();
  for (const auto& glob : globs) {
    if (::fnmatch(glob.c_str(), text.c_str(), FNM_PATHNAME) == 0) {
      return true;
    }
  }
  return false;
}

} // namespace

int copy_fresh_file(const fs::path& from, const fs::path& to) {
  util::Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!in.valid()) {
    return errno;
  }
  struct stat info {};
  if (::fstat(in.get(), &info) != 0) {
    return errno;
  }
  util::Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, info.st_mode & 07777));
  if (!out.valid()) {
    return errno;
  }
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    const ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
    if (n == 0) {
      break;
    }
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    if (!util::write_all(out.get(), buffer.data(), static_cast<std::size_t>(n))) {
      return errno;
    }
  }
  if (::fchmod(out.get(), info.st_mode & 07777) != 0) {
    return errno;
  }
  return ::close(out.release()) == 0 ? 0 : errno;
}

namespace {

// Makes `copy` from `tree`: directories made, matching files copied fresh,
// symlinks recreated as they are, other files linked to the original.
void copy_tree(const fs::path& tree, const fs::path& copy, const std::vector<std::string>& globs) {
  fs::create_directory(copy);
  for (auto it = fs::recursive_directory_iterator(tree); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), tree);
    const fs::path target = copy / relative;
    const auto status = it->symlink_status();
    if (fs::is_symlink(status)) {
      fs::create_symlink(fs::read_symlink(it->path()), target);
    } else if (fs::is_directory(status)) {
      fs::create_directory(target);
    } else if (fs::is_regular_file(status) && matches(relative, globs)) {
      if (int error = copy_fresh_file(it->path(), target); error != 0) {
        throw std::system_error(error, std::generic_category(), target.string());
      }
    } else {
      fs::create_symlink(it->path(), target);
    }
  }
}

} // namespace

std::uint64_t replica_bytes(const fs::path& tree, const std::vector<std::string>& globs) {
  std::uint64_t bytes = 0;
  for (auto it = fs::recursive_directory_iterator(tree); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_regular_file() && !it->is_symlink() && matches(fs::relative(it->path(), tree), globs)) {
      bytes += it->file_size();
    }
  }
  return bytes;
}

Replicas::Replicas(Replicas&& other) noexcept : m_made(std::move(other.m_made)), m_keep(other.m_keep) {
  other.m_made.clear();
}

Replicas& Replicas::operator=(Replicas&& other) noexcept {
  std::swap(m_made, other.m_made);
  std::swap(m_keep, other.m_keep);
  return *this;
}

Replicas::~Replicas() {
  if (m_keep) {
    return;
  }
  for (const auto& path : m_made) {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
}

std::vector<std::string> Replicas::add(const fs::path& tree, int count, const std::vector<std::string>& globs) {
  std::vector<std::string> replicas{tree.string()};
  for (int k = 1; k < count; ++k) {
    const fs::path copy = fs::path(tree.string() + fmt::format(".r{}", k));
    std::error_code ignored;
    fs::remove_all(copy, ignored); // a copy left by an earlier, killed run
    m_made.push_back(copy);
    try {
      copy_tree(tree, copy, globs);
    } catch (const std::exception& error) {
      throw RefusedError(fmt::format("cannot make replica {} of {}: {}", k, tree.string(), error.what()),
                         "free disk space, lower run.replicas, or copy only what runs with run.replicate");
    }
    replicas.push_back(copy.string());
  }
  return replicas;
}

} // namespace refbench::build
