#pragma once
// The counted passes of a run's rounds (docs/design.md, Counters): the
// instruction counts each counted cell has taken, whether it still takes
// them, and what its counted pass costs a round (so the budget sees it).

#include <refbench/model/invocation.hpp>
#include <refbench/model/record.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refbench::runner {

// One counted pass of an arm: each counted reading it took; a suite's per
// benchmark and iteration of its loop (docs/manual/suites.md#counts-per-benchmark), and why a
// benchmark it reported has none.
struct Counts {
  std::map<model::Reading, double> readings;
  std::map<std::string, std::map<model::Reading, double>> benchmarks;
  std::map<std::string, std::string> uncounted;
  bool operator==(const Counts&) const = default;
};
// One round's counts, by (cell index, arm index: 0 baseline, 1 candidate).
using RoundCounts = std::map<std::pair<std::size_t, int>, Counts>;

// The counters a counted invocation runs under: the instruction counter
// (valgrind's cachegrind), the allocation counter (preloaded).
enum class Counter { instructions, allocations };
inline constexpr std::size_t k_counter_count = 2; // the Counter values, one row each

// One counter, one row of counted_rounds.cpp's table (ARCHITECTURE.md: How
// to add a counter): the counted readings it takes, the CellFailure::hook
// of its failed invocation, how an invocation runs under it (its counts
// going to `dir`, which is empty) and how its counts are read back.
struct CounterInfo {
  Counter counter;
  std::span<const model::Reading> readings;
  std::string_view failure_hook;
  std::expected<model::Invocation, std::string> (*wrap)(const model::Invocation& invocation,
                                                        const model::RoundSettings& settings,
                                                        const std::filesystem::path& dir);
  std::expected<Counts, std::string> (*read)(const model::Invocation& invocation, const std::filesystem::path& dir);
};

// Every counter, in Counter's order; each counted model::Reading is taken
// by exactly one of them.
std::span<const CounterInfo> built_in_counters();
const CounterInfo& counter_info(Counter counter);

// The counters `readings` (a cell's counted ones) need, in the order a
// counted pass runs them: instructions for `instructions`, allocations for
// `allocations` and `allocated_bytes`.
std::vector<Counter> counters_for(const std::vector<model::Reading>& readings);

// CellFailure::hook of a counted invocation under `counter` that failed:
// k_counted_run or k_allocation_run.
std::string_view failure_hook(Counter counter);

// `invocation` run under `counter`, its counts going to `settings.counts_dir`,
// which is emptied first (and gets the allocation counter written into it),
// or why it cannot be: the phrase after "the … command, run under the …
// counter,".
std::expected<model::Invocation, std::string> counted_command(const model::Invocation& invocation, Counter counter,
                                                              const model::RoundSettings& settings);

// What the counted invocation of `invocation` under `counter` left in
// `counts_dir`: its readings, or why there are none.
std::expected<Counts, std::string> read_counts(Counter counter, const model::Invocation& invocation,
                                               const std::string& counts_dir);

// Counts kept across runs of the same builds (docs/design.md, Counted
// bisect): bisect measures a commit in several steps, and a count that
// read the same each time it was taken need not be taken again. Keys name
// a cell, its counted readings and the commit an arm runs.
class CountMemo {
public:
  // The counts of `key` to reuse: at least required(key) taken, all alike.
  std::optional<Counts> reuse(const std::string& key) const;
  // One counted pass of `key` that was run.
  void add(const std::string& key, const Counts& counts);
  // How many alike passes `key` needs before it is reused: 1 unless required.
  void require(const std::string& key, int passes) { m_required[key] = std::max(1, passes); }
  int required(const std::string& key) const;
  // The counted passes run so far (reuses not included).
  int passes() const { return m_passes; }

private:
  std::map<std::string, std::vector<Counts>> m_taken;
  std::map<std::string, int> m_required;
  int m_passes = 0;
};

class CountLedger {
public:
  // A ledger of `cells` cells, none counted yet.
  explicit CountLedger(std::size_t cells);

  // Appends a cell (the A/A control) whose counted pass is expected to cost
  // what cell `like`'s last one did.
  void add_like(std::size_t like);

  // Whether `cell` still takes counts: fewer than k_fixed_counts counted
  // rounds; or, once its counts have varied, fewer than
  // max(k_settled_counts, min_rounds) (the analysis decides on no fewer)
  // or not the same on each arm in each of the last k_settled_counts.
  // Counts that read the same in every one of k_fixed_counts rounds are
  // fixed: no more are taken.
  bool needs_counts(std::size_t cell, int min_rounds) const;

  // Records a counted pass over `cells` that took `seconds` in all: a
  // cell's round of counts when both its arms were counted.
  void record(const std::vector<std::size_t>& cells, const RoundCounts& counts, double seconds);

  // The seconds `cell`'s last counted pass took (both arms); 0 before any.
  double last_cost(std::size_t cell) const { return m_last_seconds[cell]; }

private:
  std::vector<std::vector<std::array<Counts, 2>>> m_counts; // per cell: each counted round's {baseline, candidate}
  std::vector<double> m_last_seconds;                       // per cell: its last counted pass, both arms
};

} // namespace refbench::runner
