#include <refbench/stats/ranks.hpp>
#include <refbench/stats/select.hpp>
#include <refbench/stats/unpaired.hpp>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

namespace refbench::stats {
namespace {

constexpr int k_exact_max_small = 8;

std::vector<double> sorted_copy(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

bool any_ties(std::span<const double> x, std::span<const double> y) {
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  return !tie_group_sizes(all).empty();
}

bool exact_applies(std::span<const double> x, std::span<const double> y) {
  return std::min(x.size(), y.size()) <= static_cast<std::size_t>(k_exact_max_small) && !any_ties(x, y);
}

// Standard deviation of U with the tie correction of scipy's _get_mwu_z.
double mann_whitney_sigma(std::span<const double> x, std::span<const double> y) {
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  double n1 = static_cast<double>(x.size());
  double n2 = static_cast<double>(y.size());
  double n = n1 + n2;
  double tie_term = 0;
  for (std::size_t t : tie_group_sizes(all)) {
    double tt = static_cast<double>(t);
    tie_term += tt * tt * tt - tt;
  }
  return std::sqrt(n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))));
}

} // namespace

double hodges_lehmann_shift(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) {
    return k_nan;
  }
  // the differences y_j − x_i, by selection without listing them
  const auto sorted_x = sorted_copy(x);
  const auto sorted_y = sorted_copy(y);
  const std::size_t total = x.size() * y.size();
  if (total % 2 == 1) {
    return kth_difference(sorted_y, sorted_x, total / 2);
  }
  const auto [lower_middle, upper_middle] = adjacent_differences(sorted_y, sorted_x, total / 2);
  // halves first, as stats::median: the sum of two values near the largest double overflows
  return lower_middle / 2.0 + upper_middle / 2.0;
}

std::vector<double> mann_whitney_pmf(int m, int n) {
  // The number of arrangements with U = u is the coefficient of q^u in the
  // Gaussian binomial [m + n choose s]_q = Π_{i=1..s} (1 − q^(l+i)) / (1 − q^i),
  // s = min(m, n), l = max(m, n): the products first (small integers), then
  // each division as a running sum with stride i, all modulo q^(s·l + 1).
  // O(s² · l) time and O(s · l) memory. The sums cancel in the upper half,
  // so that half is the mirror of the lower one (U is symmetric).
  const auto s = static_cast<std::size_t>(std::min(m, n));
  const auto l = static_cast<std::size_t>(std::max(m, n));
  std::vector<double> counts(s * l + 1, 0.0);
  counts[0] = 1.0;
  for (std::size_t i = 1; i <= s; ++i) {
    for (std::size_t u = counts.size() - 1; u >= l + i; --u) {
      counts[u] -= counts[u - (l + i)];
    }
  }
  for (std::size_t i = 1; i <= s; ++i) {
    for (std::size_t u = i; u < counts.size(); ++u) {
      counts[u] += counts[u - i];
    }
  }
  double arrangements = 1; // C(m + n, s)
  for (std::size_t i = 1; i <= s; ++i) {
    arrangements = arrangements * static_cast<double>(l + i) / static_cast<double>(i);
  }
  const std::size_t last = counts.size() - 1;
  for (std::size_t u = 0; u <= last / 2; ++u) {
    counts[u] /= arrangements;
    counts[last - u] = counts[u];
  }
  return counts;
}

Interval mann_whitney_interval(std::span<const double> x, std::span<const double> y, double confidence) {
  if (x.empty() || y.empty()) {
    return {k_nan, k_nan};
  }
  const std::size_t total = x.size() * y.size();
  const double tail = (1.0 - confidence) / 2.0;
  long long critical = -1;
  if (exact_applies(x, y)) {
    auto pmf = mann_whitney_pmf(static_cast<int>(x.size()), static_cast<int>(y.size()));
    double cumulative = 0;
    for (std::size_t u = 0; u < pmf.size(); ++u) {
      cumulative += pmf[u];
      if (cumulative > tail * (1 + 1e-12)) {
        break;
      }
      critical = static_cast<long long>(u);
    }
  } else {
    const double z = boost::math::quantile(boost::math::normal(), 1.0 - tail);
    critical = std::llround(static_cast<double>(total) / 2.0 - z * mann_whitney_sigma(x, y)) - 1;
  }
  auto cut = static_cast<std::size_t>(std::clamp<long long>(critical, 0, static_cast<long long>((total - 1) / 2)));
  // order statistics of the differences y_j − x_i, by selection without listing them
  const auto sorted_x = sorted_copy(x);
  const auto sorted_y = sorted_copy(y);
  return {kth_difference(sorted_y, sorted_x, cut), kth_difference(sorted_y, sorted_x, total - 1 - cut), critical >= 0};
}

double mann_whitney_p_greater(std::span<const double> x, std::span<const double> y, double shift) {
  if (x.empty() || y.empty()) {
    return 1.0;
  }
  std::vector<double> first;
  for (double v : y) {
    first.push_back(v - shift);
  }
  std::vector<double> combined(first);
  combined.insert(combined.end(), x.begin(), x.end());
  auto ranks = average_ranks(combined);
  const double n1 = static_cast<double>(first.size());
  const double n2 = static_cast<double>(x.size());
  double r1 = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    r1 += ranks[i];
  }
  const double u1 = r1 - n1 * (n1 + 1) / 2.0;
  if (exact_applies(x, first)) {
    auto pmf = mann_whitney_pmf(static_cast<int>(first.size()), static_cast<int>(x.size()));
    double p = 0;
    for (auto u = static_cast<std::size_t>(std::llround(u1)); u < pmf.size(); ++u) {
      p += pmf[u];
    }
    return std::clamp(p, 0.0, 1.0);
  }
  const double sigma = mann_whitney_sigma(x, first);
  if (sigma == 0.0) {
    return 1.0;
  }
  const double z = (u1 - n1 * n2 / 2.0 - 0.5) / sigma;
  return std::clamp(boost::math::cdf(boost::math::complement(boost::math::normal(), z)), 0.0, 1.0);
}

} // namespace refbench::stats
