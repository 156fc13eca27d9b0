#pragma once
// The state of one run_rounds call (rounds.hpp), private to src/runner/:
// rounds.cpp runs the warm-up, the A/A control's choice and the rounds
// within the budget; round_hooks.cpp a cell's setup, prepare and cleanup
// hooks and the replicas each slot runs from; round_invocations.cpp each
// invocation, timed or counted, and what it reported.

#include <refbench/runner/counted_rounds.hpp>
#include <refbench/runner/replica_placement.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/runner/schedule.hpp>
#include <refbench/util/rng.hpp>

#include <array>
#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace refbench::runner::detail {

// Reads what `sample`'s command reported (docs/manual/config.md#custom-metrics-windows-and-requirements): its
// captured stdout, or the {output} file `output` when not empty, read only
// when it is a regular file in place (no link), at most
// model::k_max_output_report_bytes; an unreadable file is the sample's problem.
void read_report(const model::CellMeta& meta, model::Sample& sample, const std::string& output);

// Thrown inside the runner when a command cannot be started at all: the run
// stops at once instead of measuring the other cells to the end.
struct CannotStart {};

// Mutable state of one run; the record is what the caller gets back.
class RoundRunner {
public:
  RoundRunner(const std::vector<model::CellSpec>& cells, const model::RoundSettings& settings,
              process::Executor& executor, model::RoundLog& log, const RoundHooks& hooks);

  model::RunRecord run();

private:
  struct TreeChanged {};

  // --- rounds.cpp: the warm-up, the control's choice, the rounds, the budget

  // The last round any cell ran.
  int last_round() const;

  // Asks the tree check after `round`; on a change every cell fails with it
  // (an earlier failure of its own stays) and stops as an ERROR, even one
  // that had stopped: its samples were taken on a changed tree.
  bool trees_changed(int round, bool last);

  // Fails every cell with `change` after `round`, as trees_changed does.
  void fail_all_on_change(int round, const std::string& change);

  // Asks the link check before an invocation in `round`; when a link moved,
  // every cell fails with it and TreeChanged ends the rounds.
  void check_links(int round);

  // Whether the budget is spent: then no invocation starts.
  bool over_budget() const;

  // Stops every running cell on the budget.
  void stop_all_on_budget();

  // RoundSettings::warmup warm-up invocations (journaled as round 0, not
  // analysed) of every running cell, both arms, in cell order; stops every
  // cell once the budget is spent.
  void warm_up();

  // docs/manual/measurement.md: the A/A control replicates the cheapest cell (by warm-up
  // cost), baseline on both arms; announced to the log (a "cell" line of the journal).
  void add_control_of_cheapest();

  // Round `round` of the `active` cells: its counted pass, then every
  // slot once in a seeded shuffled order with one pad; then each cell that
  // is precise enough (from min_rounds) or at max_rounds stops.
  void run_round(int round, const std::vector<std::size_t>& active);

  // What each cell's next round costs: its timed invocations, and its
  // counted ones while it takes counts.
  std::vector<double> round_costs() const;

  // The cells still running, in index order.
  std::vector<std::size_t> active_cells() const;

  // Stops (StopReason::budget) and removes from `active` the cells whose
  // next round does not fit in the `remaining` seconds.
  void drop_over_budget(std::vector<std::size_t>& active, double remaining);

  // Stops `cell` for `reason` and logs it; a stopped cell stays as it stopped.
  void stop(std::size_t cell, model::StopReason reason);

  // --- round_hooks.cpp: hooks and replicas

  // A new cell's baseline slot: the baseline has no such benchmark.
  bool skipped(Slot slot) const;

  // The hooks of `slot`: the A/A control runs the baseline's on both arms,
  // the second where its twin runs (docs/manual/config.md#hooks).
  const model::ArmHooks& hooks_of(Slot slot) const;

  // Runs `hook` of `slot` (with {round} = `round`); a failure becomes the
  // cell's failure naming the hook and stops the cell. True when it ran to exit 0.
  bool run_hook(Slot slot, model::Hook hook, int round);
  // The same, failing no cell: a failure is left in `failure` (what an
  // explanation's prepare hook does).
  bool run_hook_quietly(Slot slot, model::Hook hook, int round, std::optional<model::CellFailure>& failure);

  // The setup hooks of `cell`, each arm once; the first that fails stops it.
  void set_up(std::size_t cell);

  // Every cell's cleanup hooks, each arm once, whatever stopped the cell or
  // the run (an interrupt included: they run despite it).
  void clean_up();

  // Points the {arm} links at round `round`'s replicas.
  void place(int round);

  // The replica that `slot` runs from in `round`.
  int replica_of(Slot slot, int round) const;

  // --- round_invocations.cpp: timed and counted invocations

  // What `slot` runs: the control runs the baseline on both arms, the
  // second through its own link when it has one.
  const model::Invocation& invocation_of(Slot slot) const;

  // The {output} path of `slot` substituted into its `invocation` for
  // `round`, removed first so the command makes it afresh (never through a
  // link planted there); "" for a cell without placeholders.
  std::string fresh_output(Slot slot, int round, model::Invocation& invocation) const;

  // One timed invocation of `slot` in `round` at position `order`, with
  // REFBENCH_PAD=`pad` and the round's `counts` of it merged into its
  // readings: its prepare hook first, then the command, its report read;
  // journaled as taken. A failure stops the cell (an ERROR naming it); a
  // command that cannot start at all throws CannotStart.
  void measure(Slot slot, int round, std::size_t order, const std::string& pad, const Counts& counts = {});

  // The counts per benchmark in `counts` added to `sample`'s benchmarks
  // (suites::Benchmark::values and uncounted), for the readings its cell
  // counts.
  void add_benchmark_counts(model::Sample& sample, const Counts& counts) const;

  // Hashes `output` of `slot` in round 1; once both arms are in, differing
  // hashes make the cell ERROR (the arms did different work).
  void record_output_hash(Slot slot, const std::string& output);

  // Whether `cell` still takes counts: it is counted and its counts have
  // not settled (CountLedger::needs_counts).
  bool needs_counts(std::size_t cell) const;

  // The counted invocations of round `round` (docs/design.md, Counters):
  // every active cell that still takes counts, once per arm and counter,
  // shuffled like the timed ones and run before them; the counts by (cell,
  // arm index).
  RoundCounts count_round(int round, const std::vector<std::size_t>& active);

  // The counts of `slot` in `round`: RoundHooks::count_memo's when it
  // holds them, else take_counts' (kept in the memo).
  std::optional<Counts> count(Slot slot, int round);
  // One invocation under each counter its cell's readings need; none when
  // one failed (the cell's ERROR).
  std::optional<Counts> take_counts(Slot slot, int round);

  // One counted invocation of `slot` in `round` under `counter`, its
  // prepare hook first; a failure (of the hook, the command under the
  // counter, or the count) is the cell's ERROR. The pad is fixed: the
  // environment's size changes the instructions the dynamic loader runs.
  std::optional<Counts> count_under(Slot slot, int round, Counter counter);

  // --- suite_counts.cpp: counts per benchmark (docs/manual/suites.md#counts-per-benchmark)

  // The counts of suite cell `slot` in `round`: its harness's whole suite
  // run once under callgrind (HarnessCounting), each benchmark's counts per
  // iteration of its loop, or why it has none; none at all when the run
  // failed (the cell's ERROR, as count_under's).
  std::optional<Counts> count_benchmarks(Slot slot, int round);

  // --- explain.cpp: where the changes came from (docs/manual/explanations.md)

  // The chosen cells explained within the budget left, each arm once
  // under callgrind, each handed to RoundHooks::explained.
  void explain();
  // What explaining `cell` is expected to cost: its last counted pass, or
  // both arms' last walls under valgrind's slowdown.
  double explain_estimate(std::size_t cell) const;
  // One arm's profile of `target`, or why there is none.
  std::expected<profile::Profile, std::string> profile_of(const model::ExplainTarget& target, model::Arm arm);

  std::vector<model::CellSpec> m_cells;
  const model::RoundSettings& m_settings;
  process::Executor& m_executor;
  model::RoundLog& m_log;
  const RoundHooks& m_hooks;
  const Clock& m_clock;
  double m_deadline = 0;        // on m_clock: when the budget is spent
  double m_explain_seconds = 0; // what the explanations took, not the rounds' time
  util::Rng m_rng;
  std::vector<std::array<double, 2>> m_last_wall;
  std::vector<std::array<std::string, 2>> m_output_hashes; // round 1 {output} hashes per cell
  CountLedger m_counts;                                    // the counted cells' counts so far
  std::vector<Placement> m_placements;                     // per round, 0 = warm-up
  model::RunRecord m_record;
};

} // namespace refbench::runner::detail
