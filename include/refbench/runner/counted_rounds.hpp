#pragma once
// The counted passes of a run's rounds (docs/design.md, Counters): the
// instruction counts each counted cell has taken, whether it still takes
// them, and what its counted pass costs a round (so the budget sees it).

#include <refbench/model/invocation.hpp>
#include <refbench/model/record.hpp>

#include <array>
#include <cstddef>
#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refbench::runner {

// One counted pass of an arm: each counted reading it took.
using Counts = std::map<model::Reading, double>;
// One round's counts, by (cell index, arm index: 0 baseline, 1 candidate).
using RoundCounts = std::map<std::pair<std::size_t, int>, Counts>;

// The counters a counted invocation runs under: the instruction counter
// (valgrind's cachegrind), the allocation counter (preloaded).
enum class Counter { instructions, allocations };

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

class CountLedger {
public:
  // A ledger of `cells` cells, none counted yet.
  explicit CountLedger(std::size_t cells);

  // Appends a cell (the A/A control) whose counted pass is expected to cost
  // what cell `like`'s last one did.
  void add_like(std::size_t like);

  // Whether `cell` still takes counts: fewer than max(k_settled_counts,
  // min_rounds) counted rounds (the analysis decides on no fewer), or its
  // arms' counts were not the same in each of the last k_settled_counts.
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
