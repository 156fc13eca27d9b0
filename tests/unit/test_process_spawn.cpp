#include <doctest/doctest.h>

#include <refbench/process/footprint.hpp>
#include <refbench/process/spawn.hpp>

#include "shell_invocation.hpp"

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <pthread.h>
#include <set>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace refbench::process;
using namespace refbench::model;

using refbench::test::sh;

namespace {

// True while `pid` is a live (non-zombie) process.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) {
    return false;
  }
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// Waits up to 3 s for `pid` to be gone.
bool gone_soon(pid_t pid) {
  for (int i = 0; i < 300 && alive(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !alive(pid);
}

// The first line of the file at `path`; "" when it has none.
std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("refbench-unit-" + std::to_string(::getpid()) + "-" + name);
}

} // namespace

TEST_CASE("process::run_process exit codes and signals") {
  SUBCASE("exit 0") {
    auto outcome = run_process(sh("exit 0"));
    CHECK(succeeded(outcome));
    CHECK(outcome.termination == Termination::exited);
  }
  SUBCASE("exit 7") {
    auto outcome = run_process(sh("exit 7"));
    CHECK(outcome.termination == Termination::exited);
    CHECK(outcome.exit_code == 7);
    CHECK(describe(outcome, {}) == "exited with code 7");
  }
  SUBCASE("killed by a signal") {
    auto outcome = run_process(sh("kill -SEGV $$"));
    CHECK(outcome.termination == Termination::signaled);
    CHECK(outcome.signal == SIGSEGV);
    CHECK(describe(outcome, {}) == "was killed by SIGSEGV");
  }
  SUBCASE("not found") {
    Invocation invocation{{"refbench-no-such-program"}, {"PATH=/usr/bin:/bin"}, "", {}, ""};
    auto outcome = run_process(invocation);
    CHECK(outcome.termination == Termination::spawn_failed);
    CHECK(describe(outcome, {}) == "could not be started: No such file or directory");
  }
  SUBCASE("a file that is not executable") {
    Invocation invocation{{"/etc/hostname"}, {}, "", {}, ""};
    CHECK(run_process(invocation).termination == Termination::spawn_failed);
  }
}

TEST_CASE("process::run_process environment, stdin, stdout, cwd") {
  auto out = temp_file("stdout");
  SUBCASE("the child sees exactly the given environment and /dev/null as stdin") {
    Invocation invocation = sh("echo \"$FOO|$HOME\"; cat; readlink /proc/self/fd/0");
    invocation.env = {"PATH=/usr/bin:/bin", "FOO=bar"};
    invocation.stdout_path = out.string();
    CHECK(succeeded(run_process(invocation)));
    std::ifstream in(out);
    std::string first;
    std::string second;
    std::getline(in, first);
    std::getline(in, second);
    CHECK(first == "bar|");
    CHECK(second == "/dev/null");
  }
  SUBCASE("cwd") {
    Invocation invocation = sh("pwd");
    invocation.cwd = "/usr";
    invocation.stdout_path = out.string();
    CHECK(succeeded(run_process(invocation)));
    CHECK(first_line(out) == "/usr");
  }
  SUBCASE("its own process group") {
    Invocation invocation = sh("ps -o pgid= -p $$ | tr -d ' '; echo $$");
    invocation.stdout_path = out.string();
    CHECK(succeeded(run_process(invocation)));
    std::ifstream in(out);
    std::string pgid;
    std::string pid;
    std::getline(in, pgid);
    std::getline(in, pid);
    CHECK(pgid == pid);
  }
  std::filesystem::remove(out);
}

TEST_CASE("process::run_process gives the child default signals, an empty mask and its own descriptors") {
  SUBCASE("a signal ignored here, one handled here and one blocked here are all default there") {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    struct sigaction handle {};
    handle.sa_handler = [](int) {};
    struct sigaction old_usr1 {};
    struct sigaction old_usr2 {};
    ::sigaction(SIGUSR1, &ignore, &old_usr1);
    ::sigaction(SIGUSR2, &handle, &old_usr2);
    sigset_t block;
    sigset_t previous;
    sigemptyset(&block);
    sigaddset(&block, SIGWINCH);
    ::pthread_sigmask(SIG_BLOCK, &block, &previous);
    Invocation invocation{{"cat", "/proc/self/status"}, {"PATH=/usr/bin:/bin"}, "", {}, ""};
    invocation.capture_stdout = true;
    auto outcome = run_process(invocation);
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    ::sigaction(SIGUSR1, &old_usr1, nullptr);
    ::sigaction(SIGUSR2, &old_usr2, nullptr);
    REQUIRE(succeeded(outcome));
    CHECK(outcome.stdout_text.find("SigBlk:\t0000000000000000\n") != std::string::npos);
    CHECK(outcome.stdout_text.find("SigIgn:\t0000000000000000\n") != std::string::npos);
    CHECK(outcome.stdout_text.find("SigCgt:\t0000000000000000\n") != std::string::npos);
  }
  SUBCASE("it holds 0, 1 and 2, and no descriptor of the spawn's (pipes, /dev/null) besides") {
    // what this process holds without close-on-exec, which every child inherits (other tests' threads open and
    // close descriptors meanwhile: read before and after)
    auto inherited = [](std::set<int>& into) {
      for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        const int fd = std::stoi(entry.path().filename().string());
        if (const int flags = ::fcntl(fd, F_GETFD); flags >= 0 && (flags & FD_CLOEXEC) == 0) {
          into.insert(fd);
        }
      }
    };
    std::set<int> allowed{0, 1, 2};
    inherited(allowed);
    Invocation invocation{{"ls", "-l", "/proc/self/fd"}, {"PATH=/usr/bin:/bin"}, "", {}, ""};
    invocation.capture_stdout = true;
    auto outcome = run_process(invocation);
    REQUIRE(succeeded(outcome));
    inherited(allowed);
    std::set<int> held;
    std::istringstream lines(outcome.stdout_text);
    for (std::string line; std::getline(lines, line);) { // "lrwx------ 1 root root 64 Dec  7 01:50 4 -> pipe:[…]"
      const auto arrow = line.find(" -> ");
      if (arrow == std::string::npos) {
        continue; // "total 0"
      }
      const auto target = line.substr(arrow + 4);
      if (target.starts_with("/proc/") && target.ends_with("/fd")) {
        continue; // the directory ls reads
      }
      const int fd = std::stoi(line.substr(line.rfind(' ', arrow - 1) + 1));
      held.insert(fd);
      CHECK_MESSAGE(allowed.contains(fd), "the child holds descriptor " << fd << ", " << target);
    }
    CHECK((held.contains(0) && held.contains(1) && held.contains(2)));
  }
  SUBCASE("a directory that cannot be entered is a spawn failure with its errno") {
    Invocation invocation = sh("exit 0");
    invocation.cwd = "/nonexistent-refbench-directory";
    auto outcome = run_process(invocation);
    CHECK(outcome.termination == Termination::spawn_failed);
    CHECK(outcome.spawn_errno == ENOENT);
  }
  SUBCASE("a stdout file is created anew, never written through a planted link") {
    auto target = temp_file("target");
    auto link = temp_file("link");
    { std::ofstream(target) << "keep"; }
    std::filesystem::create_symlink(target, link);
    Invocation invocation = sh("echo new");
    invocation.stdout_path = link.string();
    CHECK(succeeded(run_process(invocation)));
    CHECK(first_line(target) == "keep");
    CHECK(!std::filesystem::is_symlink(link));
    CHECK(first_line(link) == "new");
    std::filesystem::remove(target);
    std::filesystem::remove(link);
  }
  SUBCASE("the launcher's floor: the resident set the child read right before its exec") {
    auto outcome = run_process({{"true"}, {"PATH=/usr/bin:/bin"}, "", {}, ""});
    REQUIRE(succeeded(outcome));
    CHECK(outcome.rss_floor_bytes > 0);
  }
}

TEST_CASE("process::run_process stdout capture and merged stderr") {
  SUBCASE("capture") {
    Invocation invocation = sh("echo out; echo err >&2; printf tail");
    invocation.capture_stdout = true;
    auto outcome = run_process(invocation);
    CHECK(outcome.stdout_text == "out\ntail");
    CHECK(outcome.stderr_tail == "err\n");
  }
  SUBCASE("stderr into the stdout file, in order") {
    auto log = temp_file("log");
    Invocation invocation = sh("echo one; echo two >&2; echo three");
    invocation.stdout_path = log.string();
    invocation.stderr_to_stdout = true;
    auto outcome = run_process(invocation);
    CHECK(outcome.stderr_tail.empty());
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text == "one\ntwo\nthree\n");
    std::filesystem::remove(log);
  }
}

TEST_CASE("process::run_process stderr tail") {
  SUBCASE("short stderr is kept whole") {
    auto outcome = run_process(sh("echo one >&2; echo two >&2; exit 1"));
    CHECK(outcome.stderr_tail == "one\ntwo\n");
    CHECK(last_lines(outcome.stderr_tail, 1) == "two");
  }
  SUBCASE("long stderr keeps its last 64 KiB, and a chatty child never blocks") {
    auto outcome = run_process(sh("i=0; while [ $i -lt 20000 ]; do echo line$i >&2; i=$((i+1)); done"));
    CHECK(succeeded(outcome));
    CHECK(outcome.stderr_tail.size() == k_stderr_tail_bytes);
    CHECK(last_lines(outcome.stderr_tail, 1) == "line19999");
  }
}

TEST_CASE("process::run_process timing and rusage") {
  SUBCASE("a sleep has wall but almost no cpu") {
    auto outcome = run_process({{"sleep", "0.2"}, {"PATH=/usr/bin:/bin"}, "", {}, ""});
    CHECK(outcome.readings[Reading::wall] == doctest::Approx(0.2).epsilon(0.25));
    CHECK(outcome.readings[Reading::user] + outcome.readings[Reading::sys] < 0.05);
  }
  SUBCASE("a busy loop has cpu close to wall") {
    auto outcome = run_process(sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"));
    // about 0.25 s of CPU here; on a loaded machine wall grows, CPU does not
    const double cpu = outcome.readings[Reading::user] + outcome.readings[Reading::sys];
    CHECK(cpu > 0.1);
    CHECK(cpu <= outcome.readings[Reading::wall] * 1.05 + 0.01); // one thread cannot use more CPU than wall time
  }
}

TEST_CASE("process::run_process timeouts kill the whole group") {
  auto pidfile = temp_file("pid");
  SUBCASE("SIGTERM reaches the background grandchild") {
    auto outcome = run_process(sh("sleep 30 & echo $! > " + pidfile.string() + "; wait", 0.3));
    CHECK(outcome.termination == Termination::timed_out);
    CHECK(outcome.readings[Reading::wall] == doctest::Approx(0.3).epsilon(0.5));
    CHECK(describe(outcome, std::chrono::milliseconds(300)) == "timed out after 0.3s");
    std::ifstream in(pidfile);
    pid_t grandchild = 0;
    in >> grandchild;
    REQUIRE(grandchild > 0);
    CHECK(gone_soon(grandchild));
  }
  SUBCASE("a child that ignores SIGTERM gets SIGKILL after the grace period") {
    auto outcome = run_process(sh("trap '' TERM; while :; do :; done", 0.2));
    CHECK(outcome.termination == Termination::timed_out);
    CHECK(outcome.readings[Reading::wall] >= 0.2 + 4.9);
    CHECK(outcome.readings[Reading::wall] < 0.2 + 8.0);
  }
  SUBCASE("members left behind by a leader that exited are killed") {
    auto outcome = run_process(sh("sleep 30 & echo $! > " + pidfile.string()));
    CHECK(succeeded(outcome));
    std::ifstream in(pidfile);
    pid_t straggler = 0;
    in >> straggler;
    REQUIRE(straggler > 0);
    CHECK(gone_soon(straggler));
  }
  std::filesystem::remove(pidfile);
}

TEST_CASE("process::run_process cancel") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    char byte = 'C';
    CHECK(::write(fds[1], &byte, 1) == 1);
  });
  auto outcome = run_process(sh("sleep 30"), fds[0]);
  canceller.join();
  CHECK(outcome.termination == Termination::cancelled);
  CHECK(outcome.readings[Reading::wall] < 5.0);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_CASE(
    "process::releasable_pages are this process's unwritten read-only file pages, and dropping them loses nothing") {
  const auto pages = releasable_pages();
  REQUIRE(!pages.text.empty());
  const auto resident_kib = [] {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      if (line.starts_with("RssFile:")) {
        return std::stol(line.substr(8));
      }
    }
    return -1L;
  };
  const long before = resident_kib();
  release(pages.text);
  release(pages.data);
  CHECK(resident_kib() < before);
  // the code and data came back from the file: what runs after reads as before
  CHECK(find_executable("sh", "/usr/bin:/bin").has_value());
  CHECK(succeeded(run_process(sh("exit 0"))));
}

TEST_CASE("process::mapped_pages and map_back") {
  const auto text = releasable_pages().text;
  REQUIRE(!text.empty());
  const auto pages = [](const PageRanges& r) {
    std::size_t bytes = 0;
    for (const auto& [start, end] : r) {
      bytes += end - start;
    }
    return bytes / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  };
  map_back(text);
  CHECK(pages(mapped_pages(text)) == pages(text));
  release(text);
  const std::size_t after_release = pages(mapped_pages(text));
  CHECK(after_release < pages(text) / 2); // only what ran since is back
  const auto ran = mapped_pages(text);    // what ran since the release
  release(text);
  map_back(ran);
  CHECK(mapped_pages(ran) == ran); // every page of it is back
}

TEST_CASE("process::run_process in a forked copy reads the copy's resident set as its floor") {
  CHECK(succeeded(run_process(sh("exit 0")))); // the parent has read its own
  constexpr std::size_t k_ballast = 64 << 20;
  void* ballast = ::mmap(nullptr, k_ballast, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(ballast != MAP_FAILED);
  std::memset(ballast, 1, k_ballast);
  const pid_t copy = ::fork();
  REQUIRE(copy >= 0);
  if (copy == 0) { // the copy drops the ballast the parent keeps: its floor must not include it
    ::munmap(ballast, k_ballast);
    std::istringstream statm(first_line("/proc/self/statm"));
    long size_pages = 0;
    long resident_pages = 0;
    statm >> size_pages >> resident_pages;
    const long resident = resident_pages * ::sysconf(_SC_PAGESIZE);
    const auto outcome = run_process(sh("exit 0"));
    // the parent's reading would be the copy's and the 64 MiB more it still holds
    const bool own = outcome.rss_floor_bytes > 0 && outcome.rss_floor_bytes < resident + (32 << 20);
    ::_exit(succeeded(outcome) && own ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(copy, &status, 0) == copy);
  ::munmap(ballast, k_ballast);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("process::find_executable") {
  CHECK(find_executable("sh", "/nonexistent:/bin").value() == "/bin/sh");
  CHECK_FALSE(find_executable("sh", "/nonexistent").has_value());
  CHECK(find_executable("/bin/sh", "").value() == "/bin/sh");
  CHECK_FALSE(find_executable("/etc", "").has_value());
  CHECK_FALSE(find_executable("", "/bin").has_value());
}
