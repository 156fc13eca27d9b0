// A seeded A/A simulation of a large suite (docs/manual/statistics.md): a Google
// Benchmark suite of 500 benchmarks, the same build on both arms, measured
// through the round runner over FakeExecutor with a shared runner's noise,
// then split into rows and analysed as a run is. No row may read IMPROVED or
// REGRESSION in at least 95 % of the runs: a small IMPROVED needs its test
// against no change, BH-adjusted across the rows, and to clear its row's A/A
// floor, as REGRESSION needs its own.

#include <doctest/doctest.h>

#include <doubles/fake_executor.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/model/suite_rows.hpp>
#include <refbench/runner/rounds.hpp>

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace refbench;
using doubles::FakeExecutor;
using model::Invocation;
using model::Outcome;

namespace {

constexpr int k_aa_benchmarks = 500;

// Google Benchmark's JSON of one invocation of the suite: each benchmark's
// real and cpu time (µs) its true time times the invocation's noise.
std::string aa_suite_output(std::mt19937_64& random, const std::vector<double>& truth) {
  std::normal_distribution<double> whole(0.0, 0.03);   // the machine's state during this invocation
  std::normal_distribution<double> each(0.0, 0.02);    // one benchmark's own jitter
  std::uniform_real_distribution<double> chance(0, 1); // a neighbour's burst now and then
  const double invocation = std::exp(whole(random));
  std::string rows;
  for (std::size_t b = 0; b < truth.size(); ++b) {
    const double burst = chance(random) < 0.03 ? 1.0 + 0.5 * chance(random) : 1.0;
    const double time = truth[b] * invocation * std::exp(each(random)) * burst;
    rows += fmt::format(R"({}{{"name": "BM_{}", "run_type": "iteration", "iterations": 1000, "real_time": {}, )"
                        R"("cpu_time": {}, "time_unit": "us"}})",
                        b == 0 ? "" : ", ", b, time, time * 0.98);
  }
  return R"({"context": {}, "benchmarks": [)" + rows + "]}";
}

// Suite cell "NAME" of `harness`, its arms a/bench and b/bench.
model::CellSpec suite_cell(const std::string& name, suites::Harness harness) {
  model::CellSpec suite;
  suite.name = name;
  suite.meta.suite = model::SuiteSpec{harness};
  suite.baseline.argv = {"a/bench"};
  suite.candidate.argv = {"b/bench"};
  return suite;
}

// Rounds of `min_rounds` … `max_rounds` (no budget) over a FakeExecutor
// whose every invocation takes 0.5 s and prints `output()` (and `user`
// seconds of CPU when given); the record, and how many invocations ran.
std::pair<model::RunRecord, std::size_t> run_suite(const std::vector<model::CellSpec>& cells, int min_rounds,
                                                   int max_rounds, std::uint64_t seed,
                                                   const std::function<std::string()>& output,
                                                   std::optional<double> user = std::nullopt) {
  model::RoundSettings settings;
  settings.budget_seconds = 1e9;
  settings.min_rounds = min_rounds;
  settings.max_rounds = max_rounds;
  settings.seed = seed;
  FakeExecutor fake([&](const Invocation&, std::size_t) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.5;
    if (user) {
      outcome.readings[model::Reading::user] = *user;
    }
    outcome.stdout_text = output();
    return outcome;
  });
  formats::JournalWriter journal;
  runner::RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  auto record = runner::run_rounds(cells, settings, fake, journal, hooks);
  return {std::move(record), fake.calls().size()};
}

struct AaTally {
  int regressions = 0;
  int improvements = 0;
  int passes = 0;
};

// One A/A run of the suite with `seed`: how many gated rows read what.
AaTally aa_run(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<double> truth;
  std::lognormal_distribution<double> sizes(2.0, 1.0);
  for (int b = 0; b < k_aa_benchmarks; ++b) {
    truth.push_back(sizes(random));
  }
  const auto suite = suite_cell("zip", suites::Harness::google_benchmark); // the same build on both arms: an A/A
  auto record =
      run_suite({suite, model::control_of(suite)}, 10, 20, seed, [&] { return aa_suite_output(random, truth); }).first;
  std::vector<std::string> removed;
  model::to_rows(record, removed);
  analysis::Settings analysis_settings;
  analysis_settings.min_rounds = 10;
  analysis_settings.seed = seed;
  const auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {model::Metric::wall}),
                                         analysis_settings);
  AaTally tally;
  for (const auto& r : results) {
    if (!r.gated) {
      continue;
    }
    tally.regressions += r.verdict == stats::Verdict::regression;
    tally.improvements += r.verdict == stats::Verdict::improved;
    tally.passes += r.verdict == stats::Verdict::pass;
  }
  return tally;
}

} // namespace

TEST_CASE("analysis: an A/A run of a 500-benchmark suite reads no change in at least 95 % of seeded runs") {
  constexpr int runs = 40;
  int clean = 0;
  int gated_rows = 0;
  int passes = 0;
  for (int run = 0; run < runs; ++run) {
    const auto tally = aa_run(1000 + static_cast<std::uint64_t>(run));
    clean += tally.regressions == 0 && tally.improvements == 0;
    passes += tally.passes;
    gated_rows = std::max(gated_rows, tally.passes + tally.regressions + tally.improvements);
  }
  MESSAGE(fmt::format("{} of {} A/A runs clean; {} PASS rows in all", clean, runs, passes));
  // 39 of 40; a small IMPROVED on the uncorrected interval alone left 16 of 40 clean
  CHECK(clean >= runs * 95 / 100);
  // the run could tell: most rows pass against their own floors, none is left undecided wholesale
  CHECK(passes > runs * k_aa_benchmarks * 8 / 10);
}

TEST_CASE("analysis: a suite row's metrics are the harness's measures, even one named like a built-in") {
  // hyperfine's `user` and a Google Benchmark counter named `wall` beside refbench's own `user` and `wall`
  for (const auto harness : {suites::Harness::hyperfine, suites::Harness::google_benchmark}) {
    CAPTURE(suites::harness_name(harness));
    const std::string output =
        harness == suites::Harness::hyperfine
            ? R"({"results": [{"command": "c", "mean": 0.1, "median": 0.1, "user": 0.07, "system": 0.01}]})"
            : R"({"benchmarks": [{"name": "c", "real_time": 3, "cpu_time": 3, "time_unit": "ns", "wall": 7}]})";
    // 0.4 s of user CPU: the harness process's own, not the row's
    auto record = run_suite(
                      {suite_cell("s", harness)}, 10, 12, 0, [&] { return output; }, 0.4)
                      .first;
    std::vector<std::string> removed;
    model::to_rows(record, removed);
    const auto results = analysis::analyze(
        analysis::cell_samples(record, {model::Metric::wall, model::Metric::user}, {model::Metric::wall}), {});
    const std::string name = harness == suites::Harness::hyperfine ? "user" : "wall";
    std::vector<const analysis::MetricResult*> named;
    for (const auto& r : results) {
      if (r.cell == "s/c" && r.metric == name) {
        named.push_back(&r);
      }
    }
    REQUIRE(named.size() == 1); // one row name, one thing
    CHECK(named[0]->baseline_median == doctest::Approx(harness == suites::Harness::hyperfine ? 0.07 : 7.0));
  }
}

TEST_CASE("runner: a suite that reports more benchmarks than a run judges is its ERROR after the warm-up") {
  std::string many = "{";
  for (std::size_t b = 0; b <= suites::k_max_benchmarks; ++b) {
    many += fmt::format(R"({}"b{}": {{"latency": {{"value": 5}}}})", b == 0 ? "" : ", ", b);
  }
  many += "}";
  for (const bool picked : {false, true}) {
    CAPTURE(picked);
    auto suite = suite_cell("s", suites::Harness::bmf);
    if (picked) {
      suite.meta.rows = {"b1?"}; // --cells 's/b1?': ten of them
    }
    const auto [record, calls] = run_suite({suite}, 2, 2, 0, [&] { return many; });
    REQUIRE(record.cells.size() == 1);
    if (picked) {
      CHECK_FALSE(record.cells[0].failure);
      CHECK(record.cells[0].rounds == 2);
      CHECK(record.samples.back().benchmarks.size() == 10);
    } else {
      REQUIRE(record.cells[0].failure);
      CHECK(record.cells[0].failure->description.find("reported 20001 benchmarks, more than the 20000 one run judges: "
                                                      "pick some with --cells 'SUITE/PATTERN'") != std::string::npos);
      CHECK(calls <= 2); // the warm-up, then no round
    }
  }
}
