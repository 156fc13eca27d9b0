#pragma once
// Warm-up and interleaved rounds (docs/manual/measurement.md): every active cell once per arm
// per round in a seeded shuffled order, a fresh REFBENCH_PAD per round,
// cheapest-first, budget-aware, every measurement journaled as taken.

#include <refbench/model/explanation.hpp>
#include <refbench/model/record.hpp>
#include <refbench/model/round_log.hpp>
#include <refbench/process/executor.hpp>
#include <refbench/profile/diff.hpp>
#include <refbench/runner/counted_rounds.hpp>
#include <refbench/runner/replica_placement.hpp>
#include <refbench/util/clock.hpp>

#include <functional>
#include <string>
#include <vector>

namespace refbench::runner {

// Called after each round with the round number, the cells still active and
// the seconds elapsed.
using RoundObserver = std::function<void(int round, std::size_t active_cells, double elapsed_seconds)>;

// Called right before each invocation (warm-up included, as round 0) with
// the cell, the arm about to run and the round; it runs between measured
// invocations, so it must be quick.
using InvocationObserver = std::function<void(const model::CellRecord& cell, model::Arm arm, int round)>;

// Seconds since some fixed point; tests pass a fake one.
using Clock = std::function<double()>;

// The real Clock: util::monotonic_seconds.
inline double monotonic_now() { return util::monotonic_seconds(); }

// Whether `cell` of the run so far is measured precisely enough to stop
// (docs/manual/statistics.md); asked after each round once the cell has min_rounds rounds.
using PrecisionCheck = std::function<bool(const model::RunRecord& record, std::size_t cell)>;

// Called before the warm-up (round 0) and before each round with the
// replicas the {arm} links must point to for that round; only when
// RoundSettings::replicas > 1. It may throw to stop the run.
using PlacementHook = std::function<void(int round, const Placement& placement)>;

// Called after the warm-up (round 0) and after each round with what changed
// in the arms' trees since they were built ("": nothing), and once more
// after the last round with `last` (a slower, thorough look). A change
// stops the run: every cell becomes an ERROR naming it (docs/manual/security.md).
using TreeCheck = std::function<std::string(int round, bool last)>;

// Called right before every invocation (timed or counted, warm-up included)
// with nothing to say ("") when the {arm} links still point where the last
// placement put them, else what moved. A move stops the run as a tree
// change does: the invocation would run another tree than its arm's.
using LinkCheck = std::function<std::string()>;

// Which cells to explain once the rounds are over (docs/manual/explanations.md),
// given the record as it stands; asked once, after the last round.
using ExplainChoice = std::function<std::vector<model::ExplainTarget>(const model::RunRecord& record)>;

// Called with each explanation, in the order chosen: made (with both arms'
// call tree) or not (its `problem` says why; no tree).
using ExplainSink = std::function<void(model::Explanation explanation, const profile::Frame* tree)>;

struct RoundHooks {
  Clock clock = monotonic_now;
  RoundObserver observer;               // empty: none
  InvocationObserver before_invocation; // empty: none
  PrecisionCheck precise;               // empty: never stop on precision
  PlacementHook place;                  // empty: the links are not moved (every sample is replica 0)
  TreeCheck check_trees;                // empty: the trees are not checked
  LinkCheck check_links;                // empty: the links are not checked
  ExplainChoice explain;                // empty: nothing is explained
  ExplainSink explained;                // empty: nothing is explained
  // Counts taken before and reused (bisect's steps): a counted pass of a
  // cell's arm whose key (count_key; "" for none) the memo holds is not run
  // again. None: every counted pass runs.
  CountMemo* count_memo = nullptr;
  std::function<std::string(const model::CellSpec& cell, model::Arm arm)> count_key;
};

// Replaces {round} and {output} in `invocation`'s argv and environment values;
// with `shell`, the values filled into the script (argv[2]) are shell-quoted.
void substitute_placeholders(model::Invocation& invocation, int round, const std::string& output, bool shell = false);

// Runs warm-up then rounds of `cells` through `executor` and returns what
// was measured. The budget bounds the warm-up and every round, the first
// included: once it is spent no invocation starts (the cells stop on
// StopReason::budget; a round cut short keeps only its complete pairs). A failed invocation stops its cell
// (StopReason::error); an interrupt stops the run and sets `interrupted_by` instead of throwing, so the caller can
// still write the partial results. Settings must be valid (max_rounds ≥ 1, warmup ≥ 0).
model::RunRecord run_rounds(const std::vector<model::CellSpec>& cells, const model::RoundSettings& settings,
                            process::Executor& executor, model::RoundLog& log, const RoundHooks& hooks = {});

} // namespace refbench::runner
