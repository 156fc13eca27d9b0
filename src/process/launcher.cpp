#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/output_buffer.hpp>
#include <refbench/process/reaper.hpp>
#include <refbench/process/sandbox.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/process/wire.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <string_view>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace refbench::process {
namespace {

[[noreturn]] void launcher_died() {
  throw MeasurementError(
      "the launcher process that spawns benchmarked commands died",
      "rerun; if it keeps happening, report it with the output of `refbench --version` and `uname -a`");
}

// Whether process `pid` is stopped (SIGSTOP, or traced): state T or t in /proc/<pid>/stat.
bool is_stopped(pid_t pid) {
  auto stat = util::read_file(fmt::format("/proc/{}/stat", pid), 4096);
  if (!stat) {
    return false;
  }
  const auto close = stat->rfind(')'); // the command name may hold anything but ends at the last ')'
  return close != std::string::npos && close + 2 < stat->size() &&
         ((*stat)[close + 2] == 'T' || (*stat)[close + 2] == 't');
}

// Seconds a launcher may stay stopped before refbench gives up on it: a
// benchmarked command that sends SIGSTOP to its parent would otherwise
// hold the run forever, its timeout included (the launcher enforces it).
constexpr int k_stopped_launcher_seconds = 3;

// Waits for the next request by polling without sleeping for up to
// k_request_spin, then blocking. refbench sends the next request within
// microseconds of a reply; a launcher that went to sleep in between woke up
// on a cold CPU and measured ~10 % more wall for tiny commands.
void await_request(int socket_fd) {
  constexpr double k_request_spin_seconds = 300e-6;
  const double deadline = util::monotonic_seconds() + k_request_spin_seconds;
  pollfd fd{socket_fd, POLLIN, 0};
  while (util::monotonic_seconds() < deadline) {
    if (::poll(&fd, 1, 0) > 0) {
      return;
    }
  }
}

// The median absolute deviation of `walls`.
double median_absolute_deviation(std::vector<double> walls) {
  std::sort(walls.begin(), walls.end());
  const double median = walls[walls.size() / 2];
  std::vector<double> deviations;
  for (double wall : walls) {
    deviations.push_back(std::fabs(wall - median));
  }
  std::sort(deviations.begin(), deviations.end());
  return deviations[deviations.size() / 2];
}

// The spawn probe (RssProbe): the median absolute deviation of the wall
// of spawning `true`, the smallest of k_spawn_probe_batches batches, and
// the largest peak RSS `true` read (the floor of every reading); it also
// brings the launcher to the memory it holds while serving.
struct SpawnProbe {
  double resolution = 0;
  std::int64_t floor_bytes = 0;
};
// The floor this launcher's probe found: no reading's floor is below it.
std::int64_t g_probed_floor = 0;

SpawnProbe spawn_probe() {
  const char* path = std::getenv("PATH");
  auto no_op = find_executable("true", path != nullptr ? path : "/usr/bin:/bin");
  if (!no_op) {
    return {0, own_peak_rss_bytes()};
  }
  SpawnProbe probe{std::numeric_limits<double>::infinity(), 0};
  for (int batch = 0; batch < model::k_spawn_probe_batches; ++batch) {
    std::vector<double> walls;
    for (int i = 0; i < model::k_spawn_probe_runs; ++i) {
      auto outcome = run_process({{*no_op}, {}, "", std::chrono::seconds(10), "", false, false});
      kill_all_children(); // as after each invocation, so its pages count in the floor
      if (!succeeded(outcome)) {
        return {0, own_peak_rss_bytes()};
      }
      walls.push_back(outcome.readings[model::Reading::wall]);
      // a command's peak RSS includes what it shared with the launcher until its exec, so `true`'s, the
      // smallest command, is the floor
      probe.floor_bytes = std::max(probe.floor_bytes, static_cast<std::int64_t>(outcome.readings[model::Reading::rss]));
    }
    probe.resolution = std::min(probe.resolution, median_absolute_deviation(std::move(walls)));
  }
  g_probed_floor = probe.floor_bytes;
  return probe;
}

// The launcher outside the box once its copy inside serves: it leaves the
// socket to the copy, dies with refbench (and so takes the box with it:
// the copy dies with it, and the kernel kills what a PID namespace's first
// process leaves), and waits. Returns the copy's exit status.
int wait_for_box(pid_t box, int socket_fd, pid_t refbench) {
  ::close(socket_fd);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != refbench) { // refbench died before the line above
    ::kill(box, SIGKILL);
  }
  int status = 0;
  while (::waitpid(box, &status, 0) < 0) {
    if (errno != EINTR) {
      return 1;
    }
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Serves a k_box request whose frame is `body`: enters the box, or says
// why not. Returns whether this process serves on (true: the copy in the
// box, or the launcher when no box was made); false with `exit_status`
// for the launcher outside a box that was made.
bool serve_box(int socket_fd, const std::string& body, pid_t refbench, int& exit_status) {
  BoxPaths paths;
  if (!decode_box_paths(body, paths)) {
    return wire::write_frame(socket_fd, "no\tthe launcher got a malformed request for the box");
  }
  // in the box, the copy's memory is measured anew: forked, it is the
  // floor of every reading from now on
  const auto entry = enter_box(paths, [] {
    make_spawns_lean(); // again: making the box touched much that serving does not
    const auto probe = spawn_probe();
    return fmt::format("{}\t{}", probe.floor_bytes, probe.resolution);
  });
  if (entry.in_box) {
    return true; // the launcher outside answers
  }
  if (entry.child < 0) {
    return wire::write_frame(socket_fd, "no\t" + entry.reason);
  }
  if (!wire::write_frame(socket_fd, fmt::format("ok\t{}\t{}\t{}", entry.mode, entry.child, entry.facts))) {
    ::kill(entry.child, SIGKILL);
  }
  exit_status = wait_for_box(entry.child, socket_fd, refbench);
  return false;
}

} // namespace

std::int64_t own_peak_rss_bytes() {
  std::FILE* status = std::fopen("/proc/self/status", "re");
  if (status == nullptr) {
    return 0;
  }
  std::array<char, 256> line{};
  long long kib = 0;
  while (std::fgets(line.data(), static_cast<int>(line.size()), status) != nullptr) {
    if (std::sscanf(line.data(), "VmHWM: %lld kB", &kib) == 1) {
      break;
    }
  }
  std::fclose(status);
  return static_cast<std::int64_t>(kib) * 1024;
}

int launcher_main(int socket_fd) {
  const pid_t refbench = ::getppid();
  // The terminal's SIGINT reaches refbench too; it decides and tells us.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGXFSZ, SIG_IGN); // a file-size limit fails the write (EFBIG) instead of killing us
  ::signal(SIGCHLD, SIG_DFL); // an inherited SIG_IGN would reap children before wait4
  become_subreaper();         // a command's detached descendants become ours to kill
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  make_spawns_lean();
  ::fcntl(socket_fd, F_SETFD, FD_CLOEXEC);
  const auto probe = spawn_probe(); // the dynamic loader's high-water mark is not the floor
  if (!wire::write_frame(socket_fd, wire::encode(wire::Startup{probe.floor_bytes, probe.resolution}))) {
    return 1;
  }
  std::string body;
  for (;;) {
    await_request(socket_fd);
    char type = 0;
    util::Fd stdout_pipe; // refbench reads the command's stdout from its end: never held here
    if (!wire::read_type(socket_fd, type, stdout_pipe)) {
      return 0;
    }
    if (type == wire::k_cancel) {
      continue; // a cancel that arrived after its invocation had finished
    }
    if (type == wire::k_box) {
      int exit_status = 0;
      if (!wire::read_frame(socket_fd, body)) {
        return 1;
      }
      if (!serve_box(socket_fd, body, refbench, exit_status)) {
        return exit_status;
      }
      continue;
    }
    if (type != wire::k_run || !wire::read_frame(socket_fd, body)) {
      return 1;
    }
    model::Outcome outcome;
    auto invocation = wire::decode_invocation(body);
    if (invocation && invocation->capture_stdout == stdout_pipe.valid()) {
      invocation->stdout_fd = stdout_pipe.get();
      try {
        outcome = run_process(*invocation, socket_fd);
      } catch (const std::system_error& error) {
        outcome.termination = model::Termination::spawn_failed;
        outcome.spawn_errno = error.code().value();
      }
    } else {
      outcome.termination = model::Termination::spawn_failed;
      outcome.spawn_errno = EPROTO;
    }
    stdout_pipe.reset();
    kill_all_children();
    if (outcome.rss_floor_bytes <= 0) { // not spawned: what the launcher holds
      outcome.rss_floor_bytes = own_peak_rss_bytes();
    }
    outcome.rss_floor_bytes = std::max(outcome.rss_floor_bytes, g_probed_floor);
    if (!wire::write_frame(socket_fd, wire::encode(outcome))) {
      return 0;
    }
  }
}

Launcher::Launcher(util::Fd socket, pid_t pid, model::RssProbe probe)
    : m_socket(std::move(socket)), m_pid(pid), m_serving(pid), m_probe(std::move(probe)) {}

SandboxState Launcher::box(const BoxPaths& paths) {
  std::string reply;
  if (!wire::write_type(m_socket.get(), wire::k_box) || !wire::write_frame(m_socket.get(), encode_box_paths(paths)) ||
      !wire::read_frame(m_socket.get(), reply)) {
    launcher_died();
  }
  const auto fields = util::split(reply, '\t');
  if (fields.size() == 5 && fields[0] == "ok") {
    m_serving = static_cast<pid_t>(std::stol(std::string(fields[2])));
    m_probe.floor_bytes = std::stoll(std::string(fields[3]));
    m_probe.spawn_resolution_seconds = std::stod(std::string(fields[4]));
    return {std::string(fields[1]), ""};
  }
  return {"none", fields.size() == 2 && fields[0] == "no" ? std::string(fields[1])
                                                          : std::string("the launcher's answer was malformed")};
}

std::unique_ptr<Launcher> Launcher::start(const std::string& self_exe) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair");
  }
  util::Fd ours(pair[0]);
  util::Fd theirs(pair[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, theirs.get(), k_launcher_fd);
  std::string argument(k_launcher_argument);
  std::array<char*, 3> argv{const_cast<char*>(self_exe.c_str()), argument.data(), nullptr};
  pid_t pid = -1;
  // the launcher is the parent of every command, which can read its
  // /proc/<pid>/environ: it gets only what it reads itself (each command
  // gets its own environment with its invocation)
  const auto env = launcher_environment(current_environment());
  std::vector<char*> envp;
  for (const auto& entry : env) {
    envp.push_back(const_cast<char*>(entry.c_str()));
  }
  envp.push_back(nullptr);
  // a process group of its own: a SIGKILL to refbench's group (a CI job
  // cancelled, `timeout -s KILL`) leaves the launcher to see refbench gone
  // and kill what it started, instead of orphaning it
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  int rc = ::posix_spawn(&pid, self_exe.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw std::system_error(rc, std::generic_category(), "cannot start the launcher " + self_exe);
  }
  theirs.reset();

  std::string hello;
  const auto startup = wire::read_frame(ours.get(), hello) ? wire::decode_startup(hello) : std::nullopt;
  if (!startup) {
    ours.reset(); // a launcher still waiting for requests reads EOF and exits
    ::waitpid(pid, nullptr, 0);
    launcher_died();
  }
  model::RssProbe probe{"launcher (wait4 ru_maxrss of a child spawned by a small launcher process)",
                        startup->peak_rss_bytes, startup->spawn_resolution_seconds};
  return std::unique_ptr<Launcher>(new Launcher(std::move(ours), pid, std::move(probe)));
}

Launcher::~Launcher() {
  m_socket.reset();
  while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

namespace {

// A pipe for a command's stdout: `read` (non-blocking) stays here, `write`
// travels with the request.
void open_stdout_pipe(util::Fd& read, util::Fd& write) {
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  read.reset(pipe[0]);
  write.reset(pipe[1]);
  ::fcntl(read.get(), F_SETFL, O_NONBLOCK);
}

// After a quiet second of an invocation: counts the seconds the launcher
// process `serving` has been stopped in `stopped_seconds`, and kills it and
// throws MeasurementError once that reaches k_stopped_launcher_seconds.
void check_not_stopped(pid_t serving, int& stopped_seconds) {
  stopped_seconds = is_stopped(serving) ? stopped_seconds + 1 : 0;
  if (stopped_seconds >= k_stopped_launcher_seconds) {
    ::kill(serving, SIGKILL); // a stopped process does not read the socket's end; the destructor reaps it
    throw MeasurementError(
        fmt::format("the launcher process that spawns benchmarked commands was stopped (SIGSTOP) for {} s "
                    "during an invocation",
                    k_stopped_launcher_seconds),
        "a benchmarked command signals its parent: make it leave the processes it did not start alone");
  }
}

} // namespace

model::Outcome Launcher::run(const model::Invocation& invocation) {
  if (!invocation.despite_interrupt) {
    throw_if_interrupted();
  }
  // The command's stdout comes to this process through a pipe whose write
  // end travels with the request, so the launcher never holds it in memory.
  util::Fd stdout_read;
  util::Fd stdout_write;
  if (invocation.capture_stdout) {
    open_stdout_pipe(stdout_read, stdout_write);
  }
  const std::string body = wire::encode(invocation);
  if (!wire::write_type(m_socket.get(), wire::k_run, stdout_write.get()) || !wire::write_frame(m_socket.get(), body)) {
    launcher_died();
  }
  stdout_write.reset();
  OutputBuffer stdout_tail(model::k_stdout_tail_bytes, true);
  bool cancel_sent = false;
  int stopped_seconds = 0;
  for (;;) {
    std::array<pollfd, 3> fds{{{m_socket.get(), POLLIN, 0},
                               {cancel_sent || invocation.despite_interrupt ? -1 : interrupt_fd(), POLLIN, 0},
                               {stdout_read.get(), POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), 1000);
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw std::system_error(errno, std::generic_category(), "poll");
    }
    if (ready == 0) { // a quiet second: is the launcher still running?
      check_not_stopped(m_serving, stopped_seconds);
      continue;
    }
    if (fds[1].revents != 0) {
      cancel_sent = true;
      util::write_all(m_socket.get(), &wire::k_cancel, 1);
      continue;
    }
    if (fds[2].revents != 0 && !drain(stdout_read.get(), stdout_tail)) {
      stdout_read.reset(); // every writer has closed it
    }
    if (fds[0].revents != 0) {
      break;
    }
  }
  std::string reply;
  if (!wire::read_frame(m_socket.get(), reply)) {
    launcher_died();
  }
  auto outcome = wire::decode_outcome(reply);
  if (!outcome) {
    launcher_died();
  }
  if (invocation.capture_stdout) {
    // The reply comes after the command and its descendants were reaped:
    // what they wrote is all in the pipe.
    if (stdout_read.valid()) {
      drain(stdout_read.get(), stdout_tail);
    }
    outcome->stdout_bytes = stdout_tail.total();
    outcome->stdout_text = stdout_tail.take();
  }
  if (cancel_sent || outcome->termination == model::Termination::cancelled) {
    throw_if_interrupted();
  }
  return *outcome;
}

} // namespace refbench::process
