#include <refbench/process/reaper.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace refbench::process {
namespace {

constexpr std::size_t k_children_per_pass = 256;

using ChildList = std::array<pid_t, k_children_per_pass>;

// Parses a space-separated list of pids from `text` into `children`;
// returns how many.
std::size_t parse_pids(const char* text, ChildList& children) {
  std::size_t count = 0;
  while (*text != '\0' && count < children.size()) {
    char* end = nullptr;
    const long pid = std::strtol(text, &end, 10);
    if (end == text) {
      break;
    }
    if (pid > 0) {
      children[count++] = static_cast<pid_t>(pid);
    }
    text = end;
  }
  return count;
}

// The children of the calling (single-threaded) process, from
// /proc/self/task/<pid>/children; -1 when that file is not available.
long children_from_task(ChildList& children) {
  std::array<char, 64> path{};
  std::snprintf(path.data(), path.size(), "/proc/self/task/%d/children", static_cast<int>(::getpid()));
  const int fd = ::open(path.data(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return -1;
  }
  std::array<char, k_children_per_pass * 8> text{};
  std::size_t size = 0;
  for (;;) {
    const ssize_t n = ::read(fd, text.data() + size, text.size() - 1 - size);
    if (n > 0 && size + static_cast<std::size_t>(n) < text.size() - 1) {
      size += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n > 0) {
      size += static_cast<std::size_t>(n);
    }
    break;
  }
  ::close(fd);
  text[size] = '\0';
  return static_cast<long>(parse_pids(text.data(), children));
}

// The children of the calling process by the parent pid of every process
// in /proc (kernels built without /proc/<pid>/task/<tid>/children).
std::size_t children_from_stat(ChildList& children) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return 0;
  }
  const pid_t self = ::getpid();
  std::size_t count = 0;
  while (const dirent* entry = ::readdir(proc)) {
    const long pid = std::strtol(entry->d_name, nullptr, 10);
    if (pid <= 0 || count == children.size()) {
      continue;
    }
    std::array<char, 64> path{};
    std::snprintf(path.data(), path.size(), "/proc/%ld/stat", pid);
    std::FILE* stat = std::fopen(path.data(), "re");
    if (stat == nullptr) {
      continue;
    }
    int parent = 0;
    // "pid (comm) state ppid": comm may hold spaces and parentheses, so skip to the last ')'.
    std::array<char, 512> line{};
    if (std::fgets(line.data(), static_cast<int>(line.size()), stat) != nullptr) {
      const char* close = nullptr;
      for (const char* c = line.data(); *c != '\0'; ++c) {
        close = *c == ')' ? c : close;
      }
      if (close != nullptr && std::sscanf(close + 1, " %*c %d", &parent) == 1 && parent == self) {
        children[count++] = static_cast<pid_t>(pid);
      }
    }
    std::fclose(stat);
  }
  ::closedir(proc);
  return count;
}

// Kills (SIGKILL) the first `count` of `children` and waits for each;
// returns `count`.
int kill_and_reap(const ChildList& children, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    ::kill(children[i], SIGKILL);
  }
  for (std::size_t i = 0; i < count; ++i) {
    while (::waitpid(children[i], nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  return static_cast<int>(count);
}

} // namespace

int kill_children_except(int keep) {
  int reaped = 0;
  ChildList children{};
  for (;;) {
    std::size_t count = children_from_stat(children);
    count = static_cast<std::size_t>(std::remove(children.begin(), children.begin() + count, keep) - children.begin());
    if (count == 0) {
      return reaped;
    }
    reaped += kill_and_reap(children, count);
  }
}

bool become_subreaper() { return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

int kill_all_children() {
  int reaped = 0;
  ChildList children{};
  for (;;) {
    const long listed = children_from_task(children);
    const std::size_t count = listed >= 0 ? static_cast<std::size_t>(listed) : children_from_stat(children);
    if (count == 0) {
      return reaped;
    }
    reaped += kill_and_reap(children, count);
  }
}

} // namespace refbench::process
