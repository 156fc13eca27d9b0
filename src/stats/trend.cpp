#include <refbench/stats/multiple.hpp>
#include <refbench/stats/trend.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace refbench::stats {
namespace {

// Double precision throughout: a history's thousands of links each ask.
using Policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using Normal = boost::math::normal_distribution<double, Policy>;
using StudentsT = boost::math::students_t_distribution<double, Policy>;

// The two-sided normal quantile of `confidence`: 1.96 for 0.95.
double two_sided_z(double confidence) { return boost::math::quantile(Normal(), 0.5 + confidence / 2); }

// The two-sided quantile of Student's t on `df` degrees of freedom; the
// normal one when df is infinite. The last one asked is kept: the links of
// a chain mostly share their confidence and pairs.
double two_sided_t(double confidence, double df) {
  thread_local double last_confidence = -1;
  thread_local double last_df = -1;
  thread_local double last = 0;
  if (confidence != last_confidence || df != last_df) {
    last = std::isfinite(df) ? boost::math::quantile(StudentsT(df), 0.5 + confidence / 2) : two_sided_z(confidence);
    last_confidence = confidence;
    last_df = df;
  }
  return last;
}

// P(T > x) for Student's t on `df` degrees of freedom (normal when infinite).
double upper_tail(double x, double df) {
  return std::isfinite(df) ? boost::math::cdf(boost::math::complement(StudentsT(df), x))
                           : boost::math::cdf(boost::math::complement(Normal(), x));
}

// The energy statistic of splitting values[from, to) before `at`, from the
// pairwise distance sums: Q = m k / (m + k) · (2/(m k) B − W_L/C(m,2) − W_R/C(k,2)),
// W over unordered pairs (a side of one value has W = 0).
double energy(double between, double within_left, double within_right, double m, double k) {
  const double left = m > 1 ? within_left / (m * (m - 1) / 2) : 0.0;
  const double right = k > 1 ? within_right / (k * (k - 1) / 2) : 0.0;
  return m * k / (m + k) * (2 * between / (m * k) - left - right);
}

// The best split of values[from, to): its index and statistic; {to, -inf}
// when the segment is too short for two sides of `min_segment`.
std::pair<std::size_t, double> best_split(std::span<const double> x, std::size_t from, std::size_t to,
                                          std::size_t min_segment) {
  std::pair<std::size_t, double> best{to, -std::numeric_limits<double>::infinity()};
  if (to - from < 2 * min_segment) {
    return best;
  }
  // row[i] = Σ_{j in [from, to)} |x_i − x_j|; all pairs within the segment
  std::vector<double> row(to - from, 0.0);
  double total = 0;
  for (std::size_t i = from; i < to; ++i) {
    for (std::size_t j = from; j < to; ++j) {
      row[i - from] += std::fabs(x[i] - x[j]);
    }
    total += row[i - from];
  }
  total /= 2; // unordered pairs
  // moving the split right by one moves x_s from the right side to the left
  double within_left = 0;
  double left_to_s = 0; // Σ_{i in left} |x_i − x_s|, recomputed per s
  double cross = 0;     // between-sides sum
  for (std::size_t s = from; s + 1 < to; ++s) {
    left_to_s = 0;
    for (std::size_t i = from; i < s; ++i) {
      left_to_s += std::fabs(x[i] - x[s]);
    }
    within_left += left_to_s;
    const double to_right = row[s - from] - left_to_s; // Σ over the rest of the segment
    cross += to_right - left_to_s;
    const std::size_t at = s + 1; // the first value after the split
    const double m = static_cast<double>(at - from);
    const double k = static_cast<double>(to - at);
    if (at - from < min_segment || to - at < min_segment) {
      continue;
    }
    const double within_right = total - within_left - cross;
    const double q = energy(cross, within_left, within_right, m, k);
    if (q > best.second) {
      best = {at, q};
    }
  }
  return best;
}

// Among `bounds` (segment edges, ascending, first 0 and last n), the
// segment and split with the largest statistic: {segment, index, q}.
struct Best {
  std::size_t segment = 0;
  std::size_t index = 0;
  double q = -std::numeric_limits<double>::infinity();
};

Best best_over(std::span<const double> x, const std::vector<std::size_t>& bounds, std::size_t min_segment) {
  Best best;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    const auto [index, q] = best_split(x, bounds[s], bounds[s + 1], min_segment);
    if (q > best.q) {
      best = {s, index, q};
    }
  }
  return best;
}

// The standard error of `link`, its interval read as a t interval on
// n − 1 degrees of freedom (normal for n < 2) at `link_confidence`.
double standard_error(const Link& link, double link_confidence) {
  const double df = link.n >= 2 ? static_cast<double>(link.n - 1) : std::numeric_limits<double>::infinity();
  return (link.high - link.low) / (2 * two_sided_t(link_confidence, df));
}

double median_of(std::vector<double> x) {
  const auto mid = x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2);
  std::nth_element(x.begin(), mid, x.end());
  if (x.size() % 2 == 1) {
    return *mid;
  }
  return (*mid + *std::max_element(x.begin(), mid)) / 2;
}

double mean_of(std::span<const double> x, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) {
    sum += x[i];
  }
  return to > from ? sum / static_cast<double>(to - from) : 0.0;
}

} // namespace

Link chain(std::span<const Link> links, double link_confidence, double confidence) {
  double sum = 0;
  double variance = 0;
  double df_denominator = 0; // Σ s_i⁴ / (n_i − 1); a link of unknown n adds nothing
  std::size_t n = 0;
  for (const auto& link : links) {
    sum += link.estimate;
    const double df = link.n >= 2 ? static_cast<double>(link.n - 1) : std::numeric_limits<double>::infinity();
    const double se = standard_error(link, link_confidence);
    variance += se * se;
    df_denominator += std::isfinite(df) ? se * se * se * se / df : 0.0;
    n += link.n;
  }
  const double df = df_denominator > 0 ? variance * variance / df_denominator : std::numeric_limits<double>::infinity();
  const double half = two_sided_t(confidence, df) * std::sqrt(variance);
  return {sum, sum - half, sum + half, n};
}

std::vector<LinkStep> link_steps(std::span<const Link> links, double alpha, double link_confidence) {
  if (links.size() < 2) {
    return {};
  }
  std::vector<double> estimates;
  std::vector<double> variances;
  for (const auto& link : links) {
    estimates.push_back(link.estimate);
    variances.push_back(std::pow(standard_error(link, link_confidence), 2));
  }
  const double centre = median_of(estimates);
  std::vector<double> deviations;
  for (double e : estimates) {
    deviations.push_back(std::fabs(e - centre));
  }
  const double tau2 = std::max(0.0, std::pow(1.4826 * median_of(deviations), 2) - median_of(variances));
  std::vector<double> sigma;
  for (double v : variances) {
    sigma.push_back(std::sqrt(v + tau2));
  }
  const double band = median_of(sigma);
  std::vector<double> p;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const double beyond = std::fabs(links[i].estimate) - band;
    const double df = links[i].n >= 2 ? static_cast<double>(links[i].n - 1) : std::numeric_limits<double>::infinity();
    double tail = 0.5; // inside the band
    if (beyond > 0) {
      tail = sigma[i] > 0 ? upper_tail(beyond / sigma[i], df) : 0.0;
    }
    p.push_back(std::min(1.0, 2 * tail));
  }
  const auto adjusted = benjamini_hochberg(p);
  std::vector<LinkStep> steps;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (adjusted[i] <= alpha) {
      steps.push_back({i, adjusted[i]});
    }
  }
  return steps;
}

Ewma ewma(std::span<const double> values, double span) {
  Ewma out;
  const double alpha = 2 / (span + 1);
  double mean = 0;
  double var = 0;
  for (std::size_t t = 0; t < values.size(); ++t) {
    if (t == 0) {
      mean = values[0];
      var = 0;
    } else {
      const double delta = values[t] - mean;
      var = (1 - alpha) * (var + alpha * delta * delta);
      mean += alpha * delta;
    }
    out.mean.push_back(mean);
    out.sd.push_back(std::sqrt(var));
  }
  return out;
}

std::vector<ChangePoint> e_divisive(std::span<const double> values, const EDivisiveSettings& settings) {
  const std::size_t n = values.size();
  const std::size_t min_segment = std::max<std::size_t>(settings.min_segment, 1);
  std::vector<std::size_t> bounds{0, n};
  std::vector<ChangePoint> found;
  util::Rng rng(settings.seed);
  std::vector<double> shuffled(values.begin(), values.end());
  while (true) {
    const Best best = best_over(values, bounds, min_segment);
    if (!std::isfinite(best.q)) {
      break;
    }
    // permutation test: values shuffled within the current segments
    std::size_t at_least = 0;
    for (std::size_t r = 0; r < settings.permutations; ++r) {
      std::copy(values.begin(), values.end(), shuffled.begin());
      for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
        rng.shuffle(std::span<double>(shuffled).subspan(bounds[s], bounds[s + 1] - bounds[s]));
      }
      if (best_over(shuffled, bounds, min_segment).q >= best.q) {
        ++at_least;
      }
    }
    const double p = static_cast<double>(at_least + 1) / static_cast<double>(settings.permutations + 1);
    if (p > settings.alpha) {
      break;
    }
    found.push_back({best.index, 0, 0, p});
    bounds.insert(bounds.begin() + static_cast<std::ptrdiff_t>(best.segment) + 1, best.index);
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // each change point's sides: the segments between its neighbours
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : found[i - 1].index;
    const std::size_t to = i + 1 == found.size() ? n : found[i + 1].index;
    found[i].before = mean_of(values, from, found[i].index);
    found[i].after = mean_of(values, found[i].index, to);
  }
  return found;
}

} // namespace refbench::stats
