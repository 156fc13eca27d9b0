#include <refbench/stats/select.hpp>
#include <refbench/stats/signed_rank.hpp>
#include <refbench/stats/summary.hpp>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace refbench::stats {
namespace {

constexpr int k_exact_max_n = 50;

double normal_quantile(double p) { return boost::math::quantile(boost::math::normal(), p); }
double normal_upper_tail(double z) { return boost::math::cdf(boost::math::complement(boost::math::normal(), z)); }

// Variance of W+ for `n` values whose absolute values form the tie groups
// `tie_sizes`: n(n+1)(2n+1)/24 − Σ(t³ − t)/48.
double signed_rank_variance(std::size_t n, const std::vector<std::size_t>& tie_sizes) {
  double nn = static_cast<double>(n);
  double variance = nn * (nn + 1) * (2 * nn + 1) / 24.0;
  for (std::size_t t : tie_sizes) {
    double tt = static_cast<double>(t);
    variance -= (tt * tt * tt - tt) / 48.0;
  }
  return variance;
}

// |v − shift| of `sorted` (ascending) with whether v − shift > 0, in
// ascending magnitude, values equal to the shift left out: the values
// below the shift from the nearest down, merged with those above it from
// the nearest up (each side is already in order), in O(n).
std::vector<std::pair<double, bool>> signed_magnitudes(std::span<const double> sorted, double shift) {
  const auto first_above = static_cast<std::size_t>(
      std::upper_bound(sorted.begin(), sorted.end(), shift, [](double s, double v) { return v - s > 0; }) -
      sorted.begin());
  std::size_t below = first_above; // sorted[below − 1] is the next one below the shift
  while (below > 0 && sorted[below - 1] - shift == 0.0) {
    --below;
  }
  std::size_t above = first_above; // sorted[above] is the next one above it
  std::vector<std::pair<double, bool>> magnitudes;
  magnitudes.reserve(sorted.size());
  while (below > 0 || above < sorted.size()) {
    // shift − v is exactly |v − shift| below the shift (rounding is symmetric)
    if (below == 0 || (above < sorted.size() && sorted[above] - shift <= shift - sorted[below - 1])) {
      magnitudes.emplace_back(sorted[above] - shift, true);
      ++above;
    } else {
      magnitudes.emplace_back(shift - sorted[below - 1], false);
      --below;
    }
  }
  return magnitudes;
}

// W+ of signed magnitudes in ascending order (the ranks of the positive
// ones, tied magnitudes sharing their average rank), and the sizes of the
// groups of equal magnitude that have more than one member.
struct RankedSigns {
  double w_plus = 0;
  std::vector<std::size_t> tie_sizes;
};
RankedSigns rank_signs(const std::vector<std::pair<double, bool>>& magnitudes) {
  RankedSigns ranked;
  for (std::size_t i = 0; i < magnitudes.size();) {
    std::size_t j = i;
    std::size_t positive = 0;
    for (; j < magnitudes.size() && magnitudes[j].first == magnitudes[i].first; ++j) {
      positive += magnitudes[j].second ? 1 : 0;
    }
    const double rank = (static_cast<double>(i) + static_cast<double>(j - 1)) / 2.0 + 1.0;
    ranked.w_plus += rank * static_cast<double>(positive);
    if (j - i > 1) {
      ranked.tie_sizes.push_back(j - i);
    }
    i = j;
  }
  return ranked;
}

// The sizes of the groups of equal |v| (zeros included) of `sorted`
// (ascending) that have more than one member.
std::vector<std::size_t> magnitude_tie_sizes_of_sorted(std::span<const double> sorted) {
  const auto magnitudes = signed_magnitudes(sorted, 0.0);
  auto sizes = rank_signs(magnitudes).tie_sizes;
  if (const std::size_t zeros = sorted.size() - magnitudes.size(); zeros > 1) {
    sizes.push_back(zeros);
  }
  return sizes;
}

} // namespace

double hodges_lehmann(std::span<const double> d) {
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  return hodges_lehmann_of_sorted(sorted);
}

double hodges_lehmann_of_sorted(std::span<const double> sorted) {
  if (sorted.empty()) {
    return k_nan;
  }
  const std::size_t count = sorted.size() * (sorted.size() + 1) / 2;
  if (count % 2 == 1) {
    return kth_walsh_average(sorted, count / 2);
  }
  const auto [lower_middle, upper_middle] = adjacent_walsh_averages(sorted, count / 2);
  return (lower_middle + upper_middle) / 2.0;
}

std::vector<double> signed_rank_pmf(int n) {
  // counts[w] = number of subsets of {1..n} with sum w, kept as probabilities
  // by halving at each step (each rank is + or − with probability 1/2).
  std::size_t max_sum = static_cast<std::size_t>(n) * static_cast<std::size_t>(n + 1) / 2;
  std::vector<double> pmf(max_sum + 1, 0.0);
  pmf[0] = 1.0;
  std::size_t reach = 0;
  for (int rank = 1; rank <= n; ++rank) {
    auto r = static_cast<std::size_t>(rank);
    reach += r;
    for (std::size_t w = reach; w >= r; --w) {
      pmf[w] = (pmf[w] + pmf[w - r]) / 2.0;
    }
    for (std::size_t w = 0; w < r; ++w) {
      pmf[w] /= 2.0;
    }
  }
  return pmf;
}

int signed_rank_critical_value(int n, double tail_probability) {
  auto pmf = signed_rank_pmf(n);
  double cumulative = 0;
  int critical = -1;
  for (std::size_t w = 0; w < pmf.size(); ++w) {
    cumulative += pmf[w];
    // a relative tolerance keeps exact table boundaries (e.g. 0.025 itself)
    if (cumulative > tail_probability * (1 + 1e-12)) {
      break;
    }
    critical = static_cast<int>(w);
  }
  return critical;
}

bool has_zeros_or_ties(std::span<const double> d) {
  std::vector<double> magnitudes;
  magnitudes.reserve(d.size());
  for (double v : d) {
    if (v == 0.0) {
      return true;
    }
    magnitudes.push_back(std::fabs(v));
  }
  std::sort(magnitudes.begin(), magnitudes.end());
  return std::adjacent_find(magnitudes.begin(), magnitudes.end()) != magnitudes.end();
}

Interval signed_rank_interval(std::span<const double> d, double confidence) {
  return estimate_pseudo_median(d, confidence).interval;
}

PseudoMedianEstimate estimate_pseudo_median(std::span<const double> d, double confidence) {
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  return estimate_pseudo_median_of_sorted(sorted, confidence);
}

PseudoMedianEstimate estimate_pseudo_median_of_sorted(std::span<const double> sorted, double confidence) {
  if (sorted.empty()) {
    return {k_nan, {k_nan, k_nan, false}};
  }
  const std::size_t m = sorted.size() * (sorted.size() + 1) / 2;
  const double tail = (1.0 - confidence) / 2.0;
  // lo = the (c+1)-th smallest Walsh average, hi = the (c+1)-th largest,
  // with c the lower critical value of W+
  long long critical = 0;
  if (static_cast<int>(sorted.size()) <= k_exact_max_n && !has_zeros_or_ties(sorted)) {
    critical = signed_rank_critical_value(static_cast<int>(sorted.size()), tail);
  } else {
    double sigma = std::sqrt(signed_rank_variance(sorted.size(), magnitude_tie_sizes_of_sorted(sorted)));
    critical = std::llround(static_cast<double>(m) / 2.0 - normal_quantile(1.0 - tail) * sigma) - 1;
  }
  // critical < 0: too few values for `confidence`; the widest interval
  auto cut = static_cast<std::size_t>(std::clamp<long long>(critical, 0, static_cast<long long>((m - 1) / 2)));

  PseudoMedianEstimate result;
  result.interval.lo = kth_walsh_average(sorted, cut);
  result.interval.hi = kth_walsh_average(sorted, m - 1 - cut);
  result.estimate = hodges_lehmann_of_sorted(sorted);
  result.interval.reaches_confidence = critical >= 0;
  return result;
}

double signed_rank_p_greater(std::span<const double> d, double shift) {
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  return signed_rank_p_greater_of_sorted(sorted, shift);
}

double signed_rank_p_greater_of_sorted(std::span<const double> sorted, double shift) {
  // |v − shift| with its sign, zeros dropped, in ascending magnitude: the
  // ranks (tied magnitudes share their average rank), W+ and the tie groups
  // all come from this one order
  const auto magnitudes = signed_magnitudes(sorted, shift);
  if (magnitudes.empty()) {
    return 1.0;
  }
  const auto [w_plus, tie_sizes] = rank_signs(magnitudes);
  const bool zeros_dropped = magnitudes.size() != sorted.size();
  if (static_cast<int>(sorted.size()) <= k_exact_max_n && !zeros_dropped && tie_sizes.empty()) {
    auto pmf = signed_rank_pmf(static_cast<int>(magnitudes.size()));
    double p = 0;
    for (auto w = static_cast<std::size_t>(std::llround(w_plus)); w < pmf.size(); ++w) {
      p += pmf[w];
    }
    return std::clamp(p, 0.0, 1.0);
  }
  const double n = static_cast<double>(magnitudes.size());
  const double mean = n * (n + 1) / 4.0;
  const double sigma = std::sqrt(signed_rank_variance(magnitudes.size(), tie_sizes));
  if (sigma == 0.0) {
    return w_plus > mean ? 0.0 : 1.0;
  }
  return normal_upper_tail((w_plus - mean) / sigma);
}

namespace {
// How far below the binary search's answer signed_rank_interval_inverted looks for kept shifts.
constexpr int k_max_step_down = 64;
} // namespace

Interval signed_rank_interval_inverted(std::span<const double> d, double confidence) {
  if (d.empty() || !has_zeros_or_ties(d)) {
    return signed_rank_interval(d, confidence);
  }
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> negated(sorted.rbegin(), sorted.rend());
  std::transform(negated.begin(), negated.end(), negated.begin(), [](double v) { return -v; });
  const double tail = (1.0 - confidence) / 2.0;
  const std::size_t m = sorted.size() * (sorted.size() + 1) / 2;
  // the shifts tried are the Walsh averages: a count's true difference is an
  // atom of its differences, and so one of them, where the test drops the
  // pairs that equal it as zeros
  auto kept = [&](const std::vector<double>& values, std::size_t k) {
    return signed_rank_p_greater_of_sorted(values, kth_walsh_average(values, k)) >= tail;
  };
  // the smallest rank k whose average is kept: the lower end of d, and of −d the upper end
  auto first_kept = [&](const std::vector<double>& values) {
    std::size_t lo = 0;
    std::size_t hi = m - 1;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (kept(values, mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    // dropping zeros makes p not quite monotone in the shift near the data
    // (Pratt): a few ranks below may be kept too
    for (int step = 0; step < k_max_step_down && lo > 0 && kept(values, lo - 1); ++step) {
      --lo;
    }
    return lo;
  };
  Interval interval;
  interval.lo = kth_walsh_average(sorted, first_kept(sorted));
  interval.hi = -kth_walsh_average(negated, first_kept(negated));
  // even a shift below every value is kept: too few values for `confidence`
  const double below = sorted.front() - std::max(1.0, std::fabs(sorted.front()));
  interval.reaches_confidence =
      signed_rank_p_greater_of_sorted(sorted, below) < tail &&
      signed_rank_p_greater_of_sorted(negated, -(sorted.back() + std::max(1.0, std::fabs(sorted.back())))) < tail;
  return interval;
}

} // namespace refbench::stats
