#include <doctest/doctest.h>

#include <refbench/stats/signed_rank.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <vector>

using namespace refbench::stats;

namespace {
const double k_log_threshold = std::log(1.15);

// All Walsh averages (d_i + d_j) / 2 for i ≤ j, sorted ascending: by brute
// force, independently of the selection the estimators use.
std::vector<double> walsh_averages(const std::vector<double>& d) {
  std::vector<double> averages;
  for (std::size_t i = 0; i < d.size(); ++i) {
    for (std::size_t j = i; j < d.size(); ++j) {
      averages.push_back((d[i] + d[j]) / 2);
    }
  }
  std::sort(averages.begin(), averages.end());
  return averages;
}
} // namespace

TEST_CASE("stats::hodges_lehmann") {
  SUBCASE("closed form: {1,2,3} has Walsh averages 1,1.5,2,2,2.5,3") {
    std::vector<double> d{3, 1, 2};
    CHECK(walsh_averages(d) == std::vector<double>{1, 1.5, 2, 2, 2.5, 3});
    CHECK(hodges_lehmann(d) == 2.0);
  }
  SUBCASE("one outlier moves it little") {
    std::vector<double> d{0.10, 0.11, 0.09, 0.10, 0.12, 5.0};
    CHECK(hodges_lehmann(d) == doctest::Approx(0.11).epsilon(0.1));
  }
  SUBCASE("empty and all-zero") {
    CHECK(std::isnan(hodges_lehmann(std::vector<double>{})));
    CHECK(hodges_lehmann(std::vector<double>(9, 0.0)) == 0.0);
  }
}

TEST_CASE("stats::signed_rank_pmf") {
  // n = 3: W+ ∈ 0..6 with subset counts 1,1,1,2,1,1,1 out of 8
  auto pmf = signed_rank_pmf(3);
  std::vector<double> expected{1, 1, 1, 2, 1, 1, 1};
  REQUIRE(pmf.size() == expected.size());
  for (std::size_t w = 0; w < pmf.size(); ++w) {
    CHECK(pmf[w] == doctest::Approx(expected[w] / 8.0));
  }
  auto big = signed_rank_pmf(50);
  CHECK(std::accumulate(big.begin(), big.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(big[0] == doctest::Approx(std::pow(2.0, -50)));
  CHECK(big[100] == doctest::Approx(big[big.size() - 101]).epsilon(1e-12)); // symmetric
}

TEST_CASE("stats::signed_rank_critical_value matches the published table") {
  // Two-sided α = 0.05 (tail 0.025) critical values of the Wilcoxon
  // signed-rank statistic, e.g. Zar, Biostatistical Analysis, Table B.12.
  const std::vector<std::pair<int, int>> two_sided_05{{6, 0},   {7, 2},   {8, 3},   {9, 5},   {10, 8},  {11, 10},
                                                      {12, 13}, {13, 17}, {14, 21}, {15, 25}, {16, 29}, {17, 34},
                                                      {18, 40}, {19, 46}, {20, 52}, {25, 89}, {30, 137}};
  for (auto [n, critical] : two_sided_05) {
    CAPTURE(n);
    CHECK(signed_rank_critical_value(n, 0.025) == critical);
  }
  // One-sided α = 0.05 from the same table.
  CHECK(signed_rank_critical_value(10, 0.05) == 10);
  CHECK(signed_rank_critical_value(20, 0.05) == 60);
  CHECK(signed_rank_critical_value(5, 0.025) == -1); // n = 5 cannot reach 95 %
}

TEST_CASE("stats::signed_rank_interval uses the right order statistics") {
  std::vector<double> d{0.12, -0.03, 0.07, 0.31, 0.05, 0.22, -0.11, 0.16, 0.09, 0.02};
  const auto averages = walsh_averages(d);
  REQUIRE(averages.size() == 55);
  // n = 10, critical value 8 → the 9th smallest and the 9th largest
  auto interval = signed_rank_interval(d, 0.95);
  CHECK(interval.lo == averages[8]);
  CHECK(interval.hi == averages[55 - 9]);
  CHECK(interval.half_width() == doctest::Approx((averages[46] - averages[8]) / 2));

  SUBCASE("normal approximation for n > 50") {
    std::vector<double> many;
    for (int i = 0; i < 60; ++i) {
      many.push_back(std::sin(i * 1.7) * 0.1 + 0.01 * i);
    }
    auto walsh = walsh_averages(many);
    // M = 1830, σ = sqrt(60·61·121/24) = 135.84, k = round(M/2 − 1.959964·σ) = 649:
    // the 649th smallest and the 649th largest Walsh average
    auto wide = signed_rank_interval(many, 0.95);
    CHECK(wide.lo == walsh[648]);
    CHECK(wide.hi == walsh[1830 - 649]);
  }
  SUBCASE("too few values: the widest interval") {
    std::vector<double> few{0.1, 0.2, 0.4};
    auto interval3 = signed_rank_interval(few, 0.95);
    CHECK(interval3.lo == 0.1);
    CHECK(interval3.hi == 0.4);
    CHECK_FALSE(interval3.reaches_confidence);
    CHECK(signed_rank_interval(d, 0.95).reaches_confidence);
  }
  SUBCASE("ties and zeros: no NaN") {
    std::vector<double> tied{0, 0, 0.01, 0.01, 0.01, -0.01, 0, 0.02, 0.01, 0};
    auto t = signed_rank_interval(tied, 0.95);
    CHECK(std::isfinite(t.lo));
    CHECK(std::isfinite(t.hi));
    CHECK(t.lo <= t.hi);
    auto zero = signed_rank_interval(std::vector<double>(12, 0.0), 0.95);
    CHECK(zero.lo == 0.0);
    CHECK(zero.hi == 0.0);
  }
}

TEST_CASE("stats::signed_rank_p_greater agrees with scipy") {
  // References: scipy 1.10.1, scipy.stats.wilcoxon(d - log(1.15), alternative="greater"),
  // method="exact" for the untied n ≤ 50 cases, method="approx" otherwise.
  SUBCASE("exact, n = 8") {
    std::vector<double> d{0.088809, 0.223186, 0.116467, 0.147041, 0.156233, 0.122956, 0.09161, 0.192445};
    CHECK(signed_rank_p_greater(d, k_log_threshold) == doctest::Approx(0.52734375).epsilon(1e-6));
  }
  SUBCASE("exact, n = 15") {
    std::vector<double> d{0.178053, 0.062357, 0.27737,  0.208425, 0.122031, 0.20511,  0.136652, 0.156966,
                          0.199442, 0.097167, 0.188793, 0.229949, 0.226115, 0.145015, 0.205146};
    CHECK(signed_rank_p_greater(d, k_log_threshold) == doctest::Approx(0.017669677734375).epsilon(1e-6));
  }
  SUBCASE("exact, n = 30") {
    std::vector<double> d{0.078921, 0.152091, 0.182474, 0.09282,  0.155916, 0.246237, 0.290908, 0.198868,
                          0.201432, 0.112051, 0.099531, 0.089385, 0.187077, 0.197597, 0.127062, 0.098566,
                          0.172878, 0.175645, 0.153459, 0.223499, 0.155352, 0.156692, 0.104589, 0.166798,
                          0.227354, 0.163057, 0.163546, 0.181683, 0.173874, 0.186513};
    CHECK(signed_rank_p_greater(d, k_log_threshold) == doctest::Approx(0.011705071665346622).epsilon(1e-6));
  }
  SUBCASE("normal approximation, n = 60") {
    std::vector<double> d{0.176836, 0.180918, 0.110249, 0.165002, 0.069865, 0.16334,  0.086919, 0.146436, 0.173702,
                          0.129257, 0.154886, 0.067979, 0.107137, 0.184414, 0.092274, 0.182523, 0.080582, 0.104631,
                          0.095229, 0.150357, 0.176718, 0.09671,  0.140926, 0.231098, 0.13413,  0.109209, 0.169329,
                          0.138818, 0.114915, 0.060214, 0.190916, 0.121448, 0.150039, 0.096818, 0.215086, 0.187394,
                          0.199044, 0.144479, 0.173396, 0.19453,  0.20115,  0.165619, 0.146905, 0.132026, 0.112568,
                          0.101726, 0.168002, 0.137772, 0.050207, 0.142238, 0.203192, 0.136241, 0.057333, 0.143783,
                          0.189249, 0.1601,   0.128596, 0.242414, 0.244998, 0.145079};
    CHECK(signed_rank_p_greater(d, k_log_threshold) == doctest::Approx(0.1965674695046768).epsilon(1e-4));
  }
  SUBCASE("ties, as RSS readings in whole pages give") {
    // d = log(y/x) for x, y multiples of 4096 bytes (values as Python printed them)
    std::vector<double> d{0.14458122881110752, 0.1455423052906582,  0.14347073452708045, 0.14458122881110752,
                          0.14428270225068862, 0.14458122881110752, 0.1455423052906582,  0.14347073452708045,
                          0.14458122881110752, 0.14458122881110752, 0.14125343871843285, 0.14842000511827322};
    CHECK(signed_rank_p_greater(d, std::log(1.1555)) == doctest::Approx(0.40619018204394236).epsilon(1e-4));
    // shifting by a tied value makes zeros, which are dropped
    CHECK(signed_rank_p_greater(d, d[0]) == doctest::Approx(0.6327989283529685).epsilon(1e-4));
  }
  SUBCASE("all differences zero: p = 1, no NaN") {
    std::vector<double> zeros(10, 0.0);
    CHECK(signed_rank_p_greater(zeros, 0.0) == 1.0);
  }
}

namespace {
// n log-ratios from a multiplicative hash of 1..n, so that Python builds the
// very same doubles: near-uniform on [−0.1, 0.1), or (`tied`) thousandths
// from −0.1 to 0.1, with many ties and zeros.
std::vector<double> hashed_ratios(std::size_t n, bool tied) {
  std::vector<double> d;
  d.reserve(n);
  for (std::uint64_t i = 1; i <= n; ++i) {
    const std::uint64_t u = (i * 2654435761u) % 4294967296u;
    d.push_back(tied ? (static_cast<double>(u % 201) - 100) / 1000.0
                     : static_cast<double>(u) / 4294967296.0 * 0.2 - 0.1);
  }
  return d;
}

// A p-value scipy gives for hashed_ratios(n, tied) at `shift`.
struct HashedCase {
  std::size_t n;
  bool tied;
  double shift;
  double p;
};
} // namespace

TEST_CASE("stats::signed_rank_p_greater agrees with scipy at large n") {
  // References: scipy 1.10.1 (Debian's /usr/bin/python3), with
  //   u = (i * 2654435761) % 2**32 for i in 1..n,
  //   d = u / 2**32 * 0.2 - 0.1, or ((u % 201) - 100) / 1000.0 when tied,
  //   scipy.stats.wilcoxon(np.array(d) - shift, alternative="greater", method="approx").pvalue
  // Both sides use the tie-corrected normal approximation without continuity
  // correction; W+ and its variance are exact in doubles at these n, so the
  // only difference is the normal tail (boost vs scipy's ndtr). They agree
  // to a relative 1e-12 even at p ~ 1e-20; the check allows 1e-9.
  const std::vector<HashedCase> cases{
      {10'000, false, 0.0, 0.5048364368772367},
      {10'000, false, -0.001, 0.04418450044512275},
      {10'000, true, 0.0, 0.46897527932303457}, // zeros dropped
      {10'000, true, -0.001, 0.029855041929856607},
      {1'000'000, false, 0.0, 0.5001230538659872},
      {1'000'000, false, -0.0005, 2.8459668476466525e-18},
      {1'000'000, true, 0.0, 0.5020435429580463},
      {1'000'000, true, -0.0005, 1.9479658694436317e-20},
  };
  for (const auto& c : cases) {
    CAPTURE(c.n);
    CAPTURE(c.tied);
    CAPTURE(c.shift);
    const auto d = hashed_ratios(c.n, c.tied);
    CHECK(signed_rank_p_greater(d, c.shift) == doctest::Approx(c.p).epsilon(1e-9).scale(0));
  }
}

TEST_CASE("stats::signed_rank_p_greater_of_sorted: −d sorted by reversing d's order, as the analysis does") {
  // References: scipy 1.10.1, scipy.stats.wilcoxon(-d - shift, alternative="greater",
  // method="approx").pvalue with d as in the case above; method="exact" for n = 40,
  // whose 40 thousandths happen to be untied and non-zero.
  const std::vector<HashedCase> cases{
      {10'000, true, -0.001, 0.041967117622888885}, // ties and zeros on both sides of the shift
      {10'000, false, 0.0005, 0.7996212505550917},
      {40, true, 0.0, 0.8814748446811791}, // the exact distribution
      {200, false, -0.01, 0.014839682704047959},
  };
  for (const auto& c : cases) {
    CAPTURE(c.n);
    CAPTURE(c.tied);
    auto sorted = hashed_ratios(c.n, c.tied);
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> negated_sorted;
    std::transform(sorted.rbegin(), sorted.rend(), std::back_inserter(negated_sorted), [](double v) { return -v; });
    CHECK(signed_rank_p_greater_of_sorted(negated_sorted, c.shift) == doctest::Approx(c.p).epsilon(1e-9).scale(0));
  }
}

TEST_CASE("stats::signed_rank_interval_inverted: the shifts scipy's tie-corrected test keeps") {
  // reference: the smallest and largest Walsh average δ with
  // scipy.stats.wilcoxon(d - δ, alternative="greater" / "less", zero_method="wilcox",
  // correction=False, method="approx").pvalue ≥ 0.025
  const std::vector<double> d{0, 0, 1, -1, 2, 0, 1, 3, 1, 0, 2, -1, 1, 0, 4, 1, 2, 0, 1, 1};
  auto interval = refbench::stats::signed_rank_interval_inverted(d, 0.95);
  CHECK(interval.lo == 0.5);
  CHECK(interval.hi == 1.0);
  CHECK(interval.reaches_confidence);
  // the Walsh-average order statistics are wider here: what over-covers
  auto walsh = refbench::stats::signed_rank_interval(d, 0.95);
  CHECK(walsh.lo <= interval.lo);
  CHECK(walsh.hi >= interval.hi);
  SUBCASE("all zeros: the one point") {
    auto zeros = refbench::stats::signed_rank_interval_inverted(std::vector<double>(20, 0.0), 0.95);
    CHECK(zeros.lo == 0);
    CHECK(zeros.hi == 0);
    CHECK(zeros.reaches_confidence);
  }
  SUBCASE("without zeros or ties it is signed_rank_interval") {
    std::vector<double> untied;
    for (int i = 1; i <= 20; ++i) {
      untied.push_back(i * 1.01 - 3);
    }
    auto a = refbench::stats::signed_rank_interval_inverted(untied, 0.95);
    auto b = refbench::stats::signed_rank_interval(untied, 0.95);
    CHECK(a.lo == b.lo);
    CHECK(a.hi == b.hi);
  }
  SUBCASE("three tied values cannot reach 95 %") {
    CHECK_FALSE(refbench::stats::signed_rank_interval_inverted(std::vector<double>{1, 1, 2}, 0.95).reaches_confidence);
  }
}
