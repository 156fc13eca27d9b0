#pragma once
// What to run and what came of it: the vocabulary shared by every executor.

#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace refbench::model {

// One whole-process invocation. `argv[0]` is looked up in the PATH of `env`
// when it has no '/'. `env` entries are "NAME=value"; it is the child's
// entire environment.
struct Invocation {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;                     // empty: the caller's directory
  std::chrono::nanoseconds timeout{0}; // 0: no timeout
  std::string stdout_path;             // empty: /dev/null; else replaced by a new file (never through a link)
  bool capture_stdout = false;         // stdout into Outcome::stdout_text (overrides stdout_path)
  bool stderr_to_stdout = false;       // stderr goes where stdout goes (no stderr tail then)
  // ≥ 0: the child's stdout is this descriptor, which the caller reads (the
  // launcher gets it from refbench); overrides the two above. Never on the wire.
  int stdout_fd = -1;
  // Runs even after SIGINT/SIGTERM, and is not cancelled by one (only its
  // timeout stops it): the cleanup hooks. Never on the wire.
  bool despite_interrupt = false;
};

enum class Termination {
  exited,       // ran to exit(); see exit_code
  signaled,     // killed by a signal it did not ask for; see signal
  timed_out,    // exceeded the timeout; the group got SIGTERM, then SIGKILL
  spawn_failed, // could not be started; see spawn_errno
  cancelled,    // stopped because refbench was interrupted
};

// What is measured of every invocation, one figure each. A built-in metric
// (runner/metrics.hpp) reads one or more of them; the wire format walks them
// in this order.
enum class Reading : std::size_t {
  wall, // seconds: util::monotonic_seconds, spawn..reap
  user, // seconds: wait4 rusage (covers waited-for descendants)
  sys,  // seconds, likewise
  rss,  // bytes: wait4 ru_maxrss, as spawned by the launcher
  // count: user-space instructions of the whole process tree, from a
  // counted invocation beside the timed one (process/counters.hpp); NaN
  // when the sample has none
  instructions,
  // counts: calls of the malloc family in the whole process tree and the
  // bytes they asked for, from a counted invocation with the allocation
  // counter preloaded (process/counters.hpp); NaN when the sample has none
  allocations,
  allocated_bytes,
};
inline constexpr std::size_t k_reading_count = 7;

// Whether `reading` comes from a counted invocation: absent (NaN) unless counted.
constexpr bool counted(Reading reading) {
  return reading == Reading::instructions || reading == Reading::allocations || reading == Reading::allocated_bytes;
}

// An invocation's figures, indexed by Reading; 0 until measured, NaN for
// the counted ones.
class Readings {
public:
  Readings() {
    for (std::size_t i = 0; i < k_reading_count; ++i) {
      m_values[i] = counted(static_cast<Reading>(i)) ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    }
  }
  // Whether `reading` was measured (a counted reading may be absent).
  bool has(Reading reading) const { return !std::isnan((*this)[reading]); }
  double& operator[](Reading reading) { return m_values[static_cast<std::size_t>(reading)]; }
  double operator[](Reading reading) const { return m_values[static_cast<std::size_t>(reading)]; }
  const std::array<double, k_reading_count>& values() const { return m_values; }
  std::array<double, k_reading_count>& values() { return m_values; }

private:
  std::array<double, k_reading_count> m_values{};
};

struct Outcome {
  Termination termination = Termination::exited;
  int exit_code = 0;
  int signal = 0;
  int spawn_errno = 0;
  Readings readings;
  // The spawner's own peak RSS, which every reading includes (exec carries
  // it into the child): readings near it are censored. 0 when unknown.
  std::int64_t rss_floor_bytes = 0;
  std::string stderr_tail; // at most the last k_stderr_tail_bytes
  // With capture_stdout: the first k_stdout_capture_bytes from run_process,
  // the last k_stdout_tail_bytes from the Launcher (which keeps it out of the
  // launcher process: docs/design.md, Processes).
  std::string stdout_text;
  std::uint64_t stdout_bytes = 0; // with capture_stdout: all the command wrote to stdout
};

inline constexpr std::size_t k_stderr_tail_bytes = 64 * 1024;
inline constexpr std::size_t k_stdout_capture_bytes = 64 * 1024 * 1024;
// The most of a command's stdout that the Launcher keeps: its end, where a
// command reports its custom metrics.
inline constexpr std::size_t k_stdout_tail_bytes = 4 * 1024 * 1024;

// True when the invocation exited with code 0.
inline bool succeeded(const Outcome& outcome) {
  return outcome.termination == Termination::exited && outcome.exit_code == 0;
}

// One phrase for what happened, e.g. "exited with code 3", "was killed by
// SIGSEGV", "timed out after 10s", "could not be started: No such file or directory".
std::string describe(const Outcome& outcome, std::chrono::nanoseconds timeout);

// The last `max_lines` lines of `text` (for error messages), without a trailing newline.
std::string last_lines(const std::string& text, std::size_t max_lines);

} // namespace refbench::model
