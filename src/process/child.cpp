#include "child.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace refbench::process::child {
namespace {

// The resident set in pages of the memory the child shares with the
// parent, read from the parent's statm descriptor `statm` (the same memory)
// by system calls alone (the child calls nothing that allocates, locks or
// maps more code); 0 when it cannot be read.
[[gnu::no_sanitize("address", "undefined")]] long child_resident_pages(int statm) {
  std::array<char, 96> text;
  const long size = statm < 0 ? -1 : ::syscall(SYS_pread64, statm, text.data(), text.size(), 0);
  long at = 0;
  while (at < size && text[static_cast<std::size_t>(at)] != ' ') { // the size; the resident set comes second
    ++at;
  }
  long pages = 0;
  for (++at; at < size && text[static_cast<std::size_t>(at)] >= '0' && text[static_cast<std::size_t>(at)] <= '9';
       ++at) {
    pages = pages * 10 + (text[static_cast<std::size_t>(at)] - '0');
  }
  return pages;
}

// The kernel's signal set: 64 signals, a bit each (glibc's sigset_t is larger).
constexpr std::size_t k_kernel_sigset_bytes = 8;

} // namespace

int own_statm() {
  static pid_t opened_by = 0;
  static int fd = -1;
  if (const pid_t self = ::getpid(); self != opened_by) {
    if (fd >= 0) {
      ::close(fd);
    }
    fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    opened_by = self;
  }
  return fd;
}

// System calls only: every page the child maps is in the command's peak
// RSS, and each call costs ~1 µs of its wall (docs/design.md, Processes).
[[gnu::no_sanitize("address", "undefined")]] int child_main(void* argument) {
  auto& plan = *static_cast<ChildPlan*>(argument);
  auto failed = [&plan] {
    plan.error = errno;
    return 127;
  };
  if (::syscall(SYS_setpgid, 0, 0) != 0) {
    return failed();
  }
  // the kernel's struct sigaction, all zeros: SIG_DFL, no flags, an empty mask (whatever the architecture's layout)
  const std::array<std::uint64_t, 4> default_action{};
  for (std::size_t i = 0; i < plan.reset_count; ++i) {
    ::syscall(SYS_rt_sigaction, plan.reset_signals[i], default_action.data(), nullptr, k_kernel_sigset_bytes);
  }
  for (int target = 0; target < 3; ++target) {
    const int from = plan.fds[static_cast<std::size_t>(target)];
    // dup3 refuses to copy a descriptor onto itself, which only needs its close-on-exec cleared
    const long done = from == target ? ::syscall(SYS_fcntl, target, F_SETFD, 0) : ::syscall(SYS_dup3, from, target, 0);
    if (done < 0) {
      return failed();
    }
  }
  if (plan.cwd != nullptr && ::syscall(SYS_chdir, plan.cwd) != 0) {
    return failed();
  }
  const std::uint64_t none = 0;
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, k_kernel_sigset_bytes);
  plan.resident_pages = child_resident_pages(plan.statm);
  ::syscall(SYS_execve, plan.program, plan.argv, plan.envp);
  return failed();
}

} // namespace refbench::process::child
