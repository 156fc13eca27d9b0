#include <refbench/stats/bootstrap.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <vector>

namespace refbench::stats {
namespace {

// Hodges–Lehmann of `d`, sorted into a reusable buffer (selection needs sorted input).
double fast_hodges_lehmann(std::span<const double> d, std::vector<double>& buffer) {
  buffer.assign(d.begin(), d.end());
  std::sort(buffer.begin(), buffer.end());
  return hodges_lehmann_of_sorted(buffer);
}

// The empirical `q` quantile of sorted `values` (linear interpolation).
double quantile_of_sorted(const std::vector<double>& values, double q) {
  double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  auto below = static_cast<std::size_t>(std::floor(position));
  std::size_t above = std::min(below + 1, values.size() - 1);
  double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

} // namespace

Interval bca_bootstrap_interval(std::span<const double> d, double confidence, std::uint64_t seed, int resamples) {
  if (d.empty()) {
    return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  }
  const boost::math::normal normal;
  std::vector<double> buffer;
  const double estimate = fast_hodges_lehmann(d, buffer);

  util::Rng rng(seed);
  std::vector<double> resample(d.size());
  std::vector<double> replicates;
  replicates.reserve(static_cast<std::size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
    for (double& v : resample) {
      v = d[rng.below(d.size())];
    }
    replicates.push_back(fast_hodges_lehmann(resample, buffer));
  }
  std::sort(replicates.begin(), replicates.end());
  // like the signed-rank interval, claim the confidence only from 6 values on
  const bool reaches = d.size() >= 6;
  if (replicates.front() == replicates.back()) {
    return {replicates.front(), replicates.front(), reaches};
  }

  // bias correction z0 from the share of replicates below the estimate (ties count half)
  auto below = std::lower_bound(replicates.begin(), replicates.end(), estimate) - replicates.begin();
  auto not_above = std::upper_bound(replicates.begin(), replicates.end(), estimate) - replicates.begin();
  double share = (static_cast<double>(below) + static_cast<double>(not_above)) / 2.0 / resamples;
  const double half = 0.5 / resamples;
  share = std::clamp(share, half, 1.0 - half);
  const double z0 = boost::math::quantile(normal, share);

  // acceleration from the jackknife
  std::vector<double> jackknife;
  std::vector<double> leave_one_out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    leave_one_out.assign(d.begin(), d.end());
    leave_one_out.erase(leave_one_out.begin() + static_cast<std::ptrdiff_t>(i));
    jackknife.push_back(leave_one_out.empty() ? estimate : fast_hodges_lehmann(leave_one_out, buffer));
  }
  double mean = 0;
  for (double v : jackknife) {
    mean += v;
  }
  mean /= static_cast<double>(jackknife.size());
  double cubes = 0;
  double squares = 0;
  for (double v : jackknife) {
    cubes += (mean - v) * (mean - v) * (mean - v);
    squares += (mean - v) * (mean - v);
  }
  const double acceleration = squares > 0 ? cubes / (6.0 * std::pow(squares, 1.5)) : 0.0;

  auto adjusted = [&](double tail) {
    double z = boost::math::quantile(normal, tail);
    return boost::math::cdf(normal, z0 + (z0 + z) / (1.0 - acceleration * (z0 + z)));
  };
  const double tail = (1.0 - confidence) / 2.0;
  return {quantile_of_sorted(replicates, adjusted(tail)), quantile_of_sorted(replicates, adjusted(1.0 - tail)),
          reaches};
}

} // namespace refbench::stats
