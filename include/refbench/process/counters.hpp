#pragma once
// Counted invocations (docs/manual/counters.md): the instruction counter a run
// uses, the invocation that counts, and reading its count back. A counted
// invocation is never a timed one: the rounds run it beside the timed ones.

#include <refbench/model/counter_tool.hpp>
#include <refbench/model/invocation.hpp>

#include <chrono>
#include <expected>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace refbench::process {

// What perf_event_open answered for a user-space instruction counter on
// this machine: whether it opened one, and what to record of it
// ("opened", or the error and a hint, e.g. "perf_event_open: No such file
// or directory (no PMU under /sys/bus/event_source/devices)").
struct PerfProbe {
  bool available = false;
  std::string answer;
};
PerfProbe perf_probe();

// The counter `source` resolves to, given the perf probe and the PATH to
// look for valgrind in, or a one-line error saying what to do. `auto`
// takes valgrind when it is installed; the perf source counts in the
// launcher, which this release does not do yet, so `perf` is refused with
// its probe's answer either way (docs/manual/counters.md).
std::expected<model::CounterTool, std::string> find_counter_tool(model::CounterSource source, const PerfProbe& probe,
                                                                 std::string_view path);

// How much longer a counted invocation may take than a timed one (its
// timeout is scaled by it): Valgrind runs a program 10–50× slower.
inline constexpr int k_counted_slowdown = 50;

// `invocation` run under `tool`, its count written as files in `dir`
// (one per process of the tree) and valgrind's own messages as logs there,
// so the command's stderr is the command's.
model::Invocation counted_invocation(const model::Invocation& invocation, const model::CounterTool& tool,
                                     const std::filesystem::path& dir);

// `invocation` run under valgrind's callgrind (docs/manual/explanations.md): each
// process of its tree writes its profile as k_profile_prefix + pid in
// `dir` and valgrind's own messages as logs there; its timeout is
// `timeout`.
inline constexpr std::string_view k_profile_prefix = "callgrind.";
model::Invocation profiled_invocation(const model::Invocation& invocation, const model::CounterTool& tool,
                                      const std::filesystem::path& dir, std::chrono::nanoseconds timeout);

// docs/manual/suites.md#counts-per-benchmark: `invocation` (a suite, its
// harness's counted arguments appended) run like profiled_invocation, with
// a dump before each function matching one of `dumps` (callgrind's
// patterns), each dump a file per thread, k_profile_prefix + pid + "." +
// its number + "-" + the thread's ("01": the main thread), and every
// symbol bound at start (LD_BIND_NOW) so that no benchmark's
// first run pays the dynamic loader.
model::Invocation dumped_invocation(const model::Invocation& invocation, const model::CounterTool& tool,
                                    const std::filesystem::path& dir, std::span<const std::string_view> dumps,
                                    std::chrono::nanoseconds timeout);

// Empties `dir` (creating it) before a counted invocation writes there;
// false when it cannot.
bool clear_counts(const std::filesystem::path& dir);

// The instructions the counted invocation's process tree ran, summed over
// the files in `dir`, or why there is no count (no file, a file that is no
// regular file of its own, a file without its summary line).
std::expected<double, std::string> read_instruction_count(const std::filesystem::path& dir);

// --- allocations: the allocation counter, preloaded (allocation_counter.c)

// The allocation counter's shared object as the binary carries it.
std::string_view allocation_counter_image();

// Writes the allocation counter into `dir` as a fresh file
// (k_allocation_counter_file, mode 0500, never through a link); its path,
// or why it cannot.
inline constexpr std::string_view k_allocation_counter_file = "refbench-alloc.so";
std::expected<std::filesystem::path, std::string> write_allocation_counter(const std::filesystem::path& dir);

// `invocation` with the allocation counter `library` preloaded (first in
// its LD_PRELOAD) and its counts written as files in `dir`. Its timeout is
// the timed one's: the counter adds an atomic add per allocation.
model::Invocation allocation_counted_invocation(const model::Invocation& invocation,
                                                const std::filesystem::path& library, const std::filesystem::path& dir);

struct AllocationCount {
  double calls = 0; // of the malloc family
  double bytes = 0; // that those calls asked for
};

// The allocations the counted invocation's process tree made, summed over
// its files in `dir`, or why there is no count: a file that is no regular
// file of its own or not 16 bytes, or no file at all — no process of the
// command loaded the counter, which names the executable `invocation`
// runs when it is statically linked.
std::expected<AllocationCount, std::string> read_allocation_count(const std::filesystem::path& dir,
                                                                  const model::Invocation& invocation);

// Whether `path` is an ELF file without a program interpreter: a statically
// linked program, which no preloaded library enters. False for anything
// else (a script, a dynamically linked program, a file it cannot read).
bool statically_linked(const std::filesystem::path& path);

} // namespace refbench::process
