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

namespace {

// A link of estimate `e` with a 95 % normal interval of standard error `se` (n unknown).
stats::Link normal_link(double e, double se) {
  const double z = 1.959963984540054;
  return {e, e - z * se, e + z * se, 0};
}

// The upper tail of the standard normal distribution.
double normal_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

} // namespace

TEST_CASE("stats::link_steps: a link beyond the noise band, Benjamini–Hochberg across the chain, closed form") {
  // estimates scattered within their ±1.96 · 0.01 intervals: τ = 0, band δ = 0.01, and only
  // the 0.1 link lies beyond it: p = 2 · Φ̄((0.1 − 0.01) / 0.01), times 5 / 1 for BH
  const std::vector<stats::Link> links{normal_link(0, 0.01), normal_link(0.001, 0.01), normal_link(-0.001, 0.01),
                                       normal_link(0.002, 0.01), normal_link(0.1, 0.01)};
  const auto steps = stats::link_steps(links);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].index == 4);
  CHECK(steps[0].p == doctest::Approx(5 * 2 * normal_tail(9.0)).epsilon(1e-6));
  // a link just past the band by less than its noise is not a step: (0.02 − 0.01) / 0.01 = 1σ
  auto near = links;
  near[4] = normal_link(0.02, 0.01);
  CHECK(stats::link_steps(near).empty());
  // a falling link is a step as well
  auto falling = links;
  falling[4] = normal_link(-0.1, 0.01);
  REQUIRE(stats::link_steps(falling).size() == 1);
  CHECK(stats::link_steps(falling)[0].index == 4);
  CHECK(stats::link_steps(std::vector<stats::Link>{normal_link(0.5, 0.01)}).empty());
}

TEST_CASE("stats::link_steps: run-to-run scatter beyond the links' intervals widens the noise they are read against") {
  // estimates spread far wider than their ±1.96 · 0.01 intervals: median 0.02, MAD 0.045,
  // τ² = (1.4826 · 0.045)² − 0.01² and σ = 1.4826 · 0.045 for every link, δ = σ;
  // the 0.2 link: p = 2 · Φ̄((0.2 − σ) / σ) = 0.0457, times 6 for BH: no step
  const std::vector<stats::Link> links{normal_link(-0.05, 0.01), normal_link(0.05, 0.01), normal_link(-0.04, 0.01),
                                       normal_link(0.04, 0.01),  normal_link(0.0, 0.01),  normal_link(0.2, 0.01)};
  CHECK(stats::link_steps(links).empty());
  const double sigma = 1.4826 * 0.045;
  CHECK(stats::link_steps(links, 0.3).size() == 1);
  CHECK(stats::link_steps(links, 0.3)[0].p ==
        doctest::Approx(6 * 2 * normal_tail((0.2 - sigma) / sigma)).epsilon(1e-6));
  // links of 20 pairs read on t with 19 degrees of freedom: the same link's interval is wider,
  // so its standard error is 0.01 · 1.96 / 2.093 and a step of 0.05 still clears δ by far
  std::vector<stats::Link> pairs;
  for (double e : {0.0, 0.002, -0.002, 0.001, 0.05}) {
    auto link = normal_link(e, 0.01);
    link.n = 20;
    pairs.push_back(link);
  }
  REQUIRE(stats::link_steps(pairs).size() == 1);
  CHECK(stats::link_steps(pairs)[0].index == 4);
}
