#include <refbench/process/output_buffer.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/fd.hpp>

#include <array>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
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

// glibc 2.36's <sys/pidfd.h> lacks C linkage for C++, so call the kernel directly.
int open_pidfd(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

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

// posix_spawn attributes: own process group, default dispositions, empty mask.
class SpawnAttributes {
public:
  SpawnAttributes() {
    posix_spawnattr_init(&m_attr);
    sigset_t all;
    sigfillset(&all);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&m_attr, &all);
    posix_spawnattr_setsigmask(&m_attr, &none);
    posix_spawnattr_setpgroup(&m_attr, 0);
    posix_spawnattr_setflags(&m_attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  }
  ~SpawnAttributes() { posix_spawnattr_destroy(&m_attr); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const { return &m_attr; }

private:
  posix_spawnattr_t m_attr{};
};

class FileActions {
public:
  FileActions() { posix_spawn_file_actions_init(&m_actions); }
  ~FileActions() { posix_spawn_file_actions_destroy(&m_actions); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &m_actions; }

private:
  posix_spawn_file_actions_t m_actions{};
};

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& s : strings) {
    pointers.push_back(const_cast<char*>(s.c_str()));
  }
  pointers.push_back(nullptr);
  return pointers;
}

// The child's descriptors and directory: stdin /dev/null; stdout to
// `invocation.stdout_fd`, to the pipe `out` (capture), to /dev/null or to a
// new file; stderr to the pipe `err`, or where stdout goes.
void add_file_actions(FileActions& actions, const model::Invocation& invocation, const Pipe& err, const Pipe& out) {
  posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
  if (invocation.stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(actions.get(), invocation.stdout_fd, 1);
  } else if (invocation.capture_stdout) {
    posix_spawn_file_actions_adddup2(actions.get(), out.write.get(), 1);
  } else if (invocation.stdout_path.empty()) {
    posix_spawn_file_actions_addopen(actions.get(), 1, "/dev/null", O_WRONLY, 0);
  } else { // a new file: whatever was there (a planted link) was removed, and is never written through
    ::unlink(invocation.stdout_path.c_str());
    posix_spawn_file_actions_addopen(actions.get(), 1, invocation.stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
  }
  if (invocation.stderr_to_stdout) {
    posix_spawn_file_actions_adddup2(actions.get(), 1, 2);
  } else {
    posix_spawn_file_actions_adddup2(actions.get(), err.write.get(), 2);
  }
  if (!invocation.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(actions.get(), invocation.cwd.c_str());
  }
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

std::int64_t resident_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "re");
  if (statm == nullptr) {
    return 0;
  }
  long long size = 0;
  long long resident = 0;
  const int read = std::fscanf(statm, "%lld %lld", &size, &resident);
  std::fclose(statm);
  return read == 2 ? static_cast<std::int64_t>(resident) * ::sysconf(_SC_PAGESIZE) : 0;
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
  FileActions actions;
  add_file_actions(actions, invocation, child.err, child.out);
  SpawnAttributes attributes;
  auto argv = c_strings(invocation.argv);
  auto envp = c_strings(invocation.env);

  child.start = util::monotonic_seconds();
  int rc = ::posix_spawn(&child.pid, program->c_str(), actions.get(), attributes.get(), argv.data(), envp.data());
  if (rc != 0) {
    return spawn_failure(rc);
  }
  // posix_spawn returns once the command has exec'd: what this process holds now bounds what the command
  // shared with it until then, its reading's floor (the launcher resets its high-water mark before each spawn)
  const std::int64_t resident_at_spawn = resident_bytes();
  child.err.write.reset();
  child.out.write.reset();
  child.pidfd = Fd(open_pidfd(child.pid));
  if (!child.pidfd.valid()) {
    int saved = errno;
    ::kill(-child.pid, SIGKILL);
    ::waitpid(child.pid, nullptr, 0);
    errno = saved;
    throw_errno("pidfd_open (Linux 5.3 or newer is required)");
  }

  OutputBuffer tail(model::k_stderr_tail_bytes, true);
  OutputBuffer captured(model::k_stdout_capture_bytes, false);
  const LeaderExit leader = wait_for_leader(child, invocation.timeout, cancel_fd, tail, captured);
  const auto [status, usage] = reap(child);
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
  outcome.rss_floor_bytes = resident_at_spawn;
  return outcome;
}

} // namespace refbench::process
