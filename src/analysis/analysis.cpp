#include <refbench/analysis/analysis.hpp>
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

// Fills the estimate, interval (worse-oriented log units) and p of `result`.
struct LogEstimate {
  double estimate = k_nan;
  stats::Interval interval{k_nan, k_nan};
  double p = 1.0;
};

LogEstimate estimate_paired(const std::vector<double>& d, double log_threshold, const Settings& settings,
                            std::uint64_t seed) {
  LogEstimate e;
  if (d.empty()) {
    return e;
  }
  auto pseudo_median = stats::estimate_pseudo_median(d, settings.confidence);
  e.estimate = pseudo_median.estimate;
  e.interval = settings.interval == IntervalMethod::bootstrap
                   ? stats::bca_bootstrap_interval(d, settings.confidence, seed)
                   : pseudo_median.interval;
  e.p = stats::signed_rank_p_greater(d, log_threshold);
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
    const auto& cell = cells[c];
    for (std::size_t m = 0; m < cell.metrics.size(); ++m) {
      const auto& samples = cell.metrics[m];
      MetricResult r;
      r.cell = cell.name;
      r.group = cell.group;
      r.metric = samples.metric;
      r.unit = samples.unit;
      r.unit_label = samples.unit_label;
      r.direction = samples.direction;
      r.control = cell.control;
      r.gated = samples.gated && !cell.control;
      r.paired = samples.paired;
      r.threshold = samples.threshold.value_or(settings.threshold);
      r.error = cell.error;
      r.baseline_median = stats::median(samples.baseline);
      r.candidate_median = stats::median(samples.candidate);
      r.censored =
          share(samples.baseline_at_floor) >= k_censor_share || share(samples.candidate_at_floor) >= k_censor_share;

      const double log_threshold = std::log(r.threshold);
      LogEstimate e;
      if (samples.paired) {
        auto d = log_ratios(samples.baseline, samples.candidate, samples.direction);
        r.n = d.size();
        e = estimate_paired(d, log_threshold, settings, interval_seed(settings.seed, c, m));
      } else {
        auto x = logs(samples.baseline, samples.direction);
        auto y = logs(samples.candidate, samples.direction);
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
      if (!cell.control && r.n > 0) {
        r.p = e.p;
      }
      results.push_back(std::move(r));
    }
  }

  // Benjamini–Hochberg over the gated metrics that have a p-value
  std::vector<std::size_t> gated;
  std::vector<double> p;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].gated && results[i].p && !results[i].error && !results[i].censored) {
      gated.push_back(i);
      p.push_back(*results[i].p);
    }
  }
  auto adjusted = stats::benjamini_hochberg(p);
  for (std::size_t k = 0; k < gated.size(); ++k) {
    results[gated[k]].p_bh = adjusted[k];
  }

  // the A/A control's interval is the noise floor of its metric in its group
  std::map<std::pair<std::size_t, std::string>, double> floors;
  for (const auto& r : results) {
    if (r.control && !r.error && !r.censored && std::isfinite(r.ci_low) && std::isfinite(r.ci_high)) {
      floors[{r.group, r.metric}] = stats::noise_floor(r.ci_low, r.ci_high);
    }
  }
  for (auto& r : results) {
    if (auto it = floors.find({r.group, r.metric}); it != floors.end()) {
      r.noise_floor = it->second;
    }
    const bool flip = r.direction == Direction::higher_is_better;
    stats::VerdictInput in;
    in.error = r.error.has_value();
    in.censored = r.censored;
    in.n = r.n;
    in.min_rounds = settings.min_rounds;
    in.interval_reaches_confidence = r.interval_reaches_confidence;
    in.ci_low = flip ? 1.0 / r.ci_high : r.ci_low;
    in.ci_high = flip ? 1.0 / r.ci_low : r.ci_high;
    in.p = r.p_bh.value_or(r.p.value_or(1.0));
    in.alpha = settings.alpha;
    in.threshold = r.threshold;
    in.noise_floor = r.noise_floor;
    r.verdict = stats::decide(in);
  }
  return results;
}

RunVerdict overall_verdict(const std::vector<MetricResult>& results) {
  if (results.empty()) {
    return RunVerdict::inconclusive; // nothing was measured, so nothing can pass
  }
  auto any = [&](auto predicate) { return std::any_of(results.begin(), results.end(), predicate); };
  if (any([](const MetricResult& r) { return r.verdict == stats::Verdict::error; })) {
    return RunVerdict::error;
  }
  if (any([](const MetricResult& r) { return r.gated && r.verdict == stats::Verdict::regression; })) {
    return RunVerdict::regression;
  }
  if (any([](const MetricResult& r) { return r.gated && r.verdict == stats::Verdict::inconclusive; })) {
    return RunVerdict::inconclusive;
  }
  return RunVerdict::pass;
}

std::string_view run_verdict_name(RunVerdict verdict) {
  switch (verdict) {
  case RunVerdict::pass:
    return "pass";
  case RunVerdict::regression:
    return "regression";
  case RunVerdict::inconclusive:
    return "inconclusive";
  case RunVerdict::error:
    return "error";
  }
  return "error";
}

std::optional<RunVerdict> parse_run_verdict(std::string_view word) {
  for (auto verdict : {RunVerdict::pass, RunVerdict::regression, RunVerdict::inconclusive, RunVerdict::error}) {
    if (word == run_verdict_name(verdict)) {
      return verdict;
    }
  }
  return std::nullopt;
}

std::string_view unit_name(Unit unit) {
  return unit == Unit::seconds ? "seconds" : unit == Unit::bytes ? "bytes" : "plain";
}

std::string_view interval_name(IntervalMethod interval) {
  return interval == IntervalMethod::bootstrap ? "bootstrap" : "signed-rank";
}

std::optional<IntervalMethod> parse_interval(std::string_view word) {
  for (auto value : {IntervalMethod::signed_rank, IntervalMethod::bootstrap}) {
    if (word == interval_name(value)) {
      return value;
    }
  }
  return std::nullopt;
}

} // namespace refbench::analysis
