#include <doctest/doctest.h>

#include <refbench/stats/unpaired.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace refbench::stats;

TEST_CASE("stats::hodges_lehmann_shift") {
  std::vector<double> x{1, 2, 3};
  std::vector<double> y{11, 12};
  // differences: 10,9,8,11,10,9 → median 9.5
  CHECK(hodges_lehmann_shift(x, y) == 9.5);
  CHECK(std::isnan(hodges_lehmann_shift({}, y)));
}

TEST_CASE("stats::mann_whitney_pmf") {
  // m = 2, n = 2: U ∈ 0..4 with counts 1,1,2,1,1 out of C(4,2) = 6
  auto pmf = mann_whitney_pmf(2, 2);
  std::vector<double> counts{1, 1, 2, 1, 1};
  REQUIRE(pmf.size() == 5);
  for (std::size_t u = 0; u < 5; ++u) {
    CHECK(pmf[u] == doctest::Approx(counts[u] / 6.0));
  }
  auto wide = mann_whitney_pmf(8, 40);
  CHECK(std::accumulate(wide.begin(), wide.end(), 0.0) == doctest::Approx(1.0));
  CHECK(wide[0] == doctest::Approx(1.0 / 377348994.0)); // 1 / C(48, 8)
}

TEST_CASE("stats::mann_whitney_p_greater agrees with scipy") {
  // References: scipy 1.10.1, scipy.stats.mannwhitneyu(y - log(1.15), x, alternative="greater")
  const double shift = std::log(1.15);
  SUBCASE("exact (6 vs 20, no ties)") {
    std::vector<double> x{6.2e-05, 0.014937, -0.013707, -0.04453, -0.022734, -0.049582};
    std::vector<double> y{0.203007, 0.267011, 0.17539,  0.168976, 0.224492, 0.217844, 0.205271,
                          0.153477, 0.198537, 0.234765, 0.132789, 0.177119, 0.104939, 0.135523,
                          0.107913, 0.188245, 0.136628, 0.213563, 0.207838, 0.190653};
    CHECK(mann_whitney_p_greater(x, y, shift) == doctest::Approx(0.0021630543369673804).epsilon(1e-6));
  }
  SUBCASE("asymptotic (30 vs 25)") {
    std::vector<double> x{-0.125838, -0.026935, -0.002425, 0.005665,  -0.076507, -0.023888, -0.048926, -0.040442,
                          0.053045,  -0.040377, -0.001626, 0.044219,  -0.02918,  -0.005585, 0.005523,  0.003189,
                          -0.061253, 0.003807,  0.067941,  -0.077357, 0.042969,  0.005968,  -0.032074, 0.100021,
                          0.038113,  -0.059964, 0.003726,  0.028834,  -0.009439, 0.034146};
    std::vector<double> y{0.156674, 0.193362, 0.231926, 0.126217, 0.170157, 0.136835, 0.166363, 0.10064,  0.131035,
                          0.15019,  0.204938, 0.217261, 0.093824, 0.120268, 0.192345, 0.060379, 0.136842, 0.155136,
                          0.222851, 0.19447,  0.143639, 0.141571, 0.14749,  0.236176, 0.138599};
    CHECK(mann_whitney_p_greater(x, y, shift) == doctest::Approx(0.025450923284206665).epsilon(1e-4));
  }
  SUBCASE("ties") {
    std::vector<double> x{1, 1, 2, 2, 3, 3, 3, 4, 5, 5, 6};
    std::vector<double> y{2, 3, 3, 4, 4, 5, 6, 6, 7, 8};
    CHECK(mann_whitney_p_greater(x, y, 0.0) == doctest::Approx(0.034560828966796034).epsilon(1e-4));
    CHECK(mann_whitney_p_greater(x, y, 1.0) == doctest::Approx(0.24850858080191807).epsilon(1e-4));
  }
}

TEST_CASE("stats::mann_whitney_interval uses the right order statistics") {
  std::vector<double> x{0.01, 0.05, -0.02, 0.03, 0.00};
  std::vector<double> y{0.21, 0.17, 0.25, 0.19, 0.22, 0.18};
  std::vector<double> differences;
  for (double b : y) {
    for (double a : x) {
      differences.push_back(b - a);
    }
  }
  std::sort(differences.begin(), differences.end());
  // m = 5, n = 6: two-sided 0.05 critical U is 3 (published Mann–Whitney table),
  // so the interval is the 4th smallest and 4th largest difference
  auto interval = mann_whitney_interval(x, y, 0.95);
  CHECK(interval.lo == differences[3]);
  CHECK(interval.hi == differences[30 - 4]);
}
