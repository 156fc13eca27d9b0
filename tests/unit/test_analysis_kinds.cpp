// Count metrics, ceilings and SLOs (docs/manual/config.md#metric-kinds-ceilings-and-slos, ceilings and SLOs):
// the difference and its interval against closed forms and scipy, the
// verdict rules on the difference scale, censoring at a configured limit,
// and SLO shares with the "SLO broken" REGRESSION.
#include <doctest/doctest.h>

#include <refbench/analysis/analysis.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/report/sweep.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/stats/verdict.hpp>

#include <cmath>

using namespace refbench;
using namespace refbench::analysis;

namespace {

// A count metric with candidate[i] − baseline[i] = d[i] over a baseline of
// small integers (so the readings hold zeros and ties).
MetricSamples count_of(const std::vector<double>& d, double max_increase = 0) {
  MetricSamples m;
  m.metric = "errors";
  m.unit = Unit::plain;
  m.gated = true;
  m.kind = model::MetricKind::count;
  m.max_increase = max_increase;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double base = static_cast<double>(i % 3); // 0, 1, 2, 0, …
    m.baseline.push_back(base + (d[i] < 0 ? -d[i] : 0));
    m.candidate.push_back(base + (d[i] > 0 ? d[i] : 0));
  }
  return m;
}

MetricResult only(const MetricSamples& m, bool control = false) {
  Settings settings;
  settings.min_rounds = 10;
  auto results = analyze({{control ? "c-control" : "c", control, std::nullopt, {m}}}, settings);
  REQUIRE(results.size() == 1);
  return results.front();
}

std::vector<double> one_to(int n) {
  std::vector<double> d;
  for (int i = 1; i <= n; ++i) {
    d.push_back(i);
  }
  return d;
}

} // namespace

TEST_CASE("a count metric is compared by the Hodges–Lehmann difference with its signed-rank interval") {
  SUBCASE("d = 1 … 20: estimate 10.5, exact interval [7.5, 13.5] (c = 52), p as scipy's exact wilcoxon") {
    auto r = only(count_of(one_to(20), 2.25));
    CHECK(r.kind == model::MetricKind::count);
    CHECK(r.n == 20);
    CHECK(r.difference == doctest::Approx(10.5));
    CHECK(r.diff_low == doctest::Approx(7.5));
    CHECK(r.diff_high == doctest::Approx(13.5));
    CHECK(r.half_width == doctest::Approx(3.0));
    // scipy.stats.wilcoxon(d - 2.25, alternative="greater", method="exact")
    REQUIRE(r.p);
    CHECK(*r.p == doctest::Approx(6.67572021484375e-06).epsilon(1e-9));
    CHECK(std::isnan(r.ratio));
    CHECK(std::isnan(r.min_detectable_ratio));
    CHECK(r.verdict == stats::Verdict::regression);
    CHECK(report::format_ratio_interval(r) == "+10.5 [+7.5, +13.5]");
    CHECK(report::regression_reason(r) == "candidate − baseline +10.5 [+7.5, +13.5], beyond max_increase = 2.25");
    auto tolerant = only(count_of(one_to(20), 12.25));
    CHECK(*tolerant.p == doctest::Approx(0.8919162750244141).epsilon(1e-9));
    CHECK(tolerant.verdict == stats::Verdict::inconclusive);                 // [7.5, 13.5] straddles 12.25
    CHECK(only(count_of(one_to(20), 13.5)).verdict == stats::Verdict::pass); // at the gate is within it
  }
  SUBCASE("a healthy service: zeros in both arms pass a max_increase of 0") {
    auto r = only(count_of(std::vector<double>(20, 0.0)));
    CHECK(r.difference == 0);
    CHECK(r.diff_low == 0);
    CHECK(r.diff_high == 0);
    CHECK(r.baseline_median == 1); // 0, 1, 2 repeated
    CHECK(r.verdict == stats::Verdict::pass);
    CHECK(report::format_ratio_interval(r) == "±0 [±0, ±0]");
    CHECK(only(count_of(std::vector<double>(5, 0.0))).verdict == stats::Verdict::inconclusive); // < min_rounds
  }
  SUBCASE("two more errors every round: a REGRESSION at max_increase 0, a PASS at max_increase 2") {
    CHECK(only(count_of(std::vector<double>(20, 2.0))).verdict == stats::Verdict::regression);
    CHECK(only(count_of(std::vector<double>(20, 2.0), 2)).verdict == stats::Verdict::pass);
  }
  SUBCASE("fewer errors is IMPROVED, and the difference is shown as candidate − baseline") {
    auto r = only(count_of(std::vector<double>(20, -1.0)));
    CHECK(r.difference == -1);
    CHECK(r.verdict == stats::Verdict::improved);
    CHECK(report::format_ratio_interval(r) == "-1 [-1, -1]");
  }
  SUBCASE("higher is better: fewer successes is worse, shown as a negative difference") {
    auto m = count_of(std::vector<double>(20, -3.0));
    m.direction = Direction::higher_is_better;
    auto r = only(m);
    CHECK(r.difference == -3);
    CHECK(r.diff_low == -3);
    CHECK(r.diff_high == -3);
    CHECK(r.verdict == stats::Verdict::regression);
    m.max_increase = 3; // a loss of 3 is tolerated
    CHECK(only(m).verdict == stats::Verdict::pass);
  }
  SUBCASE("unpaired: the Hodges–Lehmann shift with the Mann–Whitney interval") {
    MetricSamples m;
    m.metric = "errors";
    m.kind = model::MetricKind::count;
    m.gated = true;
    m.paired = false;
    for (int i = 0; i < 20; ++i) {
      m.baseline.push_back(i % 4);
      m.candidate.push_back(i % 4 + 5);
    }
    auto r = only(m);
    CHECK(r.difference == 5);
    CHECK(r.diff_low <= 5);
    CHECK(r.diff_high >= 5);
    CHECK(r.verdict == stats::Verdict::regression);
  }
  SUBCASE("the A/A control's difference interval is the floor: a noisy control keeps a count from passing") {
    auto noisy = count_of({1, -1, 2, -2, 1, -1, 0, 0, 1, -1, 2, -2, 1, -1, 0, 0, 1, -1, 2, -2});
    auto flat = count_of(std::vector<double>(20, 0.0));
    Settings settings;
    settings.min_rounds = 10;
    auto results = analyze({{"c", false, std::nullopt, {flat}}, {"c-control", true, std::nullopt, {noisy}}}, settings);
    REQUIRE(results[1].control);
    REQUIRE(results[0].noise_floor);
    CHECK(*results[0].noise_floor == doctest::Approx(std::max(-results[1].diff_low, results[1].diff_high)));
    CHECK(*results[0].noise_floor > 0);
    CHECK(results[0].verdict == stats::Verdict::inconclusive);
    auto quiet = analyze({{"c", false, std::nullopt, {flat}}, {"c-control", true, std::nullopt, {flat}}}, settings);
    CHECK(*quiet[0].noise_floor == 0);
    CHECK(quiet[0].verdict == stats::Verdict::pass);
  }
}

TEST_CASE("censor_above and censor_below: CENSORED from 20 % of an arm's readings, naming the limit") {
  model::CustomMetric p99{.name = "p99", .key = "p99", .censor_above = 10000};
  model::RunRecord record;
  model::CellMeta meta;
  meta.metrics = std::vector<std::string>{"p99"};
  meta.gate = std::vector<std::string>{"p99"};
  meta.custom = {p99};
  record.cells = {{"load", false, model::StopReason::max_rounds, 20, std::nullopt, meta}};
  auto run_with = [&](int clipped) {
    record.samples.clear();
    for (int round = 1; round <= 20; ++round) {
      for (auto arm : {model::Arm::baseline, model::Arm::candidate}) {
        model::Outcome o;
        o.readings[model::Reading::wall] = 1;
        const bool clip = arm == model::Arm::candidate && round <= clipped;
        record.samples.push_back({0, arm, round, 0, o, {{"p99", clip ? 10000.0 : 1000.0 + round}}});
      }
    }
    auto cells = cell_samples(record, {}, {});
    REQUIRE(cells.size() == 1);
    REQUIRE(cells[0].metrics.size() == 1);
    Settings settings;
    settings.min_rounds = 10;
    return analyze(cells, settings).front();
  };
  auto clipped = run_with(4); // 4 of 20: 20 %
  CHECK(clipped.censored);
  CHECK(clipped.censor_limit == "censor_above = 10000");
  CHECK(clipped.verdict == stats::Verdict::censored);
  auto fine = run_with(3); // 15 %
  CHECK_FALSE(fine.censored);
  CHECK(fine.verdict != stats::Verdict::censored);
  SUBCASE("both arms at the ceiling are CENSORED, never PASS") {
    auto all = run_with(20);
    for (auto& sample : record.samples) {
      sample.values["p99"] = 10000;
    }
    Settings settings;
    settings.min_rounds = 10;
    auto both = analyze(cell_samples(record, {}, {}), settings).front();
    CHECK(both.ratio == doctest::Approx(1.0));
    CHECK(both.verdict == stats::Verdict::censored);
    CHECK(all.verdict == stats::Verdict::censored);
  }
  SUBCASE("censor_below counts readings at or below it; both limits are named") {
    record.cells[0].meta.custom[0].censor_below = 1001;
    auto low = run_with(0); // round 1 of each arm reads 1001: 5 %
    CHECK_FALSE(low.censored);
    record.cells[0].meta.custom[0].censor_below = 1004; // rounds 1–4: 20 %
    auto floor = run_with(0);
    CHECK(floor.censored);
    CHECK(floor.censor_limit == "censor_above = 10000 or censor_below = 1004");
  }
}

TEST_CASE("an SLO: each arm's share that met it, and a candidate breaking it is a REGRESSION") {
  MetricSamples m;
  m.metric = "p99";
  m.unit = Unit::plain;
  m.unit_label = "ms";
  m.gated = true;
  m.slo = model::Slo{"<=", 5000};
  for (int i = 0; i < 20; ++i) {
    m.baseline.push_back(4900 + i);                     // all meet it
    m.candidate.push_back(i < 8 ? 4950.0 : 5050.0 + i); // 8 of 20 meet it
  }
  auto r = only(m);
  REQUIRE(r.baseline_slo_share);
  CHECK(*r.baseline_slo_share == 1.0);
  CHECK(*r.candidate_slo_share == doctest::Approx(0.4));
  CHECK(r.slo_broken);
  CHECK(r.verdict == stats::Verdict::regression);
  CHECK(r.ci_high < 1.05); // the ratio alone would say PASS
  CHECK(report::format_verdict(r) == "REGRESSION (SLO broken)");
  CHECK(report::format_metric_value(10000, Unit::plain, "ms") == "10000 ms"); // a ceiling in full, not 1e+04
  CHECK(report::format_metric_value(0.5, Unit::plain) == "0.5");
  CHECK(report::regression_reason(r) == "SLO `<= 5000` broken: candidate median 5060 ms (baseline 4910 ms)");

  SUBCASE("the A/A control shows its shares but never breaks an SLO") {
    Settings settings;
    settings.min_rounds = 10;
    auto control = analyze({{"c-control", true, std::nullopt, {m}}}, settings).front();
    CHECK(*control.candidate_slo_share == doctest::Approx(0.4));
    CHECK_FALSE(control.slo_broken);
    CHECK(control.verdict != stats::Verdict::regression);
  }
  SUBCASE("an SLO the baseline broke too is no news") {
    auto both = m;
    both.slo = model::Slo{"<=", 4905};
    auto r2 = only(both);
    CHECK_FALSE(r2.slo_broken);
    CHECK(*r2.baseline_slo_share == doctest::Approx(0.3));
    CHECK(*r2.candidate_slo_share == 0);
    CHECK(r2.verdict == stats::Verdict::pass);
  }
  SUBCASE("a floor (>=) on successes, higher is better, ungated: REGRESSION (info) though within max_increase") {
    auto count = count_of(std::vector<double>(20, 0.0)); // baseline 0, 1, 2, …: median 1
    count.gated = false;
    count.direction = Direction::higher_is_better;
    count.max_increase = 5; // a drop of up to 5 is tolerated
    count.slo = model::Slo{">=", 0.5};
    for (auto& v : count.candidate) {
      v = 0; // the candidate never reaches 0.5
    }
    auto r3 = only(count);
    CHECK(r3.slo_broken);
    CHECK(r3.verdict == stats::Verdict::regression);
    CHECK(report::format_verdict(r3) == "REGRESSION (SLO broken) (info)");
    CHECK(overall_verdict({r3}) == RunVerdict::pass); // not gated
  }
}

TEST_CASE("stats::decide on the difference scale") {
  stats::VerdictInput in;
  in.scale = stats::Scale::difference;
  in.n = 20;
  in.min_rounds = 10;
  in.threshold = 0;
  in.p = 1;
  in.ci_low = 0;
  in.ci_high = 0;
  CHECK(stats::decide(in) == stats::Verdict::pass); // at the gate
  in.noise_floor = 0;
  CHECK(stats::decide(in) == stats::Verdict::pass); // a floor at the gate
  in.noise_floor = 0.5;
  CHECK(stats::decide(in) == stats::Verdict::inconclusive);
  in.noise_floor.reset();
  in.ci_low = -2;
  in.ci_high = -1;
  CHECK(stats::decide(in) == stats::Verdict::pass); // untested against no change: no IMPROVED
  in.p_better = 0.01;
  CHECK(stats::decide(in) == stats::Verdict::improved);
  in.ci_low = 0.5;
  in.ci_high = 2;
  CHECK(stats::decide(in) == stats::Verdict::inconclusive); // p not below alpha
  in.p = 0.01;
  CHECK(stats::decide(in) == stats::Verdict::regression);
  in.ci_low = 0;
  in.ci_high = 0;
  in.slo_broken = true;
  in.censored = true;
  CHECK(stats::decide(in) == stats::Verdict::regression); // a broken SLO before censoring
  in.error = true;
  CHECK(stats::decide(in) == stats::Verdict::error);
  stats::VerdictInput ratio = in;
  ratio.scale = stats::Scale::ratio;
  ratio.error = ratio.slo_broken = ratio.censored = false;
  ratio.threshold = 1.15;
  ratio.ci_low = 0.99;
  ratio.ci_high = 1.15;
  CHECK(stats::decide(ratio) == stats::Verdict::inconclusive); // a ratio must be below its threshold
}

TEST_CASE("a new cell: the candidate's median and count, NEW, never gated; ERROR when it failed") {
  MetricSamples m;
  m.metric = "wall";
  m.gated = true;
  m.candidate = {0.3, 0.1, 0.2};
  CellSamples cell{"added", false, std::nullopt, {m}};
  cell.candidate_only = true;
  auto r = analyze({cell}, {}).front();
  CHECK(r.verdict == stats::Verdict::new_cell);
  CHECK(stats::verdict_name(r.verdict) == "NEW");
  CHECK(r.candidate_only);
  CHECK_FALSE(r.gated);
  CHECK(r.n == 3);
  CHECK(r.candidate_median == doctest::Approx(0.2));
  CHECK(std::isnan(r.baseline_median));
  CHECK(std::isnan(r.ratio));
  CHECK_FALSE(r.p);
  CHECK(report::format_verdict(r) == "NEW");
  CHECK(overall_verdict({r}) == RunVerdict::inconclusive); // a NEW cell alone: nothing compared, nothing passes
  cell.error = "the candidate command exited with code 1 in round 2";
  auto failed = analyze({cell}, {}).front();
  CHECK(failed.verdict == stats::Verdict::error);
  CHECK(overall_verdict({failed}) == RunVerdict::error);
}

TEST_CASE("report::render_xychart writes numbers Mermaid reads: plain decimals, never an exponent") {
  const auto chart = report::render_xychart("t \"q\"", "users", {"1", "2", "3"}, "req/s",
                                            {{1234567.0, 0.00004, 0.5}, {-0.0, 2.5e-9, 1e15}});
  CHECK(chart.find("line [1234567, 0.00004, 0.5]") != std::string::npos);
  CHECK(chart.find("line [0, 0.0000000025, 1000000000000000]") != std::string::npos);
  CHECK(chart.find("e+") == std::string::npos); // no exponent anywhere
  CHECK(chart.find("e-") == std::string::npos);
  CHECK(chart.find("title \"t 'q'\"") != std::string::npos);
  CHECK(chart.starts_with("```mermaid\n"));
}
