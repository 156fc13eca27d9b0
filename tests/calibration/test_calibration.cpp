#include "simulate.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/analysis/analysis.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/stats/signed_rank.hpp>
#include <refbench/stats/trend.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <cstdio>
#include <doctest/doctest.h>

using namespace calibration;
using namespace refbench;

namespace {

constexpr double k_threshold = 1.15;

struct Rates {
  double excludes_one = 0;
  double regression = 0;
};

// A/A runs of `n` rounds: how often the interval excludes 1 and how often a
// REGRESSION at 1.15x is called.
Rates aa_rates(Model model, int n, std::uint64_t seed) {
  Noise noise(seed);
  int excludes = 0;
  int regressions = 0;
  const int total = runs();
  analysis::Settings settings;
  settings.min_rounds = 10;
  for (int run = 0; run < total; ++run) {
    auto d = paired_log_ratios(model, noise, n, 1.0);
    auto results = analysis::analyze({cell_from("aa", d)}, settings);
    const auto& r = results.front();
    excludes += (r.ci_low > 1.0 || r.ci_high < 1.0) ? 1 : 0;
    regressions += r.verdict == stats::Verdict::regression ? 1 : 0;
  }
  return {static_cast<double>(excludes) / total, static_cast<double>(regressions) / total};
}

} // namespace

TEST_CASE("calibration: A/A false positives and coverage per noise model") {
  for (Model model : {Model::normal, Model::student_t3, Model::bursts, Model::drift}) {
    for (int n : {10, 20, 40}) {
      auto rates = aa_rates(model, n, 1000 + static_cast<std::uint64_t>(model) * 10 + static_cast<std::uint64_t>(n));
      std::printf("A/A %-30s n=%2d: interval excludes 1.0 in %5.2f %%, REGRESSION in %4.2f %%\n", model_name(model), n,
                  100 * rates.excludes_one, 100 * rates.regression);
      CAPTURE(model_name(model));
      CAPTURE(n);
      CHECK(rates.excludes_one >= 0.033);
      CHECK(rates.excludes_one <= 0.068);
      CHECK(rates.regression < 0.005);
      // coverage = 1 - excludes: [93 %, 97 %] at n ≥ 20, ≥ 92 % at n = 10
      if (n >= 20) {
        CHECK(1 - rates.excludes_one >= 0.93);
        CHECK(1 - rates.excludes_one <= 0.97);
      } else {
        CHECK(1 - rates.excludes_one >= 0.92);
      }
    }
  }
}

TEST_CASE("calibration: coverage of a true 1.25x ratio") {
  for (Model model : {Model::normal, Model::student_t3, Model::bursts}) {
    Noise noise(77 + static_cast<std::uint64_t>(model));
    int covered = 0;
    int flagged = 0;
    const int total = runs();
    for (int run = 0; run < total; ++run) {
      auto d = paired_log_ratios(model, noise, 30, 1.25);
      auto r = analysis::analyze({cell_from("ab", d)}, {}).front();
      covered += (r.ci_low <= 1.25 && 1.25 <= r.ci_high) ? 1 : 0;
      flagged += r.verdict == stats::Verdict::regression ? 1 : 0;
    }
    double coverage = static_cast<double>(covered) / total;
    std::printf("A/B 1.25x %-30s n=30: coverage %5.2f %%, REGRESSION found in %5.2f %%\n", model_name(model),
                100 * coverage, 100.0 * flagged / total);
    CAPTURE(model_name(model));
    CHECK(coverage >= 0.93);
    CHECK(coverage <= 0.97);
  }
}

TEST_CASE("calibration: coverage of a count metric's difference interval, zeros and ties included") {
  // baseline X and candidate Y = X' + shift with X, X' independent alike: the
  // paired differences are symmetric about `shift`, which the interval covers
  struct Case {
    CountModel model;
    double mean;
    double shift;
    const char* name;
  };
  const Case cases[] = {{CountModel::poisson, 0.5, 0, "Poisson(0.5), no change"},
                        {CountModel::poisson, 3, 0, "Poisson(3), no change"},
                        {CountModel::poisson, 3, 2, "Poisson(3), +2"},
                        {CountModel::poisson, 20, 5, "Poisson(20), +5"},
                        {CountModel::zero_inflated_rate, 2, 0, "zero-inflated rate, no change"},
                        {CountModel::zero_inflated_rate, 2, 0.5, "zero-inflated rate, +0.5"}};
  for (const auto& c : cases) {
    for (int n : {20, 40}) {
      Noise noise(4242 + static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(c.mean * 10 + c.shift));
      int covered = 0;
      int at_shift = 0; // differences that tie with the true one
      const int total = runs();
      for (int run = 0; run < total; ++run) {
        analysis::MetricSamples m;
        m.metric = "errors";
        m.kind = model::MetricKind::count;
        m.gated = true;
        for (int i = 0; i < n; ++i) {
          m.baseline.push_back(count_reading(c.model, noise, c.mean));
          m.candidate.push_back(count_reading(c.model, noise, c.mean) + c.shift);
          at_shift += m.candidate.back() - m.baseline.back() == c.shift ? 1 : 0;
        }
        auto r = analysis::analyze({{"count", false, std::nullopt, {m}}}, {}).front();
        covered += (r.diff_low <= c.shift && c.shift <= r.diff_high) ? 1 : 0;
      }
      const double coverage = static_cast<double>(covered) / total;
      std::printf("count %-30s n=%d: coverage %5.2f %% (%4.1f %% of differences tie at the true one)\n", c.name, n,
                  100 * coverage, 100.0 * at_shift / (static_cast<double>(total) * n));
      CAPTURE(c.name);
      CAPTURE(n);
      CHECK(coverage >= 0.93);
      CHECK(coverage <= 0.97);
    }
  }
}

TEST_CASE("calibration: Benjamini–Hochberg keeps the false discovery rate ≤ 5 % over 20 cells") {
  // 15 cells exactly at the threshold (the worst case of H0), 5 at 1.35x.
  Noise noise(4242);
  const int total = runs();
  double fdr_sum = 0;
  int found_true = 0;
  for (int run = 0; run < total; ++run) {
    std::vector<analysis::CellSamples> cells;
    for (int c = 0; c < 20; ++c) {
      double ratio = c < 15 ? k_threshold : 1.35;
      cells.push_back(cell_from("cell" + std::to_string(c), paired_log_ratios(Model::normal, noise, 20, ratio)));
    }
    auto results = analysis::analyze(cells, {});
    int discoveries = 0;
    int false_discoveries = 0;
    for (std::size_t c = 0; c < results.size(); ++c) {
      if (results[c].verdict == stats::Verdict::regression) {
        ++discoveries;
        false_discoveries += c < 15 ? 1 : 0;
        found_true += c >= 15 ? 1 : 0;
      }
    }
    fdr_sum += discoveries > 0 ? static_cast<double>(false_discoveries) / discoveries : 0.0;
  }
  double fdr = fdr_sum / total;
  std::printf("BH over 20 cells (15 at 1.15x, 5 at 1.35x, n=20): FDR %4.2f %%, power %5.2f %%\n", 100 * fdr,
              100.0 * found_true / (5.0 * total));
  CHECK(fdr <= 0.05);
  CHECK(found_true > 0.5 * 5 * total); // the gate still finds real regressions
}

TEST_CASE("calibration: precision stopping keeps coverage ≥ 93 %") {
  // Whole A/A runs through the real scheduler (fake executor), stopping with
  // the same precision rule as compare: n ≥ 10 and half-width ≤ 0.02.
  for (Model model : {Model::normal, Model::student_t3}) {
    Noise noise(900 + static_cast<std::uint64_t>(model));
    int covered = 0;
    int stopped_on_precision = 0;
    double rounds = 0;
    const int total = runs();
    for (int run = 0; run < total; ++run) {
      doubles::FakeExecutor fake([&](const model::Invocation&, std::size_t index) {
        model::Outcome outcome;
        outcome.readings[model::Reading::wall] = 0.1 * std::exp(log_noise(model, noise, static_cast<int>(index), 120));
        return outcome;
      });
      model::Invocation same{{"prog"}, {}, "", {}, ""};
      model::RoundSettings settings{1e9, 60, 10, 0, static_cast<std::uint64_t>(run)};
      analysis::Settings analysis_settings;
      analysis_settings.min_rounds = 10;
      formats::JournalWriter journal;
      runner::RoundHooks hooks;
      hooks.clock = [&] { return fake.now(); };
      hooks.precise = [&](const model::RunRecord& record, std::size_t cell) {
        return analysis::precise_enough(record, cell, {model::Metric::wall}, 0.02, analysis_settings);
      };
      auto record = runner::run_rounds({{"aa", same, same, false}}, settings, fake, journal, hooks);
      auto pairs = model::complete_pairs(record, 0, model::Metric::wall);
      auto d = analysis::log_ratios(pairs.baseline, pairs.candidate, analysis::Direction::lower_is_better);
      auto interval = stats::signed_rank_interval(d, 0.95);
      covered += (interval.lo <= 0 && 0 <= interval.hi) ? 1 : 0;
      stopped_on_precision += record.cells[0].stop == model::StopReason::precision ? 1 : 0;
      rounds += static_cast<double>(d.size());
    }
    double coverage = static_cast<double>(covered) / total;
    std::printf("precision stop (0.02) %-30s: coverage %5.2f %%, mean rounds %4.1f, stopped on precision %5.1f %%\n",
                model_name(model), 100 * coverage, rounds / total, 100.0 * stopped_on_precision / total);
    CAPTURE(model_name(model));
    CHECK(coverage >= 0.93);
    CHECK(stopped_on_precision > total / 2); // the rule is exercised, not just max-rounds
  }
}

TEST_CASE("calibration: a 20 % machine-speed step mid-run, interleaved vs sequential") {
  // The machine gets 20 % slower after half of the invocations; A/A, so the
  // true ratio is 1. Small normal noise on top.
  const int rounds = 40;
  const std::size_t invocations = 2 * rounds;
  auto machine = [&](std::size_t index, Noise& noise) {
    return 0.1 * (index >= invocations / 2 ? 1.2 : 1.0) * std::exp(0.005 * noise.normal());
  };

  // interleaved and shuffled, through the real scheduler and the fake executor
  Noise noise_a(5);
  doubles::FakeExecutor fake([&](const model::Invocation&, std::size_t index) {
    model::Outcome outcome;
    outcome.readings[model::Reading::wall] = machine(index, noise_a);
    return outcome;
  });
  model::Invocation same{{"prog"}, {}, "", {}, ""};
  model::RoundSettings settings{1e9, rounds, rounds, 0, 31};
  formats::JournalWriter journal;
  runner::RoundHooks hooks;
  hooks.clock = [&] { return fake.now(); };
  auto record = runner::run_rounds({{"aa", same, same, false}}, settings, fake, journal, hooks);
  auto pairs = model::complete_pairs(record, 0, model::Metric::wall);
  analysis::MetricSamples interleaved{"wall",
                                      analysis::Unit::seconds,
                                      analysis::Direction::lower_is_better,
                                      true,
                                      true,
                                      pairs.baseline,
                                      pairs.candidate,
                                      {},
                                      {},
                                      std::nullopt};
  auto shuffled = analysis::analyze({{"interleaved", false, std::nullopt, {interleaved}}}, {}).front();

  // sequential: all baseline invocations, then all candidate invocations
  Noise noise_b(5);
  analysis::MetricSamples sequential = interleaved;
  sequential.baseline.clear();
  sequential.candidate.clear();
  for (std::size_t i = 0; i < invocations; ++i) {
    (i < invocations / 2 ? sequential.baseline : sequential.candidate).push_back(machine(i, noise_b));
  }
  auto in_order = analysis::analyze({{"sequential", false, std::nullopt, {sequential}}}, {}).front();

  std::printf("20 %% step mid-run: interleaved ratio %.4fx, sequential ratio %.4fx\n", shuffled.ratio, in_order.ratio);
  CHECK(shuffled.ratio == doctest::Approx(1.0).epsilon(0.01));
  CHECK(in_order.ratio > 1.15);
  CHECK(in_order.verdict == stats::Verdict::regression); // a sequential schedule would cry wolf
}

namespace {

// What `runs()` noisy-runner runs of `rounds` rounds gave (the test below).
struct NoisyRates {
  int wide = 0;         // runs whose wall noise floor is at or above the threshold
  int aa_decided = 0;   // of those, runs where the A/A cell came out REGRESSION or IMPROVED
  int slower_found = 0; // … the 2x slower cell REGRESSION
  int faster_found = 0; // … the 2x faster cell IMPROVED
  // the same under the rule not taken (docs/design.md, Verdicts): a clear
  // change must also lie past the floor ±f itself
  int aa_widened = 0;
  int slower_widened = 0;
  int faster_widened = 0;
};

// A clear change under the rule not taken: past max(T, f) upwards, or
// min(1/T, 1/f) downwards, with its BH-adjusted p.
bool widened_up(const analysis::MetricResult& r, double floor) {
  return r.ci_low > std::max(k_threshold, floor) && r.p_bh.value_or(1) < 0.05;
}
bool widened_down(const analysis::MetricResult& r, double floor) {
  return r.ci_high < std::min(1 / k_threshold, 1 / floor) && r.p_improved_bh.value_or(1) < 0.05;
}

NoisyRates noisy_runner(int rounds, std::uint64_t seed) {
  Noise noise(seed);
  NoisyRates rates;
  for (int run = 0; run < runs(); ++run) {
    double clock = 0;
    doubles::FakeExecutor fake([&](const model::Invocation& invocation, std::size_t) {
      const double nominal = 0.08 * std::stod(invocation.argv.at(1));
      const double hog = std::fmod(clock, 3.0) < 1.0 ? 1.8 : 1.0;
      model::Outcome outcome;
      outcome.readings[model::Reading::wall] = nominal * (0.5 + noise.uniform()) * hog;
      clock += outcome.readings[model::Reading::wall];
      return outcome;
    });
    auto prog = [](const char* factor) { return model::Invocation{{"prog", factor}, {}, "", {}, ""}; };
    std::vector<model::CellSpec> cells{{"aa", prog("1"), prog("1"), false},
                                       {"slower", prog("1"), prog("2"), false},
                                       {"faster", prog("1"), prog("0.5"), false}};
    cells.push_back(model::control_of(cells[0]));
    model::RoundSettings settings{1e9, rounds, rounds, 0, static_cast<std::uint64_t>(run) + 1};
    formats::JournalWriter journal;
    runner::RoundHooks hooks;
    hooks.clock = [&] { return fake.now(); };
    const auto record = runner::run_rounds(cells, settings, fake, journal, hooks);
    analysis::Settings analysis_settings;
    analysis_settings.min_rounds = 10;
    const auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {model::Metric::wall}),
                                           analysis_settings);
    REQUIRE(results.size() == 4);
    REQUIRE(results[3].control);
    REQUIRE(results[0].noise_floor.has_value());
    if (*results[0].noise_floor < k_threshold) {
      continue;
    }
    ++rates.wide;
    const auto decided = [](stats::Verdict v) {
      return v == stats::Verdict::regression || v == stats::Verdict::improved;
    };
    rates.aa_decided += decided(results[0].verdict) ? 1 : 0;
    rates.slower_found += results[1].verdict == stats::Verdict::regression ? 1 : 0;
    rates.faster_found += results[2].verdict == stats::Verdict::improved ? 1 : 0;
    const double floor = *results[0].noise_floor;
    rates.aa_widened += widened_up(results[0], floor) || widened_down(results[0], floor) ? 1 : 0;
    rates.slower_widened += widened_up(results[1], floor) ? 1 : 0;
    rates.faster_widened += widened_down(results[2], floor) ? 1 : 0;
  }
  return rates;
}

} // namespace

TEST_CASE("calibration: a floor wider than the threshold: no false REGRESSION or IMPROVED, a 2x change decided") {
  // A noisy runner through the real scheduler: every invocation's work is
  // uniform in 50 … 150 % of its nominal time (as `$(( RANDOM % 100 + 50 ))`
  // iterations), and a CPU hog beside it runs 1 s on, 2 s off, making
  // whatever runs while it is on 1.8x slower (a round takes about a second,
  // so two rounds in three straddle the hog's edge). One run: an A/A cell, a
  // cell 2x slower, one 2x faster and the A/A control of the first. Per
  // number of rounds: A/A decided in at most `false_rate` of runs, each 2x
  // change in at least `power`.
  struct Case {
    int rounds;
    double false_rate;
    double power;
  };
  for (const Case c : {Case{12, 0.01, 0.80}, Case{20, 0.005, 0.97}, Case{30, 0.005, 0.99}}) {
    const auto r = noisy_runner(c.rounds, 2929 + static_cast<std::uint64_t>(c.rounds));
    const int wide = std::max(r.wide, 1);
    std::printf("noisy runner (work 50-150 %%, a 1 s on / 2 s off hog), %d rounds: floor >= %.2fx in %5.1f %% of runs; "
                "there: A/A REGRESSION or IMPROVED %4.2f %%, 2x slower REGRESSION %5.1f %%, 2x faster IMPROVED "
                "%5.1f %%\n",
                c.rounds, k_threshold, 100.0 * r.wide / runs(), 100.0 * r.aa_decided / wide,
                100.0 * r.slower_found / wide, 100.0 * r.faster_found / wide);
    std::printf("  the rule not taken (past the floor too): A/A %4.2f %%, 2x slower %5.1f %%, 2x faster %5.1f %%\n",
                100.0 * r.aa_widened / wide, 100.0 * r.slower_widened / wide, 100.0 * r.faster_widened / wide);
    CAPTURE(c.rounds);
    CHECK(r.wide >= 0.9 * runs()); // the case is what it says: the floor is wider than the threshold
    CHECK(r.aa_decided <= c.false_rate * wide);
    CHECK(r.slower_found >= c.power * wide);
    CHECK(r.faster_found >= c.power * wide);
  }
}

TEST_CASE("calibration: a chain of links, cumulative interval coverage") {
  // every night a link: n = 20 paired log-ratios around that night's step,
  // analysed as the run would; the chain's interval must cover the product
  for (Model model : {Model::normal, Model::student_t3}) {
    for (int links : {5, 15, 30}) {
      Noise noise(4100 + static_cast<std::uint64_t>(model) * 100 + static_cast<std::uint64_t>(links));
      int covered = 0;
      const int total = runs();
      for (int run = 0; run < total; ++run) {
        std::vector<stats::Link> chain;
        double truth = 0;
        for (int link = 0; link < links; ++link) {
          const double step = link % 3 == 0 ? std::log(1.04) : 0.0; // small steps, none a regression
          truth += step;
          auto d = paired_log_ratios(model, noise, 20, std::exp(step));
          auto r = analysis::analyze({cell_from("link", d)}, {}).front();
          chain.push_back({std::log(r.ratio), std::log(r.ci_low), std::log(r.ci_high), d.size()});
        }
        const auto total_link = stats::chain(chain);
        covered += total_link.low <= truth && truth <= total_link.high ? 1 : 0;
      }
      const double coverage = static_cast<double>(covered) / total;
      std::printf("chain %-30s %2d links: cumulative coverage %5.2f %%\n", model_name(model), links, 100 * coverage);
      CAPTURE(model_name(model));
      CAPTURE(links);
      // each link read as a t interval on n − 1 degrees of freedom, the sum on Welch–Satterthwaite's
      // (docs/design.md, Chained links)
      CHECK(coverage >= 0.93);
      CHECK(coverage <= 0.97);
    }
  }
}

TEST_CASE("calibration: E-divisive finds an 8 % step in 30 nights of 2 % noise, and none in flat series") {
  Noise noise(5150);
  int found = 0;
  int found_right = 0;
  int flat_none = 0;
  const int total = runs() / 2;
  for (int run = 0; run < total; ++run) {
    std::vector<double> stepped;
    std::vector<double> flat;
    const int at = 8 + static_cast<int>(noise.uniform() * 14); // the step's night, 8..21
    for (int night = 0; night < 30; ++night) {
      stepped.push_back((night >= at ? std::log(1.08) : 0.0) + 0.02 * noise.normal());
      flat.push_back(0.02 * noise.normal());
    }
    const auto changes = stats::e_divisive(stepped, {0.05, 3, 199, static_cast<std::uint64_t>(run) + 1});
    found += changes.empty() ? 0 : 1;
    found_right +=
        std::any_of(changes.begin(), changes.end(),
                    [&](const stats::ChangePoint& c) { return std::abs(static_cast<int>(c.index) - at) <= 1; })
            ? 1
            : 0;
    flat_none += stats::e_divisive(flat, {0.05, 3, 199, static_cast<std::uint64_t>(run) + 7}).empty() ? 1 : 0;
  }
  std::printf(
      "E-divisive: 8 %% step found in %5.2f %% (within a night of it: %5.2f %%), flat series clean in %5.2f %%\n",
      100.0 * found / total, 100.0 * found_right / total, 100.0 * flat_none / total);
  CHECK(static_cast<double>(found_right) / total >= 0.90);
  CHECK(static_cast<double>(flat_none) / total >= 0.95);
}
