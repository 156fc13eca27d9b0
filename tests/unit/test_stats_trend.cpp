#include <doctest/doctest.h>

#include <refbench/stats/trend.hpp>

#include <cmath>

using namespace refbench;

TEST_CASE("stats::chain: the sum of the links with variances from their intervals") {
  // two links of 0.1 ± 0.05: the sum 0.2, the half-width √2 · 0.05
  const std::vector<stats::Link> links{{0.1, 0.05, 0.15}, {0.1, 0.05, 0.15}};
  const auto total = stats::chain(links);
  CHECK(total.estimate == doctest::Approx(0.2));
  CHECK(total.high - total.estimate == doctest::Approx(0.05 * std::sqrt(2.0)).epsilon(1e-12));
  CHECK(total.estimate - total.low == doctest::Approx(0.05 * std::sqrt(2.0)).epsilon(1e-12));
  // a 90 % link interval is narrower for the same standard error: 1.645 vs 1.96
  const std::vector<stats::Link> one{{0, -1.6448536269514722, 1.6448536269514722}};
  CHECK(stats::chain(one, 0.90).high == doctest::Approx(1.959963984540054).epsilon(1e-9));
  CHECK(stats::chain({}).estimate == 0);
}

TEST_CASE("stats::chain: links of n pairs read as t intervals, the sum on Welch–Satterthwaite degrees of freedom") {
  // one link of 20 pairs gives back its own interval
  const std::vector<stats::Link> one{{0.1, 0.05, 0.15, 20}};
  const auto same = stats::chain(one);
  CHECK(same.low == doctest::Approx(0.05).epsilon(1e-12));
  CHECK(same.high == doctest::Approx(0.15).epsilon(1e-12));
  CHECK(same.n == 20);
  // two such links: s = 0.05 / t(19), 38 degrees of freedom, half-width t(38) √2 s
  // (scipy: t.ppf(0.975, 38) / t.ppf(0.975, 19) · 0.05 · √2)
  const std::vector<stats::Link> two{{0.1, 0.05, 0.15, 20}, {0.1, 0.05, 0.15, 20}};
  CHECK(stats::chain(two).high - 0.2 == doctest::Approx(0.0683920874464224).epsilon(1e-9));
  // a link of unknown n is normal and adds no term to the degrees of freedom
  // (scipy: 360.46 degrees of freedom, half-width 0.10934734295872746)
  const std::vector<stats::Link> mixed{{0, -0.05, 0.05, 10}, {0, -0.1, 0.1, 0}};
  CHECK(stats::chain(mixed).high == doctest::Approx(0.10934734295872746).epsilon(1e-9));
}

TEST_CASE("stats::ewma: the exponentially weighted mean and deviation, closed form") {
  const std::vector<double> x{0, 1, 1};
  const auto e = stats::ewma(x, 10); // α = 2/11
  const double a = 2.0 / 11;
  CHECK(e.mean[0] == 0);
  CHECK(e.sd[0] == 0);
  CHECK(e.mean[1] == doctest::Approx(a));
  CHECK(e.sd[1] == doctest::Approx(std::sqrt((1 - a) * a)));
  const double var2 = (1 - a) * ((1 - a) * a + a * (1 - a) * (1 - a));
  CHECK(e.mean[2] == doctest::Approx(a + a * (1 - a)));
  CHECK(e.sd[2] == doctest::Approx(std::sqrt(var2)));
}

TEST_CASE("stats::e_divisive: a clear step, two steps, none in a flat series") {
  std::vector<double> step;
  for (int i = 0; i < 20; ++i) {
    step.push_back((i >= 12 ? 1.0 : 0.0) + 0.01 * ((i * 7) % 5 - 2));
  }
  auto found = stats::e_divisive(step);
  REQUIRE(found.size() == 1);
  CHECK(found[0].index == 12);
  CHECK(found[0].before == doctest::Approx(0.0).epsilon(0.01));
  CHECK(found[0].after == doctest::Approx(1.0).epsilon(0.01));
  CHECK(found[0].p <= 0.05);
  std::vector<double> two = step;
  for (int i = 0; i < 10; ++i) {
    two.push_back(3.0 + 0.01 * ((i * 3) % 4));
  }
  auto both = stats::e_divisive(two);
  REQUIRE(both.size() == 2);
  CHECK(both[0].index == 12);
  CHECK(both[1].index == 20);
  CHECK(stats::e_divisive(std::vector<double>(30, 1.0)).empty());       // every permutation ties: p = 1
  CHECK(stats::e_divisive(std::vector<double>{0, 0, 0, 1, 1}).empty()); // too short for two sides of 3
  // the same seed, the same answer
  CHECK(stats::e_divisive(two, {0.05, 3, 99, 5}).size() == stats::e_divisive(two, {0.05, 3, 99, 5}).size());
}
