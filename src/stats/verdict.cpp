#include <refbench/stats/verdict.hpp>

#include <algorithm>
#include <cmath>

namespace refbench::stats {
namespace {

// What a small improvement's interval must lie below: no change, and the
// mirror of the A/A floor when a control measured the metric (1 / floor of
// a ratio, −floor of a difference): a move inside the run's own noise is
// not called an improvement.
double better_limit(const VerdictInput& in) {
  const bool difference = in.scale == Scale::difference;
  double limit = difference ? 0.0 : 1.0;
  if (in.noise_floor) {
    limit = std::min(limit, difference ? -*in.noise_floor : 1.0 / *in.noise_floor);
  }
  return limit;
}

} // namespace

Verdict decide(const VerdictInput& in) {
  if (in.error) {
    return Verdict::error;
  }
  if (in.slo_broken) {
    return Verdict::regression;
  }
  if (in.censored) {
    return Verdict::censored;
  }
  if (!std::isfinite(in.ci_low) || !std::isfinite(in.ci_high) || in.n == 0) {
    return Verdict::inconclusive;
  }
  if (in.ci_low > in.threshold && in.p < in.alpha) {
    return Verdict::regression;
  }
  if (in.ci_high < better_threshold(in.scale, in.threshold) && in.p_improved < in.alpha) {
    return Verdict::improved;
  }
  const bool difference = in.scale == Scale::difference;
  auto below_threshold = [&](double x) { return difference ? x <= in.threshold : x < in.threshold; };
  const bool floor_ok = !in.noise_floor || below_threshold(*in.noise_floor);
  const bool enough = in.n >= in.min_rounds && in.interval_reaches_confidence;
  if (enough && floor_ok && !in.aa_control && in.p_better < in.alpha && in.ci_high < better_limit(in)) {
    return Verdict::improved;
  }
  if (enough && floor_ok && below_threshold(in.ci_high)) {
    return Verdict::pass;
  }
  return Verdict::inconclusive;
}

double better_threshold(Scale scale, double threshold) {
  return scale == Scale::difference ? -threshold : 1.0 / threshold;
}

double noise_floor(double control_ci_low, double control_ci_high) {
  return std::max(control_ci_high, 1.0 / control_ci_low);
}

} // namespace refbench::stats
