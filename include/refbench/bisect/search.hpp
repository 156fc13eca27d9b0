#pragma once
// The search of `refbench bisect` (docs/manual/bisect.md): a binary search over a
// path of commits, index 0 the good end and the last the bad end, where a
// midpoint's side is taken only when its interval says so. Pure: the
// builds and the measurements come through an Oracle, so the rule is
// tested on simulated histories (docs/design.md, Bisect).

#include <cstddef>
#include <optional>
#include <vector>

namespace refbench::bisect {

// A commit's metric against the good end's from one step's rounds: the
// log-ratio estimate and its interval (log units), from n pairs.
struct Reading {
  double estimate = 0;
  double low = 0;
  double high = 0;
  std::size_t n = 0;
};

// What a step measured: the midpoint and the bad end, each against the
// good end, and the A/A control (the good end against itself), in the same
// interleaved rounds.
struct Measured {
  Reading mid;
  Reading bad;
  std::optional<Reading> control; // none when the run has no control
  int rounds = 0;
  // the pairs each reading needs before the step may be judged on it (the
  // run's min_rounds): fewer is no evidence, whatever the interval says
  std::size_t needed = 0;
};

// The noise floor of a control reading in log units: the larger of |low|
// and |high| of its interval (two runs of the same code differed by up to
// ±floor); 0 without a control, infinite when the control has no interval.
double floor_of(const std::optional<Reading>& control);

// What a reading says of a move in one direction (docs/design.md, Bisect).
enum class Move { clear, none, unclear };

// Whether `reading` moved in direction `sign` (+1 up, −1 down, in log-ratio
// units) further than the A/A control of the same rounds: clear when its
// whole interval lies past no change and past the control's floor ±f in
// that direction; none when it lies wholly short of `threshold_log` in
// that direction (no move the threshold cares about); unclear otherwise —
// more rounds may decide it — and whenever the reading (or the control)
// has fewer than `needed` pairs.
Move judge_move(const Reading& reading, const std::optional<Reading>& control, int sign, double threshold_log,
                std::size_t needed = 0);

// What a measured midpoint was taken for: like the good end, like the bad
// end, or neither (its interval reaches across the halfway point, or the
// bad end did not show its move this time).
enum class Side { good, bad, unclear };

// The midpoint's side: bad-like when its whole interval is past half the
// bad end's log-ratio (on the bad end's side), good-like when wholly short
// of it; unclear when the bad end's move is not clear against `control`
// (judge_move: the step could not see the move it is looking for) or when
// the midpoint's interval reaches across, or when a reading has fewer than
// `needed` pairs.
Side side_of(const Reading& mid, const Reading& bad, const std::optional<Reading>& control = std::nullopt,
             std::size_t needed = 0);

// One measured step of the search.
struct Step {
  std::size_t good = 0; // the ends it was measured against
  std::size_t bad = 0;
  std::size_t mid = 0;
  Measured measured;
  Side side = Side::unclear;
  int more = 0; // how many times the step measured more rounds before its side was taken (or given up)
};

// The builds and measurements of a path of `count` commits.
class Oracle {
public:
  virtual ~Oracle() = default;
  // Builds commit `index` (once: later calls answer from memory); false
  // when it does not build.
  virtual bool build(std::size_t index) = 0;
  // Measures `mid` and `bad` against `good` together, in the same rounds.
  virtual Measured measure(std::size_t good, std::size_t mid, std::size_t bad) = 0;
  // More rounds of the step just measured, analysed together with its
  // earlier rounds; none when the budget or the cap on rounds leaves no
  // room (then the step is given up as unclear).
  virtual std::optional<Measured> measure_more(std::size_t good, std::size_t mid, std::size_t bad) {
    (void)good, (void)mid, (void)bad;
    return std::nullopt;
  }
};

// Where the search ended: `good` is the last commit taken for good, `bad`
// the first taken for bad. Found when every commit strictly between them
// was skipped (none when adjacent): the culprit is `bad` when nothing was
// skipped between, else one of the skipped commits or `bad` (a range).
// Ambiguous when a step was unclear: the culprit is somewhere in
// (good, bad].
struct Outcome {
  std::size_t good = 0;
  std::size_t bad = 0;
  bool ambiguous = false;
  std::vector<Step> steps;
  std::vector<std::size_t> skipped; // commits that did not build, in the order tried
  // The culprit when it is one commit: `bad`, found and nothing skipped between.
  std::optional<std::size_t> culprit() const;
};

// Binary search over indices 0 … count − 1 (count ≥ 2): 0 is good, the
// last is bad, both built and their difference confirmed by the caller.
// Each step builds the unskipped commit nearest the middle of (good, bad)
// (skipping, as `git bisect skip` does, those that do not build) and
// measures it with both ends; a good-like midpoint becomes the good end, a
// bad-like one the bad end; an unclear one measures more while the oracle
// allows, and ends the search as ambiguous if it stays unclear.
Outcome search(std::size_t count, Oracle& oracle);

// The confidence of each step's intervals for a path of `count` commits,
// so that one search takes a wrong side with probability at most `error`
// (docs/design.md, Bisect): at most k = ⌈log2(count − 1)⌉ steps halve the
// path, a wrong side needs a step's interval to miss its truth on one
// side (probability (1 − confidence) / 2), and the union bound gives
// k (1 − confidence) / 2 = error, so confidence = 1 − 2 error / k.
double step_confidence(std::size_t count, double error);

// The midpoint rule on its own: the index in (good, bad), not in
// `skipped`, nearest to (good + bad) / 2 (the lower one on a tie); none
// when every commit between is skipped or there is none.
std::optional<std::size_t> midpoint(std::size_t good, std::size_t bad, const std::vector<std::size_t>& skipped);

} // namespace refbench::bisect
