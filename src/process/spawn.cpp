#include "child.hpp"

#include <refbench/process/footprint.hpp>
#include <refbench/process/output_buffer.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/fd.hpp>

#include <array>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace refbench::process {
namespace {

using util::Fd;

[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

double seconds_of(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; }

// A pipe whose write end goes to the child; the read end is non-blocking.
struct Pipe {
  Fd read;
  Fd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw_errno("pipe2");
  }
  Pipe pipe{Fd(fds[0]), Fd(fds[1])};
  ::fcntl(pipe.read.get(), F_SETFL, O_NONBLOCK);
  return pipe;
}

// The signals whose disposition is not SIG_DFL here, which the child resets
// before it unblocks any: an ignored one would stay ignored across the
// exec, and a handler would run in the child, on this process's memory.
// Read once by make_spawns_lean; anywhere else before each spawn, outside
// the timed window.
std::optional<std::vector<int>> g_frozen_dispositions;

std::vector<int> signals_not_default() {
  std::vector<int> signals;
  for (int sig = 1; sig <= SIGRTMAX; ++sig) {
    struct sigaction action {};
    if (sig == SIGKILL || sig == SIGSTOP || ::sigaction(sig, nullptr, &action) != 0) {
      continue;
    }
    if ((action.sa_flags & SA_SIGINFO) != 0 || action.sa_handler != SIG_DFL) {
      signals.push_back(sig);
    }
  }
  return signals;
}

// Lean spawns (make_spawns_lean): whether, the pages to drop (the text
// before each clone, read-only data once) and the text kept mapped: what
// the first lean spawn's window ran (learned from it, `kept_learned`).
bool g_lean = false;
ReleasablePages g_releasable;
PageRanges g_kept_text;
bool g_kept_learned = false;

// Right before a lean spawn's clone: drops the text (start-up and the
// request's handling ran code the spawn does not), maps back what the
// spawn's timed window runs, whose faults would each cost ~11 µs of the
// command's wall here, and resets the high-water mark (VmHWM) to what is
// left, so that what the command shares until its exec is what the spawn
// itself touches. One drop of all the text and a few faults outside the
// window cost less than dropping around the kept pages: every madvise
// call flushes the TLB of each CPU that ran this memory, the child's too,
// ~0.1-0.5 ms an interrupt on a VM.
void release_before_clone() {
  release(g_releasable.text);
  map_back(g_kept_text);
  reset_peak_rss();
}

// After the first lean spawn's window: what is mapped of the text now is
// what the spawn ran since release_before_clone dropped it, which later
// spawns map back.
void learn_spawn_text() {
  g_kept_learned = true;
  g_kept_text = mapped_pages(g_releasable.text);
}

// /dev/null, opened once for reading (every child's stdin) and once for
// writing (a stdout nobody reads); -1 when it cannot be opened.
int dev_null(int flags) {
  static const int read_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  static const int write_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return flags == O_RDONLY ? read_fd : write_fd;
}

// The child's stack, in the parent's frame: CLONE_VFORK keeps the parent
// asleep until the child has exec'd or exited.
constexpr std::size_t k_child_stack_bytes = 16 * 1024;

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& s : strings) {
    pointers.push_back(const_cast<char*>(s.c_str()));
  }
  pointers.push_back(nullptr);
  return pointers;
}

// A started child: its process (and group) id, a pidfd that becomes readable
// when it exits, and the read ends of its stderr and captured stdout.
struct Child {
  pid_t pid = -1;
  Fd pidfd;
  double start = 0; // CLOCK_MONOTONIC seconds just before the spawn
  Pipe err;
  Pipe out;
  bool err_open = false; // its stderr pipe may still bring bytes
  bool out_open = false; // its captured stdout pipe may still bring bytes
};

// The new file `invocation` sends stdout to, if any: whatever was there (a
// planted link) is removed, and never written through. Sets `error` when it
// cannot be created.
Fd open_stdout_file(const model::Invocation& invocation, int& error) {
  if (invocation.stdout_fd >= 0 || invocation.capture_stdout || invocation.stdout_path.empty()) {
    return {};
  }
  ::unlink(invocation.stdout_path.c_str());
  Fd file(::open(invocation.stdout_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  error = file.valid() ? 0 : errno;
  return file;
}

// What becomes the child's stdout: the caller's descriptor, the capture
// pipe, the new file or /dev/null.
int stdout_target(const model::Invocation& invocation, const Child& child, const Fd& stdout_file) {
  if (invocation.stdout_fd >= 0) {
    return invocation.stdout_fd;
  }
  if (invocation.capture_stdout) {
    return child.out.write.get();
  }
  return stdout_file.valid() ? stdout_file.get() : dev_null(O_WRONLY);
}

// Starts `child` by `plan`: the clock, then the clone, which returns once
// the child has exec'd or exited (`plan.error` says which). Returns the
// clone's errno, 0 when it cloned. Throws when the kernel has no pidfds.
int start_child(Child& child, child::ChildPlan& plan) {
  alignas(16) std::array<char, k_child_stack_bytes> child_stack;
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  int pidfd = -1;
  if (g_lean) {
    release_before_clone();
  }
  child.start = util::monotonic_seconds();
  ::pthread_sigmask(SIG_BLOCK, &all, &previous); // no handler of ours may run in the child, on our memory
  child.pid = ::clone(child::child_main, child_stack.data() + child_stack.size(),
                      CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &plan, &pidfd);
  const int clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (child.pid >= 0) {
    child.pidfd = Fd(pidfd);
    return 0;
  }
  if (clone_errno == EINVAL) {
    errno = clone_errno;
    throw_errno("clone with CLONE_PIDFD (Linux 5.3 or newer is required)");
  }
  return clone_errno;
}

// How the wait for a child's leader ended.
struct LeaderExit {
  double end = 0;         // CLOCK_MONOTONIC seconds when it exited
  bool term_sent = false; // its timeout expired (the group got SIGTERM, then SIGKILL)
  bool cancelled = false; // `cancel_fd` became readable (the group got SIGKILL)
};

// Waits for `child`'s leader to exit while keeping the tail of its stderr in
// `tail` and its captured stdout in `captured`; signals its group on a
// timeout (SIGTERM, SIGKILL k_kill_grace later) or when `cancel_fd` is readable.
LeaderExit wait_for_leader(Child& child, std::chrono::nanoseconds timeout, int cancel_fd, OutputBuffer& tail,
                           OutputBuffer& captured) {
  LeaderExit result;
  const bool has_timeout = timeout.count() > 0;
  double deadline = child.start + std::chrono::duration<double>(timeout).count();
  for (;;) {
    std::array<pollfd, 4> fds{{{child.pidfd.get(), POLLIN, 0},
                               {child.err_open ? child.err.read.get() : -1, POLLIN, 0},
                               {result.cancelled ? -1 : cancel_fd, POLLIN, 0},
                               {child.out_open ? child.out.read.get() : -1, POLLIN, 0}}};
    int wait_ms = -1;
    if (has_timeout) {
      double left = deadline - util::monotonic_seconds();
      wait_ms = left <= 0 ? 0 : static_cast<int>(std::min(left * 1000.0, 3.6e6)) + 1;
    }
    int ready = ::poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_errno("poll");
    }
    if (fds[0].revents != 0) {
      result.end = util::monotonic_seconds(); // the leader has exited
      return result;
    }
    if (fds[1].revents != 0) {
      child.err_open = drain(child.err.read.get(), tail);
    }
    if (fds[3].revents != 0) {
      child.out_open = drain(child.out.read.get(), captured);
    }
    if (fds[2].revents != 0) {
      result.cancelled = true;
      ::kill(-child.pid, SIGKILL);
    }
    if (has_timeout && util::monotonic_seconds() >= deadline) { // also when output keeps poll busy
      if (!result.term_sent) {
        result.term_sent = true;
        ::kill(-child.pid, SIGTERM);
        deadline = util::monotonic_seconds() + std::chrono::duration<double>(k_kill_grace).count();
      } else {
        ::kill(-child.pid, SIGKILL);
        deadline = util::monotonic_seconds() + 3600.0;
      }
    }
  }
}

// Kills what the exited leader of `child` left in its group, reaps the
// leader and returns its wait status and rusage.
std::pair<int, rusage> reap(const Child& child) {
  int status = 0;
  rusage usage{};
  // Members the leader left behind must not disturb the next invocation.
  // Killed before the leader is reaped: its zombie keeps the group id ours.
  ::kill(-child.pid, SIGKILL);
  while (::wait4(child.pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      throw_errno("wait4");
    }
  }
  return {status, usage};
}

// Sets how the child ended from how the wait for its `leader` ended and its wait `status`.
void set_termination(model::Outcome& outcome, const LeaderExit& leader, int status) {
  if (leader.cancelled) {
    outcome.termination = model::Termination::cancelled;
  } else if (leader.term_sent) {
    outcome.termination = model::Termination::timed_out;
  } else if (WIFSIGNALED(status)) {
    outcome.termination = model::Termination::signaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.termination = model::Termination::exited;
    outcome.exit_code = WEXITSTATUS(status);
  }
}

// The outcome of an invocation that could not be started, with `error_number` as why.
model::Outcome spawn_failure(int error_number) {
  model::Outcome outcome;
  outcome.termination = model::Termination::spawn_failed;
  outcome.spawn_errno = error_number;
  return outcome;
}

} // namespace

void make_spawns_lean() {
  g_frozen_dispositions = signals_not_default();
  g_releasable = releasable_pages();
  g_kept_text.clear();
  g_kept_learned = false;
  // the data once: what the spawns read of it stays mapped, since each page the timed window faults back costs
  // ~10 µs of a command's wall here, and the text the window runs is mapped back anyway
  release(g_releasable.data);
  g_lean = true;
}

std::optional<std::string_view> env_value(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
      return std::string_view(entry).substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_executable(std::string_view name, std::string_view path) {
  auto runnable = [](const std::string& candidate) {
    struct stat st {};
    return ::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0;
  };
  if (name.empty()) {
    return std::nullopt;
  }
  if (name.find('/') != std::string_view::npos) {
    std::string candidate(name);
    return runnable(candidate) ? std::optional(candidate) : std::nullopt;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    std::string dir(path.substr(start, end - start));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + std::string(name);
    if (runnable(candidate)) {
      return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

model::Outcome run_process(const model::Invocation& invocation, int cancel_fd) {
  if (invocation.argv.empty()) {
    return spawn_failure(EINVAL);
  }
  auto path = env_value(invocation.env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  auto program = find_executable(invocation.argv[0], path);
  if (!program) {
    return spawn_failure(ENOENT);
  }

  Child child;
  child.err = make_pipe();
  child.err_open = !invocation.stderr_to_stdout;
  child.out_open = invocation.capture_stdout && invocation.stdout_fd < 0;
  if (child.out_open) {
    child.out = make_pipe();
  }
  int error = 0;
  const Fd stdout_file = open_stdout_file(invocation, error);
  if (error != 0) {
    return spawn_failure(error);
  }
  auto argv = c_strings(invocation.argv);
  auto envp = c_strings(invocation.env);
  std::vector<int> read_now;
  const std::vector<int>& reset = g_frozen_dispositions ? *g_frozen_dispositions : (read_now = signals_not_default());
  child::ChildPlan plan;
  plan.program = program->c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.fds = {dev_null(O_RDONLY), stdout_target(invocation, child, stdout_file),
              invocation.stderr_to_stdout ? 1 : child.err.write.get()};
  plan.cwd = invocation.cwd.empty() ? nullptr : invocation.cwd.c_str();
  plan.reset_signals = reset.data();
  plan.reset_count = reset.size();
  plan.statm = child::own_statm();
  if (const int clone_errno = start_child(child, plan); clone_errno != 0) {
    return spawn_failure(clone_errno);
  }
  if (plan.error != 0) { // it exited without its exec
    ::waitpid(child.pid, nullptr, 0);
    return spawn_failure(plan.error);
  }
  // The pipes' write ends stay open here until the leader is reaped: closed, its exit would wake the wait twice,
  // once for their hang-up and once for the exit, inside the timed window.
  OutputBuffer tail(model::k_stderr_tail_bytes, true);
  OutputBuffer captured(model::k_stdout_capture_bytes, false);
  const LeaderExit leader = wait_for_leader(child, invocation.timeout, cancel_fd, tail, captured);
  if (g_lean && !g_kept_learned) {
    learn_spawn_text();
  }
  const auto [status, usage] = reap(child);
  child.err.write.reset();
  child.out.write.reset();
  if (child.err_open) {
    drain(child.err.read.get(), tail);
  }
  if (child.out_open) {
    drain(child.out.read.get(), captured);
  }

  model::Outcome outcome;
  outcome.readings[model::Reading::wall] = leader.end - child.start;
  outcome.readings[model::Reading::user] = seconds_of(usage.ru_utime);
  outcome.readings[model::Reading::sys] = seconds_of(usage.ru_stime);
  outcome.readings[model::Reading::rss] = static_cast<double>(usage.ru_maxrss) * 1024;
  outcome.stderr_tail = tail.take();
  outcome.stdout_bytes = captured.total();
  outcome.stdout_text = captured.take();
  set_termination(outcome, leader, status);
  // read by the child right before its exec, when its resident set was the one it shared with us: the floor
  // of its reading (the launcher resets its high-water mark before each spawn)
  outcome.rss_floor_bytes = static_cast<std::int64_t>(plan.resident_pages) * ::sysconf(_SC_PAGESIZE);
  return outcome;
}

} // namespace refbench::process
