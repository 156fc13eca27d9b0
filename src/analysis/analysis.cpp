#include <refbench/analysis/analysis.hpp>
#include <refbench/model/command_output.hpp>
#include <refbench/stats/bootstrap.hpp>
#include <refbench/stats/multiple.hpp>
#include <refbench/stats/signed_rank.hpp>
#include <refbench/stats/summary.hpp>
#include <refbench/stats/unpaired.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <span>
#include <tuple>

namespace refbench::analysis {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

double share(const std::vector<bool>& flags) {
  if (flags.empty()) {
    return 0;
  }
  return static_cast<double>(std::count(flags.begin(), flags.end(), true)) / static_cast<double>(flags.size());
}

std::vector<double> logs(const std::vector<double>& values, Direction direction) {
  std::vector<double> out;
  for (double v : values) {
    if (v > 0) {
      out.push_back(direction == Direction::lower_is_better ? std::log(v) : -std::log(v));
    }
  }
  return out;
}

// A counted metric's readings with each zero read as one (docs/design.md,
// Counters): a cell that allocates nothing on both arms is no change, and
// one that goes from none to five reads 5x, where a ratio to zero is none.
std::vector<double> zero_as_one(std::vector<double> values) {
  std::replace(values.begin(), values.end(), 0.0, 1.0);
  return values;
}

// Fills the estimate, interval (worse-oriented log units) and p of `result`.
struct LogEstimate {
  double estimate = k_nan;
  stats::Interval interval{k_nan, k_nan};
  double p = 1.0;          // the change is past the threshold on the worse side
  double p_improved = 1.0; // past its mirror on the better side
  double p_better = 1.0;   // below no change: the test of a small improvement
};

std::vector<double> negated(std::span<const double> values) {
  std::vector<double> out(values.begin(), values.end());
  std::transform(out.begin(), out.end(), out.begin(), [](double v) { return -v; });
  return out;
}

LogEstimate estimate_paired(const std::vector<double>& d, double log_threshold, const Settings& settings,
                            std::uint64_t seed) {
  LogEstimate e;
  if (d.empty()) {
    return e;
  }
  // one sort serves the estimate, the interval and both tests; −d sorted is d's order reversed
  std::vector<double> sorted = d;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> negated_sorted = negated(sorted);
  std::reverse(negated_sorted.begin(), negated_sorted.end());
  auto pseudo_median = stats::estimate_pseudo_median_of_sorted(sorted, settings.confidence);
  e.estimate = pseudo_median.estimate;
  e.interval = settings.interval == IntervalMethod::bootstrap
                   ? stats::bca_bootstrap_interval(d, settings.confidence, seed)
                   : pseudo_median.interval;
  e.p = stats::signed_rank_p_greater_of_sorted(sorted, log_threshold);
  e.p_improved = stats::signed_rank_p_greater_of_sorted(negated_sorted, log_threshold);
  e.p_better = stats::signed_rank_p_greater_of_sorted(negated_sorted, 0.0);
  return e;
}

LogEstimate estimate_unpaired(const std::vector<double>& x, const std::vector<double>& y, double log_threshold,
                              const Settings& settings) {
  LogEstimate e;
  if (x.empty() || y.empty()) {
    return e;
  }
  e.estimate = stats::hodges_lehmann_shift(x, y);
  e.interval = stats::mann_whitney_interval(x, y, settings.confidence);
  e.p = stats::mann_whitney_p_greater(x, y, log_threshold);
  e.p_improved = stats::mann_whitney_p_greater(negated(x), negated(y), log_threshold);
  e.p_better = stats::mann_whitney_p_greater(negated(x), negated(y), 0.0);
  return e;
}

// False when the estimate or an interval end of `e` is a finite log-ratio
// whose ratio overflows a double (or underflows to zero): nothing to show
// or judge. Infinite or NaN ends (too few pairs) are left to the verdict.
bool representable(const LogEstimate& e) {
  auto fine = [](double log_ratio) {
    return !std::isfinite(log_ratio) || (std::isfinite(std::exp(log_ratio)) && std::exp(log_ratio) > 0);
  };
  return fine(e.estimate) && fine(e.interval.lo) && fine(e.interval.hi);
}

// The worse-oriented difference d = candidate − baseline per pair (baseline −
// candidate for higher-is-better): d > 0 is always worse.
std::vector<double> differences(const MetricSamples& samples) {
  std::vector<double> d;
  const double sign = samples.direction == Direction::lower_is_better ? 1.0 : -1.0;
  for (std::size_t i = 0; i < std::min(samples.baseline.size(), samples.candidate.size()); ++i) {
    d.push_back(sign * (samples.candidate[i] - samples.baseline[i]));
  }
  return d;
}

std::vector<double> oriented(const std::vector<double>& values, Direction direction) {
  std::vector<double> out = values;
  if (direction == Direction::higher_is_better) {
    std::transform(out.begin(), out.end(), out.begin(), [](double v) { return -v; });
  }
  return out;
}

// The estimate and interval of a count metric (docs/manual/config.md#metric-kinds-ceilings-and-slos): the
// Hodges–Lehmann difference with the signed-rank interval, found by
// inverting the test so that ties keep its confidence (unpaired: the
// shift with the Mann–Whitney interval), p against max_increase.
void estimate_count(const MetricSamples& samples, const Settings& settings, std::uint64_t seed, MetricResult& r) {
  LogEstimate e;
  if (samples.paired) {
    auto d = differences(samples);
    r.n = d.size();
    e = estimate_paired(d, samples.max_increase, settings, seed);
    if (settings.interval == IntervalMethod::signed_rank && !d.empty()) {
      e.interval = stats::signed_rank_interval_inverted(d, settings.confidence); // counts tie a lot
    }
  } else {
    auto x = oriented(samples.baseline, samples.direction);
    auto y = oriented(samples.candidate, samples.direction);
    r.n = std::min(x.size(), y.size());
    e = estimate_unpaired(x, y, samples.max_increase, settings);
  }
  const bool flip = samples.direction == Direction::higher_is_better;
  r.difference = flip ? -e.estimate : e.estimate;
  r.diff_low = flip ? -e.interval.hi : e.interval.lo;
  r.diff_high = flip ? -e.interval.lo : e.interval.hi;
  r.ratio = r.ci_low = r.ci_high = r.min_detectable_ratio = k_nan;
  r.half_width = e.interval.half_width();
  r.interval_reaches_confidence = e.interval.reaches_confidence;
  if (r.n > 0) {
    r.p = e.p;
    r.p_improved = e.p_improved;
    r.p_better = e.p_better;
  }
}

// The estimate and interval of a ratio metric: the Hodges–Lehmann ratio of
// the log-ratios with the signed-rank (or bootstrap) interval (unpaired: the
// shift of the logs with the Mann–Whitney interval), p against the threshold.
void estimate_ratio(const MetricSamples& samples, const Settings& settings, std::uint64_t seed, MetricResult& r) {
  const double log_threshold = std::log(r.threshold);
  const auto& baseline = samples.counted ? zero_as_one(samples.baseline) : samples.baseline;
  const auto& candidate = samples.counted ? zero_as_one(samples.candidate) : samples.candidate;
  LogEstimate e;
  if (samples.paired) {
    auto d = log_ratios(baseline, candidate, samples.direction);
    r.n = d.size();
    e = estimate_paired(d, log_threshold, settings, seed);
  } else {
    auto x = logs(baseline, samples.direction);
    auto y = logs(candidate, samples.direction);
    r.n = std::min(x.size(), y.size());
    e = estimate_unpaired(x, y, log_threshold, settings);
  }
  // reported as plain candidate / baseline; the verdict uses the worse-oriented interval
  const bool flip = samples.direction == Direction::higher_is_better;
  r.ratio = std::exp(flip ? -e.estimate : e.estimate);
  r.ci_low = std::exp(flip ? -e.interval.hi : e.interval.lo);
  r.ci_high = std::exp(flip ? -e.interval.lo : e.interval.hi);
  r.half_width = e.interval.half_width();
  r.interval_reaches_confidence = e.interval.reaches_confidence;
  r.min_detectable_ratio = std::exp(r.half_width);
  if (!r.error && r.n > 0 && !representable(e)) {
    r.error = fmt::format("the {} ratio is beyond what a double holds (baseline median {}, candidate median {})",
                          r.metric, r.baseline_median, r.candidate_median);
  }
  if (r.n > 0) {
    r.p = e.p;
    r.p_improved = e.p_improved;
    r.p_better = e.p_better;
  }
}

// `r` made exact when `samples` are fixed counts (model::fixed_counts):
// the readings' own ratio (difference) with a point interval, and each p
// 0 or 1 as it lies past its limit or not. The chance left is the one
// that a count varying only rarely passed as fixed (docs/design.md, Counters).
void exact_when_fixed(const MetricSamples& samples, MetricResult& r) {
  if (!samples.counted || !samples.paired || !model::fixed_counts(samples.baseline, samples.candidate)) {
    return;
  }
  const double sign = samples.direction == Direction::lower_is_better ? 1.0 : -1.0;
  double worse = 0; // the change, worse-oriented: log ratio, or difference
  double limit = 0; // what the worse side must pass: log threshold, or max_increase
  if (samples.kind == model::MetricKind::count) {
    r.difference = r.diff_low = r.diff_high = samples.candidate.front() - samples.baseline.front();
    worse = sign * r.difference;
    limit = samples.max_increase;
  } else {
    const double baseline = samples.baseline.front() == 0 ? 1.0 : samples.baseline.front();
    const double candidate = samples.candidate.front() == 0 ? 1.0 : samples.candidate.front();
    r.ratio = r.ci_low = r.ci_high = candidate / baseline;
    r.min_detectable_ratio = 1;
    worse = sign * std::log(r.ratio);
    limit = std::log(r.threshold);
  }
  r.half_width = 0;
  r.interval_reaches_confidence = true;
  r.exact = true;
  r.p = worse > limit ? 0.0 : 1.0;
  r.p_improved = -worse > limit ? 0.0 : 1.0;
  r.p_better = worse < 0 ? 0.0 : 1.0;
}

// Each arm's share of readings meeting `samples`' SLO, and whether the
// candidate's median breaks it while the baseline's meets it.
void judge_slo(const MetricSamples& samples, MetricResult& r) {
  if (!samples.slo || samples.baseline.empty() || samples.candidate.empty()) {
    return;
  }
  const auto& slo = *samples.slo;
  auto met = [&](const std::vector<double>& values) {
    const auto count = std::count_if(values.begin(), values.end(),
                                     [&](double v) { return model::condition_holds(v, slo.op, slo.value); });
    return static_cast<double>(count) / static_cast<double>(values.size());
  };
  r.slo = slo;
  r.baseline_slo_share = met(samples.baseline);
  r.candidate_slo_share = met(samples.candidate);
  // the A/A control shows its shares, but both its arms are the baseline: nothing can break there
  r.slo_broken = !r.control && model::condition_holds(r.baseline_median, slo.op, slo.value) &&
                 !model::condition_holds(r.candidate_median, slo.op, slo.value);
}

MetricResult result_of(const CellSamples& cell, const MetricSamples& samples, const Settings& settings,
                       std::uint64_t seed) {
  MetricResult r;
  r.cell = cell.name;
  r.candidate = cell.candidate;
  r.group = cell.group;
  r.metric = samples.metric;
  r.unit = samples.unit;
  r.unit_label = samples.unit_label;
  r.direction = samples.direction;
  r.control = cell.control;
  r.floor_key = cell.floor_key;
  r.gated = samples.gated && !cell.control;
  r.paired = samples.paired;
  r.kind = samples.kind;
  r.max_increase = samples.max_increase;
  r.censor_limit = samples.censor_limit;
  r.threshold = samples.threshold.value_or(samples.counted ? settings.count_threshold : settings.threshold);
  r.error = cell.error;
  r.baseline_median = stats::median(samples.baseline);
  r.candidate_median = stats::median(samples.candidate);
  r.censored =
      share(samples.baseline_at_floor) >= k_censor_share || share(samples.candidate_at_floor) >= k_censor_share;
  if (cell.candidate_only) { // nothing to compare with: the candidate's median and how many readings
    r.candidate_only = true;
    r.gated = false;
    r.censored = false;
    r.n = samples.candidate.size();
    r.ratio = r.ci_low = r.ci_high = r.min_detectable_ratio = k_nan;
    return r;
  }
  if (samples.kind == model::MetricKind::count) {
    estimate_count(samples, settings, seed, r);
  } else {
    estimate_ratio(samples, settings, seed, r);
  }
  if (!r.error) {
    exact_when_fixed(samples, r);
  }
  if (cell.control) {
    r.p.reset();
    r.p_improved.reset();
    r.p_better.reset();
  }
  judge_slo(samples, r);
  return r;
}

// The noise floor a control result sets for its metric, if it is usable:
// max(hi, 1 / lo) of a ratio, max(|lo|, |hi|) of a count's difference.
std::optional<double> control_floor(const MetricResult& r) {
  if (!r.control || r.error || r.censored) {
    return std::nullopt;
  }
  if (r.kind == model::MetricKind::count) {
    if (!std::isfinite(r.diff_low) || !std::isfinite(r.diff_high)) {
      return std::nullopt;
    }
    return std::max(std::abs(r.diff_low), std::abs(r.diff_high));
  }
  if (!std::isfinite(r.ci_low) || !std::isfinite(r.ci_high)) {
    return std::nullopt;
  }
  return stats::noise_floor(r.ci_low, r.ci_high);
}

// What stats::decide needs of `r`: its worse-oriented interval (ratio, or
// difference for a count) against its threshold (or max_increase).
stats::VerdictInput verdict_input(const MetricResult& r, const Settings& settings) {
  const bool flip = r.direction == Direction::higher_is_better;
  stats::VerdictInput in;
  in.error = r.error.has_value();
  in.censored = r.censored;
  in.slo_broken = r.slo_broken;
  in.n = r.n;
  in.min_rounds = r.exact ? 0 : settings.min_rounds;
  in.interval_reaches_confidence = r.interval_reaches_confidence;
  if (r.kind == model::MetricKind::count) {
    in.scale = stats::Scale::difference;
    in.ci_low = flip ? -r.diff_high : r.diff_low;
    in.ci_high = flip ? -r.diff_low : r.diff_high;
    in.threshold = r.max_increase;
  } else {
    in.ci_low = flip ? 1.0 / r.ci_high : r.ci_low;
    in.ci_high = flip ? 1.0 / r.ci_low : r.ci_high;
    in.threshold = r.threshold;
  }
  in.p = r.p_bh.value_or(r.p.value_or(1.0));
  in.p_improved = r.p_improved_bh.value_or(r.p_improved.value_or(1.0));
  in.p_better = r.p_better_bh.value_or(r.p_better.value_or(1.0));
  in.alpha = settings.alpha;
  in.noise_floor = r.noise_floor;
  in.aa_control = r.control;
  return in;
}
} // namespace

std::uint64_t interval_seed(std::uint64_t seed, std::size_t cell, std::size_t metric) {
  return seed ^ (0x9e3779b97f4a7c15ULL * (cell * 1000003ULL + metric + 1));
}

std::vector<double> log_ratios(const std::vector<double>& baseline, const std::vector<double>& candidate,
                               Direction direction) {
  std::vector<double> d;
  for (std::size_t i = 0; i < std::min(baseline.size(), candidate.size()); ++i) {
    if (baseline[i] > 0 && candidate[i] > 0) {
      const double quotient = candidate[i] / baseline[i];
      // the quotient of two extreme readings may overflow (or underflow): then the difference of logs
      double r =
          std::isfinite(quotient) && quotient > 0 ? std::log(quotient) : std::log(candidate[i]) - std::log(baseline[i]);
      d.push_back(direction == Direction::lower_is_better ? r : -r);
    }
  }
  return d;
}

std::vector<MetricResult> analyze(const std::vector<CellSamples>& cells, const Settings& settings) {
  std::vector<MetricResult> results;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    for (std::size_t m = 0; m < cells[c].metrics.size(); ++m) {
      results.push_back(result_of(cells[c], cells[c].metrics[m], settings, interval_seed(settings.seed, c, m)));
    }
  }

  // Benjamini–Hochberg over the gated metrics that have a p-value, once per
  // family of tests: against T, against 1/T, against no change on the better
  // side (docs/design.md, Benjamini–Hochberg over gated metrics)
  std::vector<std::size_t> gated;
  std::vector<double> p;
  std::vector<double> p_improved;
  std::vector<double> p_better;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].gated && results[i].p && !results[i].error && !results[i].censored) {
      gated.push_back(i);
      p.push_back(*results[i].p);
      p_improved.push_back(results[i].p_improved.value_or(1.0));
      p_better.push_back(results[i].p_better.value_or(1.0));
    }
  }
  const auto adjusted = stats::benjamini_hochberg(p);
  const auto adjusted_improved = stats::benjamini_hochberg(p_improved);
  const auto adjusted_better = stats::benjamini_hochberg(p_better);
  for (std::size_t k = 0; k < gated.size(); ++k) {
    results[gated[k]].p_bh = adjusted[k];
    results[gated[k]].p_improved_bh = adjusted_improved[k];
    results[gated[k]].p_better_bh = adjusted_better[k];
  }

  // the A/A control's interval is the noise floor of its metric in its group
  // (a suite's row only its own benchmark's: CellSamples::floor_key)
  std::map<std::tuple<std::size_t, std::string, std::string>, double> floors;
  for (const auto& r : results) {
    if (auto floor = control_floor(r)) {
      floors[{r.group, r.floor_key, r.metric}] = *floor;
    }
  }
  for (auto& r : results) {
    if (auto it = floors.find({r.group, r.floor_key, r.metric}); it != floors.end()) {
      r.noise_floor = it->second;
    }
    r.verdict = decide_result(r, settings);
  }
  return results;
}

stats::Verdict decide_result(const MetricResult& r, const Settings& settings) {
  if (r.candidate_only) {
    return r.error ? stats::Verdict::error : stats::Verdict::new_cell;
  }
  return stats::decide(verdict_input(r, settings));
}

bool every_cell_new(const std::vector<MetricResult>& results) {
  auto any = [&](auto predicate) { return std::any_of(results.begin(), results.end(), predicate); };
  return any([](const MetricResult& r) { return r.verdict == stats::Verdict::new_cell; }) &&
         !any([](const MetricResult& r) { return !r.control && r.verdict != stats::Verdict::new_cell; });
}

RunVerdict overall_verdict(const std::vector<MetricResult>& results) {
  if (results.empty()) {
    return RunVerdict::inconclusive; // nothing was measured, so nothing can pass
  }
  auto any = [&](auto predicate) { return std::any_of(results.begin(), results.end(), predicate); };
  if (any([](const MetricResult& r) { return r.verdict == stats::Verdict::error; })) {
    return RunVerdict::error;
  }
  if (every_cell_new(results)) {
    return RunVerdict::inconclusive; // nothing was compared, so nothing can pass
  }
  if (any([](const MetricResult& r) { return r.gated && r.verdict == stats::Verdict::regression; })) {
    return RunVerdict::regression;
  }
  if (any([](const MetricResult& r) { return r.gated && r.verdict == stats::Verdict::inconclusive; })) {
    return RunVerdict::inconclusive;
  }
  return RunVerdict::pass;
}

Settings settings_for(double threshold, double alpha, int min_rounds, IntervalMethod interval, std::uint64_t seed) {
  Settings settings;
  settings.threshold = threshold;
  settings.alpha = alpha;
  settings.min_rounds = static_cast<std::size_t>(min_rounds);
  settings.interval = interval;
  settings.seed = seed;
  return settings;
}

} // namespace refbench::analysis
