#pragma once
// Turns the samples of a run (or of outside data) into one result per
// cell × metric with the statistics of docs/manual/statistics.md: paired log-ratios, the
// Hodges–Lehmann ratio and its interval, the one-sided p against the
// threshold, Benjamini–Hochberg over the gated metrics, the A/A noise floor,
// censoring, the minimum detectable ratio and the verdict. Pure: no I/O.

#include <refbench/model/record.hpp>
#include <refbench/stats/verdict.hpp>
#include <refbench/util/enum_names.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::analysis {

// A metric's unit and direction are the metric table's (runner/metrics.hpp).
using model::Direction;
using model::Unit;
using model::unit_name;
enum class IntervalMethod { signed_rank, bootstrap };

// The readings of one metric of one cell. Paired: baseline[i] and
// candidate[i] are one pair (same round). Unpaired: independent samples.
struct MetricSamples {
  std::string metric;
  Unit unit = Unit::seconds;
  Direction direction = Direction::lower_is_better;
  bool gated = false;
  bool paired = true;
  std::vector<double> baseline;
  std::vector<double> candidate;
  // Per reading: whether it sits at the measurement floor (docs/design.md,
  // Censoring at the measurement floor); empty = never.
  std::vector<bool> baseline_at_floor;
  std::vector<bool> candidate_at_floor;
  std::optional<double> threshold; // overrides Settings::threshold (count_threshold when counted)
  bool counted = false;            // a counted metric (model::counted): its default threshold is count_threshold
  std::string unit_label;          // shown after plain values, e.g. "req/s"
  // count: compared by the difference candidate − baseline, not the ratio
  // (docs/manual/config.md#metric-kinds-ceilings-and-slos); readings may be 0.
  model::MetricKind kind = model::MetricKind::ratio;
  double max_increase = 0; // count: the gate, in the metric's units
  // What the *_at_floor flags mean when they are not the measurement floor,
  // e.g. "censor_above = 10000"; "" for the floor.
  std::string censor_limit;
  std::optional<model::Slo> slo;
};

struct CellSamples {
  std::string name;
  bool control = false;
  std::optional<std::string> error; // why the cell is ERROR, if it is
  std::vector<MetricSamples> metrics;
  std::size_t group = 0; // cells measured together (one run); a control's floor applies to its group
  // a new cell: its metrics hold only candidate readings; verdict NEW (docs/manual/config.md#new-and-removed-cells)
  bool candidate_only = false;
  std::string candidate; // which candidate, when the run has several (docs/manual/commands.md#more-candidates); "": one
  // docs/manual/suites.md: a suite's row and the A/A control's row of the same
  // benchmark share it ("SUITE/BENCHMARK"), and only they share a floor;
  // "": the control's floor of the metric in the group
  std::string floor_key;
};

// The defaults of the false discovery rate and the confidence of every
// interval (docs/manual/statistics.md); the thresholds' are in the metric table
// (model/metrics.hpp).
inline constexpr double k_default_alpha = 0.05;
inline constexpr double k_confidence = 0.95;

struct Settings {
  double threshold = model::k_default_threshold;
  double alpha = k_default_alpha;
  double confidence = k_confidence;
  std::size_t min_rounds = model::k_default_min_rounds;
  IntervalMethod interval = IntervalMethod::signed_rank;
  std::uint64_t seed = 0;                                    // for the bootstrap
  double count_threshold = model::k_default_count_threshold; // a counted metric's threshold
};

// The analysis settings of a run that asked for `threshold`, `alpha`,
// `min_rounds` and `interval`, with the bootstrap's `seed`: the one way
// config's settings and a document's recorded ones become Settings.
Settings settings_for(double threshold, double alpha, int min_rounds, IntervalMethod interval, std::uint64_t seed);

// A result field that has no value (a count metric's ratio, a ratio
// metric's difference).
inline constexpr double k_nan_result = std::numeric_limits<double>::quiet_NaN();

// Share of readings at the floor from which a metric is CENSORED.
inline constexpr double k_censor_share = 0.2;

struct MetricResult {
  std::string cell;
  std::string metric;
  std::size_t group = 0;
  Unit unit = Unit::seconds;
  std::string unit_label;
  Direction direction = Direction::lower_is_better;
  bool control = false;
  bool gated = false;
  bool paired = true;
  std::size_t n = 0; // pairs (unpaired: the smaller sample)
  double baseline_median = 0;
  double candidate_median = 0;
  double ratio = 0; // candidate / baseline: exp of the Hodges–Lehmann estimate
  double ci_low = 0;
  double ci_high = 0;
  std::optional<double> p;    // one-sided, against the threshold; none for the control
  std::optional<double> p_bh; // BH-adjusted over the gated metrics
  // one-sided, against the threshold's mirror on the better side (1 / T, or
  // −max_increase), and BH-adjusted over the gated metrics likewise
  std::optional<double> p_improved;
  std::optional<double> p_improved_bh;
  // one-sided, that the change lies below no change on the better side (a
  // small improvement's test), BH-adjusted over the gated metrics likewise
  std::optional<double> p_better;
  std::optional<double> p_better_bh;
  double threshold = model::k_default_threshold;
  stats::Verdict verdict = stats::Verdict::inconclusive;
  bool censored = false;
  double min_detectable_ratio = 0; // exp of the interval's half-width (log units)
  double half_width = 0;           // log units; docs/design.md, Precision stopping
  bool interval_reaches_confidence = true;
  // Fixed counts (model::fixed_counts): the ratio (or difference) is exact,
  // its interval a point, each p 0 or 1, and no min_rounds applies.
  bool exact = false;
  std::optional<double> noise_floor;
  std::optional<std::string> error;
  // count metrics (ratio, ci_* and min_detectable_ratio are NaN): the
  // Hodges–Lehmann difference candidate − baseline, its interval, and the
  // gate (docs/manual/config.md#metric-kinds-ceilings-and-slos).
  model::MetricKind kind = model::MetricKind::ratio;
  double difference = k_nan_result;
  double diff_low = k_nan_result;
  double diff_high = k_nan_result;
  double max_increase = 0;
  std::string censor_limit; // as MetricSamples::censor_limit
  // The SLO, each arm's share of readings that met it, and whether the
  // candidate's median breaks it while the baseline's met it.
  std::optional<model::Slo> slo;
  std::optional<double> baseline_slo_share;
  std::optional<double> candidate_slo_share;
  bool slo_broken = false;
  bool candidate_only = false; // a new cell: the candidate's median only, verdict NEW, never gated
  std::string candidate;       // as CellSamples::candidate
  std::string floor_key;       // as CellSamples::floor_key
};

// Analyses every cell × metric of `cells`; results in input order.
std::vector<MetricResult> analyze(const std::vector<CellSamples>& cells, const Settings& settings);

// The verdict of `result` from its own fields — interval, p values, noise
// floor, n, error, censoring, SLO — under `settings` (alpha, min_rounds):
// what `analyze` sets, and what a reader of a stored result checks it by.
stats::Verdict decide_result(const MetricResult& result, const Settings& settings);

// The verdict of a whole run (docs/manual/output-files.md, `verdict`).
enum class RunVerdict { pass, regression, inconclusive, error };

// Whether every cell of `results` is NEW (docs/manual/config.md#new-and-removed-cells):
// there are NEW rows and no row but the control's compared two arms.
bool every_cell_new(const std::vector<MetricResult>& results);

// The run's verdict: error if any ERROR, else inconclusive if every cell is
// NEW (nothing was compared), else regression if a gated metric regressed,
// else inconclusive if a gated non-control metric is INCONCLUSIVE or there
// are no results, else pass.
RunVerdict overall_verdict(const std::vector<MetricResult>& results);

// The word results.json writes for `verdict`: "pass", "regression", … ;
// and back (nullopt for any other word).
inline constexpr auto k_run_verdict_names = util::enum_names<RunVerdict>({{RunVerdict::error, "error"},
                                                                          {RunVerdict::pass, "pass"},
                                                                          {RunVerdict::regression, "regression"},
                                                                          {RunVerdict::inconclusive, "inconclusive"}});
inline std::string_view run_verdict_name(RunVerdict verdict) { return k_run_verdict_names.name(verdict); }
inline std::optional<RunVerdict> parse_run_verdict(std::string_view word) { return k_run_verdict_names.parse(word); }

// `interval` as a word: "signed-rank" or "bootstrap"; and back (nullopt for
// any other word).
inline constexpr auto k_interval_names = util::enum_names<IntervalMethod>(
    {{IntervalMethod::signed_rank, "signed-rank"}, {IntervalMethod::bootstrap, "bootstrap"}});
inline std::string_view interval_name(IntervalMethod interval) { return k_interval_names.name(interval); }
inline std::optional<IntervalMethod> parse_interval(std::string_view word) { return k_interval_names.parse(word); }

// Log-ratios d = ln(y / x), or ln(x / y) for higher-is-better, for the pairs
// where both readings are positive (d > 0 is always worse).
std::vector<double> log_ratios(const std::vector<double>& baseline, const std::vector<double>& candidate,
                               Direction direction);

// The bootstrap seed of cell `cell`, metric `metric` of a run seeded `seed`,
// so one cell's interval does not depend on the others.
std::uint64_t interval_seed(std::uint64_t seed, std::size_t cell, std::size_t metric);

} // namespace refbench::analysis
