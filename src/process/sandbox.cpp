#include <refbench/process/sandbox.hpp>
#include <refbench/util/files.hpp>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace refbench::process {
namespace {

// mount_setattr(2)'s argument and flags (<linux/mount.h> clashes with
// <sys/mount.h> in the C library's headers of this release).
struct MountAttr {
  std::uint64_t attr_set = 0;
  std::uint64_t attr_clr = 0;
  std::uint64_t propagation = 0;
  std::uint64_t userns_fd = 0;
};
constexpr std::uint64_t k_mount_attr_rdonly = 0x00000001;
constexpr unsigned k_at_recursive = 0x8000;

// fork(2) with namespace `flags`: the child returns 0, the parent its pid,
// -1 with errno on failure. (fork cannot take the flags; clone with no
// new stack is fork with them.)
pid_t clone_with(unsigned long flags) {
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

// Writes `text` to the /proc file `path`; "" or what went wrong.
std::string write_proc(const char* path, const std::string& text) {
  util::Fd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || !util::write_all(fd.get(), text.data(), text.size())) {
    return fmt::format("cannot write {} ({})", path, std::strerror(errno));
  }
  return "";
}

// Binds `path` onto itself with what is mounted under it, read-only or
// writable; "" or what went wrong.
std::string bind(const std::string& path, bool read_only) {
  if (::mount(path.c_str(), path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    return fmt::format("cannot bind {} ({})", path, std::strerror(errno));
  }
  MountAttr attr;
  (read_only ? attr.attr_set : attr.attr_clr) = k_mount_attr_rdonly;
  if (::syscall(SYS_mount_setattr, AT_FDCWD, path.c_str(), k_at_recursive, &attr, sizeof attr) != 0) {
    return fmt::format("cannot make {} {} ({})", path, read_only ? "read-only" : "writable", std::strerror(errno));
  }
  return "";
}

// In the new namespaces, as their process 1: the user namespace's maps
// (when `user`), the mounts of `paths`, a /proc of this PID namespace, and
// death with the launcher outside. "" or what went wrong.
std::string set_up(const BoxPaths& paths, bool user, uid_t uid, gid_t gid) {
  if (user) {
    for (const auto& problem : {write_proc("/proc/self/setgroups", "deny"),
                                write_proc("/proc/self/uid_map", fmt::format("{} {} 1\n", uid, uid)),
                                write_proc("/proc/self/gid_map", fmt::format("{} {} 1\n", gid, gid))}) {
      if (!problem.empty()) {
        return problem;
      }
    }
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return fmt::format("cannot make the mounts private ({})", std::strerror(errno));
  }
  for (const auto& path : paths.read_only) {
    if (auto problem = bind(path, true); !problem.empty()) {
      return problem;
    }
  }
  for (const auto& path : paths.writable) {
    if (auto problem = bind(path, false); !problem.empty()) {
      return problem;
    }
  }
  // the host's /proc would still show refbench (and let a command read or
  // write its memory); this one shows the box's processes only
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    return fmt::format("cannot mount a /proc of the box ({})", std::strerror(errno));
  }
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
    return fmt::format("cannot tie the box to the launcher ({})", std::strerror(errno));
  }
  return "";
}

// Splits `text` at '\n' into the lines after `prefix` ("r " or "w ").
void append_lines(std::string_view text, std::string_view prefix, std::vector<std::string>& into) {
  while (!text.empty()) {
    const auto end = std::min(text.find('\n'), text.size());
    if (text.substr(0, end).starts_with(prefix)) {
      into.emplace_back(text.substr(prefix.size(), end - prefix.size()));
    }
    text.remove_prefix(std::min(end + 1, text.size()));
  }
}

} // namespace

std::string encode_box_paths(const BoxPaths& paths) {
  std::string body;
  for (const auto& path : paths.read_only) {
    body += "r " + path + "\n";
  }
  for (const auto& path : paths.writable) {
    body += "w " + path + "\n";
  }
  return body;
}

bool decode_box_paths(std::string_view body, BoxPaths& paths) {
  paths = {};
  append_lines(body, "r ", paths.read_only);
  append_lines(body, "w ", paths.writable);
  for (const auto* list : {&paths.read_only, &paths.writable}) {
    for (const auto& path : *list) {
      if (path.empty() || path.front() != '/' || path.find('\0') != std::string::npos) {
        return false;
      }
    }
  }
  return true;
}

std::string box_refusal() {
  pid_t child = clone_with(CLONE_NEWPID | CLONE_NEWNS);
  if (child < 0 && (errno == EPERM || errno == EINVAL)) {
    child = clone_with(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS);
  }
  if (child < 0) {
    return fmt::format("the kernel refuses new PID and mount namespaces here ({})", std::strerror(errno));
  }
  if (child == 0) {
    ::_exit(0);
  }
  while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  return "";
}

BoxEntry enter_box(const BoxPaths& paths, const std::function<std::string()>& ready) {
  std::array<int, 2> pipe{};
  if (::pipe2(pipe.data(), O_CLOEXEC) != 0) {
    return {.reason = fmt::format("cannot make a pipe ({})", std::strerror(errno))};
  }
  util::Fd read_end(pipe[0]);
  util::Fd write_end(pipe[1]);
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  bool user = false;
  pid_t child = clone_with(CLONE_NEWPID | CLONE_NEWNS);
  if (child < 0 && (errno == EPERM || errno == EINVAL)) { // no CAP_SYS_ADMIN: a user namespace gives it inside
    const int refused = errno;
    user = true;
    child = clone_with(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS);
    if (child < 0) {
      return {.reason = fmt::format("the kernel refuses new PID and mount namespaces ({}), and a user namespace to "
                                    "make them in ({})",
                                    std::strerror(refused), std::strerror(errno))};
    }
  }
  if (child < 0) {
    return {.reason = fmt::format("the kernel refuses new PID and mount namespaces ({})", std::strerror(errno))};
  }
  if (child == 0) {
    read_end.reset();
    const std::string problem = set_up(paths, user, uid, gid);
    const std::string message = problem.empty() ? "ok " + ready() : problem;
    util::write_all(write_end.get(), message.data(), message.size());
    if (!problem.empty()) {
      ::_exit(1);
    }
    write_end.reset();
    return {.in_box = true, .child = 0, .mode = user ? "user+namespaces" : "namespaces"};
  }
  write_end.reset();
  std::string problem;
  std::array<char, 512> buffer{};
  for (;;) {
    const ssize_t n = ::read(read_end.get(), buffer.data(), buffer.size());
    if (n > 0) {
      problem.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  int status = 0;
  if (!problem.starts_with("ok ") || ::waitpid(child, &status, WNOHANG) != 0) {
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return {.reason = problem.empty() ? "the box's first process died while it was made" : problem};
  }
  return {.in_box = false, .child = child, .mode = user ? "user+namespaces" : "namespaces", .facts = problem.substr(3)};
}

} // namespace refbench::process
