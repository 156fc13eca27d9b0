#pragma once
// The verdict rules of docs/manual/statistics.md, in order:
// ERROR, CENSORED, REGRESSION, IMPROVED, PASS, INCONCLUSIVE — on a ratio or,
// for count metrics, on a difference.

#include <refbench/util/enum_names.hpp>

#include <limits>
#include <optional>
#include <string_view>

namespace refbench::stats {

// new_cell: a cell the baseline's config does not have, measured on the
// candidate only (docs/manual/config.md#new-and-removed-cells); never decided by `decide`.
enum class Verdict { error, censored, regression, improved, pass, inconclusive, new_cell };

// Upper-case name as in docs/manual/statistics.md, e.g. "REGRESSION".
inline constexpr auto k_verdict_names = util::enum_names<Verdict>({{Verdict::inconclusive, "INCONCLUSIVE"},
                                                                   {Verdict::error, "ERROR"},
                                                                   {Verdict::censored, "CENSORED"},
                                                                   {Verdict::regression, "REGRESSION"},
                                                                   {Verdict::improved, "IMPROVED"},
                                                                   {Verdict::pass, "PASS"},
                                                                   {Verdict::new_cell, "NEW"}});
inline std::string_view verdict_name(Verdict verdict) { return k_verdict_names.name(verdict); }

// What an interval measures: a ratio candidate / baseline (no change = 1,
// the threshold a ratio above 1) or a difference candidate − baseline (no
// change = 0, the threshold the largest tolerated increase, docs/manual/config.md#metric-kinds-ceilings-and-slos).
enum class Scale { ratio, difference };

struct VerdictInput {
  bool error = false;      // an invocation failed, a metric was missing, outputs differed
  bool slo_broken = false; // the candidate's median breaks an SLO the baseline's met
  bool censored = false;   // docs/manual/statistics.md, censoring
  Scale scale = Scale::ratio;
  std::size_t n = 0; // complete pairs
  std::size_t min_rounds = 2;
  bool interval_reaches_confidence = true; // false: too few values for a 95 % interval
  double ci_low = 0;                       // worse-oriented interval on `scale` (worse > 1, or > 0)
  double ci_high = 0;
  double p = 1;          // against the threshold on the worse side; BH-adjusted for gated metrics, raw for info
  double p_improved = 1; // against the threshold's mirror on the better side; BH-adjusted likewise
  double p_better = 1;   // against no change on the better side; BH-adjusted likewise
  double alpha = 0.05;
  double threshold = std::numeric_limits<double>::quiet_NaN(); // always given by the caller
  std::optional<double> noise_floor;                           // unknown without a control cell
  // the A/A control itself: both arms are one build, so a move inside the
  // threshold is the run's noise, a PASS, never a small IMPROVED
  bool aa_control = false;
};

// Applies the rules in order: ERROR, REGRESSION for a broken SLO, CENSORED,
// then the interval, the same rule in both directions (docs/design.md,
// Verdicts): a clear change — REGRESSION when the interval lies above the
// threshold T and p < alpha, IMPROVED when it lies below its mirror (1 / T,
// or −T for a difference) and p_improved < alpha — whatever the noise
// floor, n or the interval's confidence; then, only with n ≥ min_rounds, an
// interval that reaches its confidence and a known floor below T (a
// difference: at or below): IMPROVED when below no change and below the
// floor's mirror (1 / floor, −floor) with p_better < alpha (not for the A/A
// control), PASS when below
// T (a difference: at or below, so a count that stays 0 passes a
// max_increase of 0). Anything else, and a NaN interval, is INCONCLUSIVE.
Verdict decide(const VerdictInput& input);

// The mirror of `threshold` on the better side: 1 / T for a ratio, −T for a
// difference (−0 is 0: a count must fall for a clear improvement).
double better_threshold(Scale scale, double threshold);

// The run's noise floor from the A/A control's ratio interval:
// max(hi, 1 / lo) (docs/manual/statistics.md).
double noise_floor(double control_ci_low, double control_ci_high);

} // namespace refbench::stats
