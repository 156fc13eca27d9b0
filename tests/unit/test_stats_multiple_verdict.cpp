#include <doctest/doctest.h>

#include <refbench/stats/multiple.hpp>
#include <refbench/stats/verdict.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace refbench::stats;

TEST_CASE("stats::benjamini_hochberg") {
  SUBCASE("worked by hand") {
    // sorted: 0.005 (1), 0.01 (2), 0.03 (3), 0.04 (4) → 0.02, 0.02, 0.04, 0.04
    auto adjusted = benjamini_hochberg(std::vector<double>{0.01, 0.04, 0.03, 0.005});
    CHECK(adjusted[0] == doctest::Approx(0.02));
    CHECK(adjusted[1] == doctest::Approx(0.04));
    CHECK(adjusted[2] == doctest::Approx(0.04));
    CHECK(adjusted[3] == doctest::Approx(0.02));
  }
  SUBCASE("Benjamini & Hochberg (1995), section 4: 4 of 15 rejected at q = 0.05") {
    std::vector<double> p{0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                          0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
    auto adjusted = benjamini_hochberg(p);
    CHECK(std::count_if(adjusted.begin(), adjusted.end(), [](double q) { return q <= 0.05; }) == 4);
    CHECK(std::all_of(adjusted.begin(), adjusted.end(), [](double q) { return q <= 1.0; }));
  }
  SUBCASE("empty") { CHECK(benjamini_hochberg(std::vector<double>{}).empty()); }
}

TEST_CASE("stats::decide follows docs/manual/statistics.md, verdicts in order") {
  VerdictInput base;
  base.n = 30;
  base.min_rounds = 10;
  base.threshold = 1.15;
  base.alpha = 0.05;
  base.noise_floor = 1.03;

  base.p_better = 0.01; // below no change, after BH
  auto with = [&](double lo, double hi, double p) {
    VerdictInput in = base;
    in.ci_low = lo;
    in.ci_high = hi;
    in.p = p;
    return in;
  };
  CHECK(decide(with(1.20, 1.25, 0.001)) == Verdict::regression);
  CHECK(decide(with(1.20, 1.25, 0.20)) == Verdict::inconclusive);  // not significant after BH
  CHECK(decide(with(1.10, 1.25, 0.001)) == Verdict::inconclusive); // straddles T
  CHECK(decide(with(0.80, 0.95, 1.0)) == Verdict::improved);
  CHECK(decide(with(0.95, 1.10, 1.0)) == Verdict::pass);
  SUBCASE("the A/A control has no small IMPROVED: a move inside T is its noise, a PASS") {
    auto in = with(0.951, 0.969, 1.0);
    in.aa_control = true;
    CHECK(decide(in) == Verdict::pass);
    in.aa_control = false;
    CHECK(decide(in) == Verdict::improved);
  }
  SUBCASE("error and censored come first") {
    auto in = with(1.20, 1.25, 0.001);
    in.censored = true;
    CHECK(decide(in) == Verdict::censored);
    in.error = true;
    CHECK(decide(in) == Verdict::error);
  }
  SUBCASE("a floor at or above T allows no PASS or IMPROVED") {
    auto in = with(0.95, 1.10, 1.0);
    in.noise_floor = 1.15;
    CHECK(decide(in) == Verdict::inconclusive);
    in = with(0.80, 0.95, 1.0);
    in.noise_floor = 1.2;
    CHECK(decide(in) == Verdict::inconclusive);
  }
  SUBCASE("an unknown floor uses the cell's own interval") {
    auto in = with(0.95, 1.10, 1.0);
    in.noise_floor.reset();
    CHECK(decide(in) == Verdict::pass);
  }
  SUBCASE("an interval short of its confidence: no PASS or IMPROVED") {
    auto in = with(0.95, 0.99, 1.0);
    in.interval_reaches_confidence = false;
    CHECK(decide(in) == Verdict::inconclusive);
  }
  SUBCASE("too few pairs: no PASS") {
    auto in = with(0.95, 1.10, 1.0);
    in.n = 5;
    CHECK(decide(in) == Verdict::inconclusive);
  }
  SUBCASE("NaN interval (no pairs) is INCONCLUSIVE") {
    auto in = with(std::nan(""), std::nan(""), 1.0);
    in.n = 0;
    CHECK(decide(in) == Verdict::inconclusive);
  }
  CHECK(verdict_name(Verdict::regression) == "REGRESSION");
}

TEST_CASE("stats::decide: one rule in both directions, a wide floor blocks only PASS and small changes") {
  // the figures of a noisy runner: a 2x speedup beside an A/A control of ±22 %
  VerdictInput base;
  base.n = 20;
  base.min_rounds = 10;
  base.threshold = 1.15;
  base.alpha = 0.05;
  base.noise_floor = 1.218;
  auto with = [&](double lo, double hi, double p, double p_improved) {
    VerdictInput in = base;
    in.ci_low = lo;
    in.ci_high = hi;
    in.p = p;
    in.p_improved = p_improved;
    return in;
  };
  CHECK(decide(with(0.413, 0.527, 1.0, 0.001)) == Verdict::improved);
  CHECK(decide(with(1 / 0.527, 1 / 0.413, 0.001, 1.0)) == Verdict::regression); // its mirror image
  SUBCASE("a clear change needs its p, in its own direction") {
    CHECK(decide(with(0.413, 0.527, 1.0, 0.2)) == Verdict::inconclusive);
    CHECK(decide(with(0.413, 0.527, 0.001, 1.0)) == Verdict::inconclusive);
    CHECK(decide(with(1 / 0.527, 1 / 0.413, 1.0, 0.001)) == Verdict::inconclusive);
  }
  SUBCASE("the interval must lie wholly past 1 / T") {
    CHECK(1 / 1.15 == doctest::Approx(0.8696).epsilon(1e-4));
    CHECK(decide(with(0.60, 0.87, 1.0, 0.001)) == Verdict::inconclusive); // 0.87 > 1 / 1.15
    CHECK(decide(with(0.60, 0.869, 1.0, 0.001)) == Verdict::improved);
  }
  SUBCASE("small changes and PASS still need a floor below T") {
    CHECK(decide(with(0.90, 0.97, 1.0, 1.0)) == Verdict::inconclusive);
    CHECK(decide(with(0.95, 1.05, 1.0, 1.0)) == Verdict::inconclusive);
    auto quiet = with(0.90, 0.97, 1.0, 1.0);
    quiet.noise_floor = 1.02;
    quiet.p_better = 0.01;
    CHECK(decide(quiet) == Verdict::improved);
  }
  SUBCASE("a small improvement needs its BH-adjusted test against no change and to clear the row's floor") {
    // a compression row of a 57-row suite: 0.988x [0.961, 0.997] beside its own A/A floor of ±1.9 %
    auto row = with(0.961, 0.997, 1.0, 1.0);
    row.noise_floor = 1.019;
    row.p_better = 0.001;
    CHECK(decide(row) == Verdict::pass); // 0.997 > 1 / 1.019: inside the floor
    row.ci_high = 0.980;                 // below 1 / 1.019 = 0.9814
    CHECK(decide(row) == Verdict::improved);
    row.p_better = 0.2; // not significant once adjusted across the suite's rows
    CHECK(decide(row) == Verdict::pass);
    row.noise_floor.reset(); // no control: the test alone
    CHECK(decide(row) == Verdict::pass);
    row.p_better = 0.01;
    CHECK(decide(row) == Verdict::improved);
  }
  SUBCASE("like REGRESSION, a clear improvement needs neither min_rounds nor a full-confidence interval") {
    auto in = with(0.40, 0.55, 1.0, 0.03);
    in.n = 5;
    in.interval_reaches_confidence = false;
    CHECK(decide(in) == Verdict::improved);
    in.ci_low = 1 / 0.55;
    in.ci_high = 1 / 0.40;
    in.p = 0.03;
    in.p_improved = 1.0;
    CHECK(decide(in) == Verdict::regression);
  }
  SUBCASE("the difference scale mirrors max_increase") {
    auto in = with(-3, -1, 1.0, 0.001);
    in.scale = Scale::difference;
    in.threshold = 0.5;
    in.noise_floor = 2;
    CHECK(better_threshold(Scale::difference, 0.5) == -0.5);
    CHECK(decide(in) == Verdict::improved);
    in.ci_low = -0.4;
    in.ci_high = -0.1;
    CHECK(decide(in) == Verdict::inconclusive); // inside the gate: the floor decides
    in.noise_floor = 0.3;
    in.p_better = 0.01;
    CHECK(decide(in) == Verdict::pass); // -0.1 is inside the floor's mirror -0.3
    in.ci_high = -0.35;
    CHECK(decide(in) == Verdict::improved);
    in.ci_low = 1;
    in.ci_high = 3;
    in.p = 0.001;
    in.p_improved = 1.0;
    CHECK(decide(in) == Verdict::regression);
  }
  CHECK(better_threshold(Scale::ratio, 1.25) == doctest::Approx(0.8));
}

TEST_CASE("stats::noise_floor") {
  CHECK(noise_floor(0.95, 1.03) == doctest::Approx(1.0 / 0.95));
  CHECK(noise_floor(0.99, 1.08) == doctest::Approx(1.08));
}
