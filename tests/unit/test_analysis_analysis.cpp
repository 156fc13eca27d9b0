#include <doctest/doctest.h>

#include <doubles/fake_executor.hpp>
#include <refbench/analysis/analysis.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace refbench;
using namespace refbench::analysis;

namespace {

// `n` pairs with candidate/baseline = ratio · exp(small alternating noise).
MetricSamples pairs(const std::string& metric, double ratio, int n, bool gated = true) {
  MetricSamples m;
  m.metric = metric;
  m.gated = gated;
  for (int i = 0; i < n; ++i) {
    double noise = 0.002 * ((i % 5) - 2) + 0.0001 * i;
    m.baseline.push_back(100.0);
    m.candidate.push_back(100.0 * ratio * std::exp(noise));
  }
  return m;
}

const MetricResult& find(const std::vector<MetricResult>& results, const std::string& cell, const std::string& metric) {
  for (const auto& r : results) {
    if (r.cell == cell && r.metric == metric) {
      return r;
    }
  }
  FAIL("no result for " << cell << "/" << metric);
  return results.front();
}

} // namespace

TEST_CASE("analysis::analyze") {
  Settings settings;
  settings.min_rounds = 10;

  SUBCASE("higher-is-better: ratio stays candidate/baseline, verdict uses the worse side") {
    auto throughput = pairs("throughput", 0.7, 20);
    throughput.direction = Direction::higher_is_better;
    auto r = analyze({{"svc", false, std::nullopt, {throughput}}}, settings).front();
    CHECK(r.ratio == doctest::Approx(0.7).epsilon(0.01));
    CHECK(r.ci_low < r.ci_high);
    CHECK(r.ci_high < 0.75);
    CHECK(r.verdict == stats::Verdict::regression);
    throughput.direction = Direction::lower_is_better;
    CHECK(analyze({{"svc", false, std::nullopt, {throughput}}}, settings).front().verdict == stats::Verdict::improved);
  }
  SUBCASE("the BH family: gated, non-control, not censored, not errored") {
    auto censored = pairs("wall", 1.3, 20);
    censored.candidate_at_floor.assign(20, false);
    censored.baseline_at_floor.assign(20, false);
    for (int i = 0; i < 4; ++i) { // exactly 20 % at the floor
      censored.baseline_at_floor[static_cast<std::size_t>(i)] = true;
    }
    auto results = analyze(
        {{"a", false, std::nullopt, {pairs("wall", 1.3, 20), pairs("cpu", 1.3, 20, false)}},
         {"b", false, std::nullopt, {censored}},
         {"c", false, std::string("the candidate command exited with code 1 in round 3"), {pairs("wall", 1.3, 20)}},
         {"a-control", true, std::nullopt, {pairs("wall", 1.0, 20)}}},
        settings);
    CHECK(find(results, "a", "wall").p_bh.has_value());
    CHECK_FALSE(find(results, "a", "cpu").p_bh.has_value()); // info metric: raw p only
    CHECK(find(results, "a", "cpu").p.has_value());
    CHECK(find(results, "b", "wall").censored);
    CHECK(find(results, "b", "wall").verdict == stats::Verdict::censored);
    CHECK_FALSE(find(results, "b", "wall").p_bh.has_value());
    CHECK(find(results, "c", "wall").verdict == stats::Verdict::error);
    CHECK_FALSE(find(results, "a-control", "wall").p.has_value());
    // a family of one: p_bh == p
    CHECK(*find(results, "a", "wall").p_bh == doctest::Approx(*find(results, "a", "wall").p));
    CHECK(overall_verdict(results) == RunVerdict::error);
  }
  SUBCASE("19 % at the floor is not censored") {
    auto m = pairs("rss", 1.0, 21);
    m.baseline_at_floor.assign(21, false);
    for (int i = 0; i < 4; ++i) {
      m.baseline_at_floor[static_cast<std::size_t>(i)] = true;
    }
    CHECK_FALSE(analyze({{"x", false, std::nullopt, {m}}}, settings).front().censored);
  }
  SUBCASE("the control's floor applies to its own group and metric only") {
    auto noisy = pairs("wall", 1.0, 20);
    for (std::size_t i = 0; i < noisy.candidate.size(); ++i) {
      noisy.candidate[i] *= (i % 2 == 0) ? 1.3 : 0.75; // a wide A/A interval
    }
    CellSamples control{"g0-control", true, std::nullopt, {noisy}, 0};
    CellSamples same_group{"g0", false, std::nullopt, {pairs("wall", 1.02, 20), pairs("cpu", 1.02, 20, false)}, 0};
    CellSamples other_group{"g1", false, std::nullopt, {pairs("wall", 1.02, 20)}, 1};
    auto results = analyze({control, same_group, other_group}, settings);
    REQUIRE(find(results, "g0", "wall").noise_floor.has_value());
    CHECK(*find(results, "g0", "wall").noise_floor >= 1.15);
    CHECK(find(results, "g0", "wall").verdict == stats::Verdict::inconclusive); // floor ≥ T: no PASS
    CHECK_FALSE(find(results, "g0", "cpu").noise_floor.has_value());
    CHECK_FALSE(find(results, "g1", "wall").noise_floor.has_value());
    CHECK(find(results, "g1", "wall").verdict == stats::Verdict::pass);
  }
  SUBCASE("no pairs: no p, no NaN verdict, the run is inconclusive") {
    MetricSamples empty;
    empty.metric = "wall";
    empty.gated = true;
    auto results = analyze({{"e", false, std::nullopt, {empty}}}, settings);
    CHECK_FALSE(results.front().p.has_value());
    CHECK(results.front().verdict == stats::Verdict::inconclusive);
    CHECK(overall_verdict(results) == RunVerdict::inconclusive);
    CHECK(overall_verdict({}) == RunVerdict::inconclusive);
    // every cell NEW (a baseline without the config): nothing was compared, so the run cannot pass
    MetricResult added;
    added.cell = "added";
    added.verdict = stats::Verdict::new_cell;
    MetricResult control;
    control.cell = "added-control";
    control.control = true;
    control.verdict = stats::Verdict::pass;
    CHECK(overall_verdict({added, control}) == RunVerdict::inconclusive);
    MetricResult compared;
    compared.cell = "kept";
    compared.gated = true;
    compared.verdict = stats::Verdict::pass;
    CHECK(overall_verdict({added, control, compared}) == RunVerdict::pass); // one compared cell can pass
    auto j = formats::to_json(results.front());
    CHECK(j["ratio"].is_null());
    CHECK(j["p"].is_null());
  }
}

TEST_CASE("report::render_verdict_table snapshot") {
  std::vector<MetricResult> rows(3);
  rows[0].cell = "encrypt-1MiB-control";
  rows[0].metric = "wall";
  rows[0].control = true;
  rows[0].baseline_median = 0.4718;
  rows[0].candidate_median = 0.4554;
  rows[0].ratio = 1.011;
  rows[0].ci_low = 0.947;
  rows[0].ci_high = 1.038;
  rows[0].n = 57;
  rows[0].verdict = stats::Verdict::pass;
  rows[1].cell = "a|b `c` <d>";
  rows[1].metric = "wall";
  rows[1].gated = true;
  rows[1].baseline_median = 0.5267;
  rows[1].candidate_median = 0.6336;
  rows[1].ratio = 1.203;
  rows[1].ci_low = 1.171;
  rows[1].ci_high = 1.236;
  rows[1].p = 0.001;
  rows[1].p_bh = 0.003;
  rows[1].n = 34;
  rows[1].verdict = stats::Verdict::regression;
  rows[2].cell = "x";
  rows[2].metric = "rss";
  rows[2].unit = Unit::bytes;
  rows[2].baseline_median = 4063232;
  rows[2].candidate_median = 4063232;
  rows[2].ratio = 1.0;
  rows[2].ci_low = 1.0;
  rows[2].ci_high = 1.0;
  rows[2].p = 0.9991;
  rows[2].n = 10;
  rows[2].verdict = stats::Verdict::censored;
  CHECK(report::render_verdict_table(rows) ==
        "| cell | metric | baseline | candidate | ratio (95% CI) | p (BH) | n | verdict |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| encrypt-1MiB-control | wall | 471.8 ms | 455.4 ms | 1.011x [0.947, 1.038] | — | 57 | PASS |\n"
        "| a\\|b \\`c\\` &lt;d&gt; | wall | 526.7 ms | 633.6 ms | 1.203x [1.171, 1.236] | 0.003 | 34 | REGRESSION |\n"
        "| x | rss | 3.875 MiB | 3.875 MiB | 1.000x [1.000, 1.000] | 0.999 | 10 | CENSORED (info) |\n");
}

TEST_CASE("formats::read_document gives the record back from a journal and from results.json") {
  model::RunRecord record;
  record.seed = 7;
  record.rss = {"launcher", 4 << 20, 0.0001};
  record.cells = {{"work", false, model::StopReason::max_rounds, 2, std::nullopt},
                  {"work-control", true, model::StopReason::max_rounds, 2, std::nullopt}};
  for (int round = 1; round <= 2; ++round) {
    for (std::size_t cell = 0; cell < 2; ++cell) {
      for (auto arm : {model::Arm::baseline, model::Arm::candidate}) {
        model::Outcome o;
        o.readings[model::Reading::wall] = 0.1 * round + (arm == model::Arm::candidate ? 0.05 : 0.0);
        o.readings[model::Reading::user] = 0.01;
        o.readings[model::Reading::rss] = 8 << 20;
        record.samples.push_back({cell, arm, round, record.samples.size() % 4, o});
      }
    }
  }
  // a journal as compare writes it, then a torn last line
  report::RunHeader header;
  header.command = "compare";
  header.rss = record.rss;
  header.seed = record.seed;
  std::vector<model::CellSpec> specs{{"work", {}, {}, false}, {"work-control", {}, {}, true}};
  std::string text = formats::journal_header(header, specs).dump() + "\n";
  for (const auto& sample : record.samples) {
    text += formats::to_json(sample, record.cells).dump() + "\n";
  }
  text += "{\"type\":\"sample\",\"cell\":\"wo";
  auto journal = formats::read_document("journal.jsonl", text);
  CHECK(journal.partial); // no stop lines
  CHECK(journal.from_journal);
  REQUIRE(journal.record.cells.size() == 2);
  CHECK(journal.record.cells[1].control);
  CHECK(journal.record.samples.size() == record.samples.size());
  CHECK(journal.record.rss.spawn_resolution_seconds == 0.0001);

  auto document = formats::to_json(report::make_document(header, record, {}));
  auto results = formats::document_from_json(document, "results.json");
  CHECK_FALSE(results.partial);
  CHECK(results.record.cells[1].control);
  CHECK(results.record.samples.size() == record.samples.size());
  // results.json groups samples by cell; every (cell, arm, round) comes back with its values
  for (const auto& original : record.samples) {
    auto same = std::find_if(results.record.samples.begin(), results.record.samples.end(), [&](const auto& s) {
      return s.cell == original.cell && s.arm == original.arm && s.round == original.round;
    });
    REQUIRE(same != results.record.samples.end());
    CHECK(same->outcome.readings[model::Reading::wall] == original.outcome.readings[model::Reading::wall]);
    CHECK(same->outcome.readings[model::Reading::rss] == original.outcome.readings[model::Reading::rss]);
  }

  SUBCASE("a bad line that is not the last is an error naming the line") {
    std::string broken = formats::journal_header(header, specs).dump() + "\nnot json\n{}\n";
    CHECK_THROWS_WITH_AS(formats::read_journal(broken, "j.jsonl"), doctest::Contains("j.jsonl:2"),
                         refbench::UsageError);
  }
}

TEST_CASE("a fixed seed and the same measurements give byte-identical analysis") {
  auto run = [] {
    // measurements depend only on what runs (cell, arm, its n-th call), not on when
    std::map<std::string, int> calls;
    doubles::FakeExecutor fake([&](const model::Invocation& invocation, std::size_t) {
      const std::string key = invocation.argv[0] + invocation.argv[1];
      const int n = calls[key]++;
      model::Outcome outcome;
      outcome.readings[model::Reading::wall] =
          (invocation.argv[1] == "cand" ? 0.12 : 0.1) * (1.0 + 0.01 * ((n * 7) % 5));
      outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall] * 0.9;
      outcome.readings[model::Reading::rss] = (10 << 20) + n * 4096;
      return outcome;
    });
    auto spec = [](const std::string& name) {
      return model::CellSpec{name, {{name, "base"}, {}, "", {}, ""}, {{name, "cand"}, {}, "", {}, ""}, false};
    };
    model::RoundSettings settings{1000, 20, 10, 1, 4242};
    settings.auto_control = true;
    formats::JournalWriter journal;
    runner::RoundHooks hooks;
    hooks.clock = [&] { return fake.now(); };
    Settings analysis_settings;
    hooks.precise = [&](const model::RunRecord& record, std::size_t cell) {
      return precise_enough(record, cell, {model::Metric::wall}, 0.02, analysis_settings);
    };
    auto record = runner::run_rounds({spec("x"), spec("y")}, settings, fake, journal, hooks);
    auto results = analyze(cell_samples(record, {model::Metric::wall, model::Metric::rss}, {model::Metric::wall}),
                           analysis_settings);
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : results) {
      j.push_back(formats::to_json(r));
    }
    return j.dump();
  };
  const auto first = run();
  CHECK(first == run());
  CHECK(first.find("x-control") != std::string::npos); // the automatic A/A control was added
}

TEST_CASE("analysis::analyze: a ratio beyond a double is an ERROR naming the values") {
  MetricSamples huge;
  huge.metric = "wall";
  huge.gated = true;
  huge.baseline.assign(20, 0.1);
  huge.candidate.assign(20, 1e308);
  for (std::size_t i = 0; i < 20; ++i) {
    huge.candidate[i] *= 1.0 - 0.001 * static_cast<double>(i);
  }
  auto r = analyze({{"big", false, std::nullopt, {huge}}}, Settings{}).front();
  CHECK(r.verdict == stats::Verdict::error);
  REQUIRE(r.error.has_value());
  INFO(*r.error);
  CHECK(r.error->find("beyond what a double holds (baseline median 0.1, candidate median 9.9") != std::string::npos);
  CHECK(overall_verdict({r}) == RunVerdict::error);
  // large but representable ratios stay ordinary results
  huge.candidate.assign(20, 1e300);
  CHECK(analyze({{"big", false, std::nullopt, {huge}}}, Settings{}).front().verdict == stats::Verdict::regression);
}

TEST_CASE(
    "analysis::analyze: counts that do not vary give a point interval and a clear verdict at the count threshold") {
  Settings settings;
  settings.min_rounds = 10;
  auto counts = [](const std::string& cell, double baseline, double candidate, int n) {
    MetricSamples m;
    m.metric = "instructions";
    m.unit = Unit::plain;
    m.counted = true;
    m.gated = true;
    m.baseline.assign(static_cast<std::size_t>(n), baseline);
    m.candidate.assign(static_cast<std::size_t>(n), candidate);
    return CellSamples{cell, false, std::nullopt, {m}};
  };
  auto aa = counts("aa", 362231650, 362231650, 10);
  aa.control = true;
  const auto results = analyze({counts("up", 362231650, 367665125, 10),    // +1.5 %
                                counts("small", 362231650, 363318345, 10), // +0.3 %
                                counts("down", 362231650, 355987000, 10), aa},
                               settings);
  const auto& up = find(results, "up", "instructions");
  CHECK(up.threshold == model::k_default_count_threshold); // not Settings::threshold (1.15): counts do not drift
  CHECK(up.ratio == doctest::Approx(1.015).epsilon(1e-9));
  CHECK(up.ci_low == doctest::Approx(up.ratio).epsilon(1e-12));
  CHECK(up.ci_high == doctest::Approx(up.ratio).epsilon(1e-12));
  CHECK(up.verdict == stats::Verdict::regression);
  // fixed counts (model::fixed_counts) are exact: no test to run, p is 0 past the threshold and 1 short of it
  CHECK(up.exact);
  CHECK(*up.p == 0.0);
  CHECK(*up.p_improved == 1.0);
  CHECK(up.half_width == 0.0);
  CHECK(find(results, "small", "instructions").verdict == stats::Verdict::pass);
  CHECK(find(results, "down", "instructions").verdict == stats::Verdict::improved);
  const auto& control = find(results, "aa", "instructions");
  CHECK(control.ci_low == 1.0);
  CHECK(control.ci_high == 1.0);
  CHECK(control.verdict == stats::Verdict::pass);

  CHECK(control.exact);

  // k_fixed_counts pairs decide at any min_rounds; one fewer is not fixed, and no test decides on 2 pairs
  const auto few = analyze({counts("three", 100, 102, 3), counts("two", 100, 102, 2)}, settings);
  CHECK(find(few, "three", "instructions").verdict == stats::Verdict::regression);
  CHECK(find(few, "three", "instructions").ratio == doctest::Approx(1.02).epsilon(1e-12));
  CHECK_FALSE(find(few, "two", "instructions").exact);
  CHECK(find(few, "two", "instructions").verdict == stats::Verdict::inconclusive);
  // a count that varies is measured, not exact: ten tied ranks on one side and one other, the signed-rank test
  auto varies = counts("varies", 362231650, 367665125, 10);
  varies.metrics[0].candidate[4] = 367665126;
  const auto varied_results = analyze({varies}, settings);
  const auto& varied = varied_results.front();
  CHECK_FALSE(varied.exact);
  CHECK(varied.verdict == stats::Verdict::regression);
  // scipy.stats.wilcoxon(log(c / b) - log(1.01), alternative="greater", method="approx", correction=False)
  CHECK(*varied.p == doctest::Approx(0.0011409686266577242).epsilon(1e-6));
  // a time metric whose readings happen to repeat is never exact
  auto time = counts("time", 0.5, 0.6, 10);
  time.metrics[0].counted = false;
  CHECK_FALSE(analyze({time}, settings).front().exact);

  Settings strict = settings;
  strict.count_threshold = 1.02; // what the settings hand over; a cell's own threshold wins over both
  auto own = counts("own", 362231650, 367665125, 10);
  own.metrics[0].threshold = 1.01;
  const auto strict_results = analyze({counts("up", 362231650, 367665125, 10), own}, strict);
  CHECK(find(strict_results, "up", "instructions").verdict == stats::Verdict::pass);
  CHECK(find(strict_results, "own", "instructions").verdict == stats::Verdict::regression);

  // zero counts (a cell that allocates nothing): a zero reads as one, so none on both arms is no change and
  // none to five is 5x; a time metric's zero stays no reading
  const auto zeros = analyze({counts("none", 0, 0, 10), counts("some", 0, 5, 10), counts("gone", 5, 0, 10)}, settings);
  CHECK(find(zeros, "none", "instructions").ratio == 1.0);
  CHECK(find(zeros, "none", "instructions").n == 10);
  CHECK(find(zeros, "none", "instructions").verdict == stats::Verdict::pass);
  CHECK(find(zeros, "some", "instructions").ratio == doctest::Approx(5.0));
  CHECK(find(zeros, "some", "instructions").verdict == stats::Verdict::regression);
  CHECK(find(zeros, "some", "instructions").baseline_median == 0.0); // shown as measured
  CHECK(find(zeros, "gone", "instructions").verdict == stats::Verdict::improved);
  auto timed = counts("timed", 0, 5, 10);
  timed.metrics[0].counted = false;
  CHECK(analyze({timed}, settings).front().n == 0);
}
