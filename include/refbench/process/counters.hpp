#pragma once
// Counted invocations (README: Counters): the instruction counter a run
// uses, the invocation that counts, and reading its count back. A counted
// invocation is never a timed one: the rounds run it beside the timed ones.

#include <refbench/process/invocation.hpp>
#include <refbench/util/enum_names.hpp>

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace refbench::process {

// Where counts come from: `run.counters` / `--counters`.
enum class CounterSource { automatic, perf, valgrind };
inline constexpr auto k_counter_source_names = util::enum_names<CounterSource>(
    {{CounterSource::automatic, "auto"}, {CounterSource::perf, "perf"}, {CounterSource::valgrind, "valgrind"}});
inline std::string_view counter_source_name(CounterSource source) { return k_counter_source_names.name(source); }

// What perf_event_open answered for a user-space instruction counter on
// this machine: whether it opened one, and what to record of it
// ("opened", or the error and a hint, e.g. "perf_event_open: No such file
// or directory (no PMU under /sys/bus/event_source/devices)").
struct PerfProbe {
  bool available = false;
  std::string answer;
};
PerfProbe perf_probe();

// The counter a run uses, as results.json records it (environment.counters).
struct CounterTool {
  CounterSource source = CounterSource::valgrind; // never automatic: what auto chose
  std::string probe;                              // the perf probe's answer
  std::string version;                            // e.g. "valgrind-3.19.0"
  std::string program;                            // the tool's absolute path
};

// The counter `source` resolves to, given the perf probe and the PATH to
// look for valgrind in, or a one-line error saying what to do. `auto`
// takes valgrind when it is installed; the perf source counts in the
// launcher, which this release does not do yet, so `perf` is refused with
// its probe's answer either way (README: Counters).
std::expected<CounterTool, std::string> find_counter_tool(CounterSource source, const PerfProbe& probe,
                                                          std::string_view path);

// How much longer a counted invocation may take than a timed one (its
// timeout is scaled by it): Valgrind runs a program 10–50× slower.
inline constexpr int k_counted_slowdown = 50;

// `invocation` run under `tool`, its count written as files in `dir`
// (one per process of the tree) and valgrind's own messages as logs there,
// so the command's stderr is the command's.
Invocation counted_invocation(const Invocation& invocation, const CounterTool& tool, const std::filesystem::path& dir);

// Empties `dir` (creating it) before a counted invocation writes there;
// false when it cannot.
bool clear_counts(const std::filesystem::path& dir);

// The instructions the counted invocation's process tree ran, summed over
// the files in `dir`, or why there is no count (no file, a file that is no
// regular file of its own, a file without its summary line).
std::expected<double, std::string> read_instruction_count(const std::filesystem::path& dir);

} // namespace refbench::process
