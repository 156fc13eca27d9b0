#include <doctest/doctest.h>

#include <refbench/stats/bootstrap.hpp>
#include <refbench/util/rng.hpp>

#include <cmath>
#include <vector>

using namespace refbench::stats;

TEST_CASE("stats::bca_bootstrap_interval") {
  std::vector<double> d;
  refbench::util::Rng rng(5);
  for (int i = 0; i < 30; ++i) {
    // uniform on [0.05, 0.15]: pseudo-median 0.10
    d.push_back(0.05 + 0.1 * static_cast<double>(rng.below(1000000)) / 1e6);
  }
  auto first = bca_bootstrap_interval(d, 0.95, 42, 2000);
  auto again = bca_bootstrap_interval(d, 0.95, 42, 2000);
  SUBCASE("seeded: same seed, same interval") {
    CHECK(first.lo == again.lo);
    CHECK(first.hi == again.hi);
  }
  SUBCASE("brackets the estimate and is close to the signed-rank interval") {
    double hl = hodges_lehmann(d);
    CHECK(first.lo < hl);
    CHECK(first.hi > hl);
    auto exact = signed_rank_interval(d, 0.95);
    CHECK(first.lo == doctest::Approx(exact.lo).epsilon(0.15));
    CHECK(first.hi == doctest::Approx(exact.hi).epsilon(0.15));
  }
  SUBCASE("degenerate data") {
    auto constant = bca_bootstrap_interval(std::vector<double>(10, 0.2), 0.95, 1, 500);
    CHECK(constant.lo == 0.2);
    CHECK(constant.hi == 0.2);
    CHECK(std::isnan(bca_bootstrap_interval(std::vector<double>{}, 0.95, 1).lo));
  }
}
