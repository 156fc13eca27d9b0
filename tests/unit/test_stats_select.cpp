#include <doctest/doctest.h>

#include <refbench/stats/select.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace refbench::stats;

namespace {

// The oracle: every Walsh average (v_i + v_j) / 2, i ≤ j, listed and sorted.
std::vector<double> all_walsh_averages(const std::vector<double>& v) {
  std::vector<double> averages;
  for (std::size_t i = 0; i < v.size(); ++i) {
    for (std::size_t j = i; j < v.size(); ++j) {
      averages.push_back((v[i] + v[j]) / 2.0);
    }
  }
  std::sort(averages.begin(), averages.end());
  return averages;
}

// The oracle: every difference x_i − y_j, listed and sorted.
std::vector<double> all_differences(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> differences;
  for (double a : x) {
    for (double b : y) {
      differences.push_back(a - b);
    }
  }
  std::sort(differences.begin(), differences.end());
  return differences;
}

// `n` sorted values, negatives included; with `tied`, drawn from a few
// levels so that values and averages repeat.
std::vector<double> sorted_sample(refbench::util::Rng& rng, std::size_t n, bool tied) {
  std::vector<double> values(n);
  for (double& v : values) {
    const auto draw = static_cast<double>(rng.below(tied ? 7 : 1'000'000));
    v = tied ? (draw - 3.0) * 0.25 : (draw / 1e6 - 0.4) * std::pow(10.0, static_cast<double>(rng.below(3)));
  }
  std::sort(values.begin(), values.end());
  return values;
}

// How many Walsh averages of sorted `v` are < `value` (`strict`) or ≤ it,
// in O(n) by a two-pointer walk — independent of the selection code.
std::size_t walsh_count(const std::vector<double>& v, double value, bool strict) {
  std::size_t count = 0;
  std::size_t j = v.size();
  for (std::size_t i = 0; i < v.size(); ++i) {
    j = std::max(j, i);
    auto in = [&](std::size_t column) {
      const double average = (v[i] + v[column]) / 2.0;
      return strict ? average < value : average <= value;
    };
    while (j > i && !in(j - 1)) {
      --j;
    }
    count += j - i;
  }
  return count;
}

} // namespace

TEST_CASE("stats::kth_walsh_average matches listing every average") {
  refbench::util::Rng rng(20260115);
  for (std::size_t n = 1; n <= 50; ++n) {
    for (bool tied : {false, true}) {
      const auto values = sorted_sample(rng, n, tied);
      const auto expected = all_walsh_averages(values);
      for (std::size_t k = 0; k < expected.size(); ++k) {
        CAPTURE(n);
        CAPTURE(tied);
        CAPTURE(k);
        REQUIRE(kth_walsh_average(values, k) == expected[k]);
      }
    }
  }
}

TEST_CASE("stats::kth_walsh_average beyond the listing threshold") {
  refbench::util::Rng rng(7);
  for (std::size_t n : {60, 120, 301}) {
    for (bool tied : {false, true}) {
      const auto values = sorted_sample(rng, n, tied);
      const auto expected = all_walsh_averages(values);
      for (std::size_t k = 0; k < expected.size(); k += 1 + rng.below(97)) {
        CAPTURE(n);
        CAPTURE(k);
        REQUIRE(kth_walsh_average(values, k) == expected[k]);
      }
      CHECK(kth_walsh_average(values, expected.size() - 1) == expected.back());
    }
  }
}

TEST_CASE("stats::kth_difference matches listing every difference") {
  refbench::util::Rng rng(31);
  for (std::size_t m = 1; m <= 50; m += 1 + m / 4) {
    for (std::size_t n = 1; n <= 50; n += 1 + n / 3) {
      for (bool tied : {false, true}) {
        const auto x = sorted_sample(rng, m, tied);
        const auto y = sorted_sample(rng, n, tied);
        const auto expected = all_differences(x, y);
        for (std::size_t k = 0; k < expected.size(); ++k) {
          CAPTURE(m);
          CAPTURE(n);
          CAPTURE(k);
          REQUIRE(kth_difference(x, y, k) == expected[k]);
        }
      }
    }
  }
}

TEST_CASE("stats::kth_difference beyond the listing threshold, unequal sizes") {
  refbench::util::Rng rng(37);
  const auto x = sorted_sample(rng, 300, false);
  const auto y = sorted_sample(rng, 41, true);
  const auto expected = all_differences(x, y);
  const auto swapped = all_differences(y, x);
  for (std::size_t k = 0; k < expected.size(); k += 1 + rng.below(53)) {
    CAPTURE(k);
    REQUIRE(kth_difference(x, y, k) == expected[k]);
    REQUIRE(kth_difference(y, x, k) == swapped[k]);
  }
}

TEST_CASE("stats::kth_walsh_average and kth_difference edge cases") {
  const std::vector<double> one{0.25};
  CHECK(kth_walsh_average(one, 0) == 0.25);
  CHECK(kth_difference(one, std::vector<double>{1.0}, 0) == -0.75);
  CHECK_THROWS_AS(kth_walsh_average(one, 1), std::invalid_argument);
  CHECK_THROWS_AS(kth_walsh_average(std::vector<double>{}, 0), std::invalid_argument);
  CHECK_THROWS_AS(kth_difference(one, std::vector<double>{}, 0), std::invalid_argument);
  CHECK_THROWS_AS(kth_difference(one, one, 1), std::invalid_argument);
  CHECK_THROWS_AS(kth_walsh_average(std::vector<double>{2, 1}, 0), std::invalid_argument);
  CHECK_THROWS_AS(kth_difference(std::vector<double>{2, 1}, one, 0), std::invalid_argument);

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(std::isnan(kth_walsh_average(std::vector<double>{0.1, nan, 0.3}, 2)));
  CHECK(std::isnan(kth_difference(std::vector<double>{0.1, 0.2}, std::vector<double>{nan}, 0)));
  CHECK(std::isnan(kth_walsh_average(std::vector<double>{-inf, 0, inf}, 0)));
  CHECK(std::isnan(kth_difference(std::vector<double>{0, inf}, std::vector<double>{inf}, 0)));
  CHECK(kth_walsh_average(std::vector<double>{0, 1, inf}, 5) == inf);

  const std::vector<double> all_equal(1000, -0.5);
  CHECK(kth_walsh_average(all_equal, 0) == -0.5);
  CHECK(kth_walsh_average(all_equal, 1000 * 1001 / 2 - 1) == -0.5);
  CHECK(kth_difference(all_equal, all_equal, 123456) == 0.0);
}

TEST_CASE("stats::kth_walsh_average at scale: n = 100 000 in O(n log n)") {
  refbench::util::Rng rng(99);
  auto values = sorted_sample(rng, 100'000, false);
  // with many ties too: half the values on a coarse grid
  for (std::size_t i = 0; i < values.size(); i += 2) {
    values[i] = std::round(values[i] * 100) / 100;
  }
  std::sort(values.begin(), values.end());
  const std::size_t total = values.size() * (values.size() + 1) / 2;
  for (std::size_t k : {std::size_t{0}, total / 40, total / 2 - 1, total / 2, total - 1 - total / 40, total - 1}) {
    CAPTURE(k);
    const double kth = kth_walsh_average(values, k);
    // the k-th smallest: at most k averages below it, more than k up to it
    CHECK(walsh_count(values, kth, true) <= k);
    CHECK(walsh_count(values, kth, false) >= k + 1);
  }
}

namespace {

// Adversarial samples of `n` sorted values: all equal, two values, a range
// of ±1e300 (sums near overflow), negative log-ratios, zeros with outliers.
std::vector<std::vector<double>> adversarial_samples(refbench::util::Rng& rng, std::size_t n) {
  std::vector<std::vector<double>> samples(5, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto draw = static_cast<double>(rng.below(1'000'000)) / 1e6;
    samples[0][i] = 0.125;
    samples[1][i] = rng.below(2) ? 1.0 : -1.0;
    samples[2][i] = (draw - 0.5) * 2e300;
    samples[3][i] = std::log(0.5 + 0.4 * draw);
    samples[4][i] = rng.below(50) == 0 ? 1e6 * (draw - 0.5) : 0.0;
  }
  for (auto& s : samples) {
    std::sort(s.begin(), s.end());
  }
  return samples;
}

// Ranks to check among `total`: both ends, the middle pair and ~200 spread.
std::vector<std::size_t> probe_ranks(refbench::util::Rng& rng, std::size_t total) {
  std::vector<std::size_t> ranks{0, total / 2 - 1, total / 2, total - 1};
  for (int i = 0; i < 200; ++i) {
    ranks.push_back(rng.below(total));
  }
  return ranks;
}

} // namespace

TEST_CASE("stats::kth_walsh_average and kth_difference equal the listing at n = 2000 on adversarial inputs") {
  refbench::util::Rng rng(2000);
  const auto first = adversarial_samples(rng, 2000);
  const auto second = adversarial_samples(rng, 1999);
  for (std::size_t s = 0; s < first.size(); ++s) {
    CAPTURE(s);
    const auto averages = all_walsh_averages(first[s]);
    for (std::size_t k : probe_ranks(rng, averages.size())) {
      CAPTURE(k);
      REQUIRE(kth_walsh_average(first[s], k) == averages[k]);
    }
    const auto differences = all_differences(first[s], second[s]);
    for (std::size_t k : probe_ranks(rng, differences.size())) {
      CAPTURE(k);
      REQUIRE(kth_difference(first[s], second[s], k) == differences[k]);
    }
  }
}

TEST_CASE("stats::adjacent_walsh_averages and adjacent_differences equal two neighbours of the listing") {
  refbench::util::Rng rng(20261205);
  // below and beyond the listing threshold, distinct and tied (ties make
  // the (k−1)-th the k-th's equal), and adversarial shapes at n = 2000
  for (std::size_t n : {2, 7, 40, 200, 301}) {
    for (bool tied : {false, true}) {
      CAPTURE(n);
      CAPTURE(tied);
      const auto values = sorted_sample(rng, n, tied);
      const auto averages = all_walsh_averages(values);
      const auto other = sorted_sample(rng, n + 3, tied);
      const auto differences = all_differences(values, other);
      for (int probe = 0; probe < 40; ++probe) {
        const std::size_t k = 1 + rng.below(averages.size() - 1);
        CAPTURE(k);
        const auto [previous, kth] = adjacent_walsh_averages(values, k);
        REQUIRE(previous == averages[k - 1]);
        REQUIRE(kth == averages[k]);
        const std::size_t d = 1 + rng.below(differences.size() - 1);
        CAPTURE(d);
        const auto [previous_difference, kth_difference_value] = adjacent_differences(values, other, d);
        REQUIRE(previous_difference == differences[d - 1]);
        REQUIRE(kth_difference_value == differences[d]);
      }
    }
  }
  const auto shapes = adversarial_samples(rng, 2000);
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    CAPTURE(s);
    const auto averages = all_walsh_averages(shapes[s]);
    for (std::size_t k : probe_ranks(rng, averages.size())) {
      if (k > 0) {
        CAPTURE(k);
        const auto [previous, kth] = adjacent_walsh_averages(shapes[s], k);
        REQUIRE(previous == averages[k - 1]);
        REQUIRE(kth == averages[k]);
      }
    }
  }
  CHECK_THROWS_AS(adjacent_walsh_averages(std::vector<double>{1.0, 2.0}, 0), std::invalid_argument);
  CHECK_THROWS_AS(adjacent_differences(std::vector<double>{1.0}, std::vector<double>{2.0, 3.0}, 2),
                  std::invalid_argument);
  CHECK(std::isnan(adjacent_walsh_averages(std::vector<double>{1.0, k_nan}, 1).first));
}
