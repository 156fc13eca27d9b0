#include "snapshot.hpp"
#include <doctest/doctest.h>

#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/error.hpp>

#include <algorithm>
#include <cmath>

using namespace refbench;

namespace {

// A record of a family "enc" over 1 KiB and 32 MiB (fixed 0.45 s + 2 ms/MiB)
// whose 32 MiB cell only gates wall and shows wall and rss.
model::RunRecord family_record() {
  model::RunRecord record;
  record.seed = 11;
  record.rss = {"launcher", 4 << 20, 0.0001};
  model::CellMeta small{std::vector<std::string>{"wall"}, std::vector<std::string>{"wall"}, {}, "enc", 1024};
  model::CellMeta large{
      std::vector<std::string>{"wall", "rss"}, std::vector<std::string>{"wall"}, {{"wall", 1.2}}, "enc", 32u << 20};
  record.cells = {{"enc-1KiB", false, model::StopReason::max_rounds, 12, std::nullopt, small},
                  {"enc-32MiB", false, model::StopReason::max_rounds, 12, std::nullopt, large}};
  for (int round = 1; round <= 12; ++round) {
    for (std::size_t cell = 0; cell < 2; ++cell) {
      for (auto arm : {model::Arm::baseline, model::Arm::candidate}) {
        model::Outcome o;
        o.readings[model::Reading::wall] = (cell == 0 ? 0.450 : 0.514) * (1.0 + 0.001 * (round % 3));
        o.readings[model::Reading::rss] = 64 << 20;
        record.samples.push_back({cell, arm, round, 0, o});
      }
    }
  }
  return record;
}

// The header of a `run` of v1.0.0 against main, as run_command records it.
report::RunHeader run_header() {
  report::RunHeader header;
  header.command = "run";
  header.tool_version = "0.0.0-golden";
  header.reproduce = "refbench run --seed 11";
  header.settings.metrics = {model::Metric::wall};
  header.settings.gate = {model::Metric::wall};
  header.settings.budget_seconds = 60;
  header.settings.max_rounds = 12;
  header.settings.warmup = 1;
  header.settings.replicas = 1;
  header.settings.precision = 0.02;
  header.baseline = report::ArmInfo{"v1.0.0", "", "1a2b3c4d5e6f", "/w/a", "", 12.5};
  header.candidate = report::ArmInfo{"main", "", "5d6e7f8a9b0c", "/w/b", "", 13.0};
  header.environment = report::EnvironmentInfo{"Linux 6.1.0",
                                               "x86_64",
                                               "AMD EPYC 7763",
                                               4,
                                               2,
                                               2,
                                               "performance",
                                               report::IsolationInfo{"auto", true, "0-3", "0", "1-3", {}, ""}};
  header.environment->isolation->splits.push_back({"enc-1KiB", {{"service", "1"}, {"client", "2-3"}}, ""});
  return header;
}

// The journal of `record` as a run writes it: the header, then every sample.
std::string journal_text(const report::RunHeader& header, const model::RunRecord& record) {
  std::vector<model::CellSpec> specs(record.cells.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i].name = record.cells[i].name;
    specs[i].meta = record.cells[i].meta;
  }
  std::string text = formats::journal_header(header, specs).dump() + "\n";
  for (const auto& sample : record.samples) {
    text += formats::to_json(sample, record.cells).dump() + "\n";
  }
  return text;
}

} // namespace

TEST_CASE("model::CellMeta travels through the journal and results.json") {
  auto record = family_record();
  auto header = run_header();
  header.seed = record.seed;
  header.rss = record.rss;
  header.settings.metrics = {model::Metric::wall, model::Metric::cpu};
  std::string text = journal_text(header, record);
  auto check = [&](const report::RunDocument& read) {
    REQUIRE(read.record.cells.size() == 2);
    const auto& cells = read.record.cells;
    CHECK(cells[1].meta.family == "enc");
    CHECK(cells[1].meta.payload_bytes == (32u << 20));
    CHECK(cells[1].meta.metrics == std::vector<std::string>{"wall", "rss"});
    CHECK(cells[1].meta.threshold.at("wall") == 1.2);
    // the cells' own metrics win over the run's (wall, cpu)
    auto samples = analysis::cell_samples(read.record, read.header.settings.metrics, read.header.settings.gate);
    REQUIRE(samples[1].metrics.size() == 2);
    CHECK(samples[1].metrics[1].metric == "rss");
    CHECK_FALSE(samples[1].metrics[1].gated);
    CHECK(samples[1].metrics[0].threshold == 1.2);
    REQUIRE(samples[0].metrics.size() == 1);
    CHECK(samples[0].metrics[0].metric == "wall");
    // the header read back as written
    CHECK(read.header.command == "run");
    CHECK(read.header.reproduce == "refbench run --seed 11");
    CHECK(read.header.baseline->ref == "v1.0.0");
    CHECK(read.header.candidate->sha == "5d6e7f8a9b0c");
    CHECK(read.header.settings.max_rounds == 12);
    CHECK(read.header.settings.budget_seconds == 60);
    CHECK(read.header.settings.metrics == header.settings.metrics);
    CHECK(read.header.seed == 11);
    CHECK(read.record.seed == 11);
    CHECK(read.record.rss.floor_bytes == 4 << 20);
  };
  check(formats::read_document("journal.jsonl", text));
  check(formats::document_from_json(formats::to_json(report::make_document(header, record, {})), "results.json"));
  SUBCASE("no meta: the run's metrics") {
    model::CellMeta none;
    CHECK(formats::to_json(none).empty());
    CHECK_FALSE(formats::cell_meta_from_json(nlohmann::json()).metrics);
  }
}

TEST_CASE("report::make_document") {
  auto record = family_record();
  auto header = run_header();
  auto results = analysis::analyze(analysis::cell_samples(record, header.settings.metrics, header.settings.gate),
                                   {1.15, 0.05, 0.95, 10});
  auto document = formats::to_json(report::make_document(header, record, results));

  SUBCASE("every analysis entry names its unit") {
    for (const auto& entry : document.at("analysis")) {
      CHECK(entry.at("unit") == (entry.at("metric") == "rss" ? "bytes" : "seconds"));
    }
  }
  SUBCASE("the sensitivity warning of the family's largest cell, at its own threshold") {
    REQUIRE(document.at("warnings").size() == 1);
    const auto& w = document.at("warnings")[0];
    CHECK(w.at("cell") == "enc-32MiB");
    CHECK(w.at("threshold") == 1.2);
    // fit through (1 KiB, 0.4504) and (32 MiB, 0.5145): payload part ≈ 0.064 of 0.5145
    CHECK(w.at("fixed_share").get<double>() == doctest::Approx(1.0 - 0.0641 / 0.5145).epsilon(0.01));
  }
  SUBCASE("a launcher RSS floor that rose during the run is a warning") {
    for (auto& sample : record.samples) {
      sample.outcome.rss_floor_bytes = (3 << 20) + (sample.round % 2) * 4096; // drift within the margin: no warning
    }
    CHECK(report::make_document(header, record, results).warnings.size() == 1);
    // the boundary: a drift of exactly k_rss_floor_drift is no warning, a page more is
    record.samples.back().outcome.rss_floor_bytes = (3 << 20) + model::k_rss_floor_drift;
    CHECK(report::make_document(header, record, results).warnings.size() == 1);
    record.samples.back().outcome.rss_floor_bytes += 4096;
    CHECK(report::make_document(header, record, results).warnings.size() == 2);
    for (std::size_t i = 13; i < record.samples.size(); ++i) {
      record.samples[i].outcome.rss_floor_bytes = 200 << 20;
    }
    auto warnings = report::make_document(header, record, results).warnings;
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[1].cell == "enc-1KiB"); // sample 13: round 4, the first cell's candidate
    CHECK(warnings[1].message == "the launcher's RSS floor rose from 3.000 MiB to 200.0 MiB while running the "
                                 "candidate command of enc-1KiB in round 4: rss readings from then on include "
                                 "it");
  }
  SUBCASE(
      "cells stopped at max_rounds, INCONCLUSIVE, with most of the budget left: a warning names the rounds it allows") {
    auto inconclusive = results;
    for (auto& r : inconclusive) {
      if (r.cell == "enc-1KiB" && r.gated) {
        r.verdict = stats::Verdict::inconclusive;
      }
    }
    auto max_rounds_warnings = [&](double elapsed, const std::vector<analysis::MetricResult>& with) {
      record.elapsed_seconds = elapsed;
      std::vector<report::DocumentWarning> found;
      for (auto& w : report::make_document(header, record, with).warnings) {
        if (w.message.starts_with("max_rounds")) {
          found.push_back(std::move(w));
        }
      }
      return found;
    };
    const auto warnings = max_rounds_warnings(20, inconclusive); // 20 s of a 60 s budget
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].message == "max_rounds = 12 stopped enc-1KiB with INCONCLUSIVE gated metrics after 20.00 s of "
                                 "the 1 min budget: at this pace the budget allows max_rounds = 36");
    CHECK(warnings[0].facts.at("allowed_max_rounds") == 36);
    CHECK(max_rounds_warnings(30, inconclusive).empty()); // half the budget used
    CHECK(max_rounds_warnings(0, inconclusive).empty());  // no measured time
    record.cells[0].stop = model::StopReason::budget;
    CHECK(max_rounds_warnings(20, inconclusive).empty()); // not stopped by max_rounds
    record.cells[0].stop = model::StopReason::max_rounds;
    for (auto& r : inconclusive) {
      if (r.cell == "enc-1KiB" && r.gated) {
        r.verdict = stats::Verdict::pass;
      }
    }
    CHECK(max_rounds_warnings(20, inconclusive).empty()); // nothing left to decide
  }
  SUBCASE("arms without refs are the commands") {
    header.baseline = report::ArmInfo{.command = "./old"};
    header.candidate = report::ArmInfo{.command = "./new"};
    const auto arms = formats::to_json(report::make_document(header, record, results)).at("arms");
    CHECK(arms == nlohmann::json{{"baseline", {{"command", "./old"}}}, {"candidate", {{"command", "./new"}}}});
  }
}

// The golden results.json: a run document written byte for byte as the
// snapshot says, and read back into the same bytes. A change of the format
// shows here first; a change that breaks readers of older files needs a
// new schema_version.
TEST_CASE("results.json: golden document, written and read back") {
  auto record = family_record();
  record.elapsed_seconds = 31.5;
  record.cells[0].failure = model::CellFailure{model::Arm::candidate, 3, "exited with code 2", "boom\n", false};
  record.samples[5].values = {{"requests", 1200.0}};
  // the large cell also reports an error count with an SLO and a p99 with a ceiling
  // (docs/manual/config.md#metric-kinds-ceilings-and-slos)
  auto& large = record.cells[1].meta;
  model::CustomMetric errors{.name = "errors", .key = "errors", .kind = model::MetricKind::count, .max_increase = 1};
  errors.slo = model::Slo{"<=", 2};
  model::CustomMetric p99{.name = "p99", .key = "p99_ms", .unit = "ms", .censor_above = 10000};
  p99.slo = model::Slo{"<=", 5000};
  large.custom = {errors, p99};
  large.metrics->insert(large.metrics->end(), {"errors", "p99"});
  large.gate->push_back("errors");
  for (auto& sample : record.samples) {
    if (sample.cell == 1) {
      const bool candidate = sample.arm == model::Arm::candidate;
      sample.values = {{"errors", (candidate ? 3.0 : 0.0) + sample.round % 2},
                       {"p99", candidate && sample.round % 4 == 0 ? 10000.0 : 1000.0 + sample.round}};
    }
  }
  auto header = run_header();
  header.shard = model::ShardIdentity{{2, 3}, "1a2b3c4d5e6f", "5d6e7f8a9b0c", 11, "c0ffee", true};
  auto results = analysis::analyze(analysis::cell_samples(record, header.settings.metrics, header.settings.gate),
                                   {1.15, 0.05, 0.95, 10});
  auto document = report::make_document(header, record, results);
  document.total_seconds = 40.25;
  document.harness_peak_rss_bytes = 9 << 20;
  document.config = "refbench.toml";
  document.payloads = nlohmann::json::array({{{"label", "1KiB"}, {"bytes", 1024}}});
  const std::string text = formats::to_json(document).dump(2) + "\n";
  test::check_snapshot("results.json", text);

  const auto read = formats::document_from_json(nlohmann::json::parse(text), "results.json");
  CHECK(formats::to_json(read).dump(2) + "\n" == text);
  CHECK(read.verdict == document.verdict);
  CHECK(read.record.samples.size() == record.samples.size());
  // samples are written per cell, so read back grouped by cell rather than in round order
  const auto with_values = std::count_if(read.record.samples.begin(), read.record.samples.end(), [](const auto& s) {
    return s.values.size() == 1 && s.values.at("requests") == 1200.0;
  });
  CHECK(with_values == 1);
  CHECK(read.record.cells[0].failure->arm == model::Arm::candidate);
  CHECK(read.header.shard->shard.index == 2);
  CHECK(read.header.environment->isolation->benchmark_cpus == "1-3");
  // what a run prints and what `refbench report results.json` prints later are the same bytes
  CHECK(report::render_markdown(read) == report::render_markdown(document));
  REQUIRE(read.results.size() == results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    CHECK((read.results[i].ratio == results[i].ratio || std::isnan(results[i].ratio)));
    CHECK(read.results[i].verdict == results[i].verdict);
    CHECK(read.results[i].kind == results[i].kind);
    CHECK(read.results[i].slo_broken == results[i].slo_broken);
  }
  const auto errors_result =
      std::find_if(results.begin(), results.end(), [](const auto& r) { return r.metric == "errors"; });
  REQUIRE(errors_result != results.end());
  CHECK(errors_result->difference == 3); // +3 every round; the round's parity is in both arms
  CHECK(errors_result->verdict == stats::Verdict::regression);
  CHECK(errors_result->slo_broken); // medians 0.5 and 3.5 against <= 2
  const auto p99_result = std::find_if(results.begin(), results.end(), [](const auto& r) { return r.metric == "p99"; });
  REQUIRE(p99_result != results.end());
  CHECK(p99_result->censored); // 3 of the candidate's 12 readings at the 10000 ceiling: 25 %
  CHECK(p99_result->censor_limit == "censor_above = 10000");
  CHECK(p99_result->verdict == stats::Verdict::censored);

  SUBCASE("a newer schema_version is refused, naming the file") {
    auto newer = nlohmann::json::parse(text);
    newer["schema_version"] = report::k_schema_version + 1;
    CHECK_THROWS_WITH_AS(formats::document_from_json(newer, "r.json"),
                         doctest::Contains("r.json: schema_version 2 is newer than this refbench reads (1)"),
                         UsageError);
  }
  SUBCASE("members it does not know are ignored") {
    auto more = nlohmann::json::parse(text);
    more["future"] = {{"x", 1}};
    CHECK(formats::to_json(formats::document_from_json(more, "r.json")).dump(2) + "\n" == text);
  }
}

TEST_CASE("report::render_csv") {
  analysis::MetricResult r;
  r.cell = "parse, \"large\"";
  r.metric = "wall";
  r.gated = true;
  r.n = 12;
  r.baseline_median = 0.25;
  r.candidate_median = 0.3;
  r.ratio = 1.2;
  r.ci_low = 1.1;
  r.ci_high = 1.3;
  r.p = 0.01;
  r.p_bh = 0.02;
  r.verdict = stats::Verdict::regression;
  r.min_detectable_ratio = 1.0833;
  analysis::MetricResult control = r;
  control.cell = "x-control";
  control.control = true;
  control.gated = false;
  control.unit = analysis::Unit::bytes;
  control.p.reset();
  control.p_bh.reset();
  control.ratio = NAN;
  control.noise_floor = 1.04;
  CHECK(report::render_csv({r, control}) ==
        "cell,metric,unit,gated,control,n,baseline_median,candidate_median,ratio,ci_low,ci_high,p,p_bh,verdict,"
        "censored,min_detectable_ratio,noise_floor,kind,difference,diff_ci_low,diff_ci_high,slo,baseline_slo_share,"
        "candidate_slo_share,candidate,p_improved,p_improved_bh,p_better,p_better_bh\n"
        "\"parse, \"\"large\"\"\",wall,seconds,true,false,12,0.25,0.3,1.2,1.1,1.3,0.01,0.02,REGRESSION,false,1.0833,,"
        "ratio,,,,,,,,,,,\n"
        "x-control,wall,bytes,false,true,12,0.25,0.3,,1.1,1.3,,,REGRESSION,false,1.0833,1.04,ratio,,,,,,,,,,,\n");
  analysis::MetricResult count = r;
  count.metric = "errors";
  count.kind = model::MetricKind::count;
  count.ratio = count.ci_low = count.ci_high = count.min_detectable_ratio = NAN;
  count.difference = 2;
  count.diff_low = 0.5;
  count.diff_high = 3;
  count.slo = model::Slo{"<=", 1};
  count.baseline_slo_share = 1;
  count.candidate_slo_share = 0.25;
  CHECK(report::render_csv({count}).ends_with(
      "\n\"parse, "
      "\"\"large\"\"\",errors,seconds,true,false,12,0.25,0.3,,,,0.01,0.02,REGRESSION,false,,,count,2,0.5,3,<= "
      "1,1,0.25,,,,,\n"));
  count.candidate = "feat, b";
  count.p_improved = 0.9;
  count.p_improved_bh = 0.95;
  count.p_better = 0.04;
  count.p_better_bh = 0.06;
  CHECK(report::render_csv({count}).ends_with(",1,0.25,\"feat, b\",0.9,0.95,0.04,0.06\n"));
  CHECK(report::csv_field("a\rb") == "\"a\rb\"");
}

TEST_CASE("several candidates: cells of one name told apart by candidate in the journal, results.json and reports") {
  // one cell measured against two candidates: "fast" at the baseline's speed, "slow" 30 % slower
  model::RunRecord record;
  record.seed = 3;
  record.rss = {"launcher", 4 << 20, 0.0001};
  for (const char* candidate : {"fast", "slow"}) {
    model::CellMeta meta;
    meta.candidate = candidate;
    record.cells.push_back({"parse", false, model::StopReason::max_rounds, 12, std::nullopt, meta});
  }
  for (int round = 0; round <= 12; ++round) {
    for (std::size_t cell = 0; cell < 2; ++cell) {
      for (auto arm : {model::Arm::baseline, model::Arm::candidate}) {
        model::Outcome o;
        o.readings[model::Reading::wall] =
            0.1 * (1.0 + 0.002 * (round % 4)) * (arm == model::Arm::candidate && cell == 1 ? 1.3 : 1.0);
        o.readings[model::Reading::rss] = 64 << 20;
        record.samples.push_back({cell, arm, round, 0, o});
      }
    }
  }
  auto header = run_header();
  header.seed = record.seed;
  header.rss = record.rss;
  header.candidates = {report::ArmInfo{"feat/fast", "fast", "aaaa", "/w/b", "", 1.0, {}, {}},
                       report::ArmInfo{"feat/slow", "slow", "bbbb", "/w/d", "", 1.0, {"MODE=x"}, {"--slow", "a b"}}};
  header.candidate = header.candidates.front();
  std::string text = journal_text(header, record);
  for (const auto& cell : record.cells) {
    nlohmann::json stop{{"type", "stop"}, {"reason", "max_rounds"}, {"rounds", 12}};
    formats::name_cell(stop, cell);
    text += stop.dump() + "\n";
  }
  auto check = [](const report::RunDocument& read) {
    REQUIRE(read.record.cells.size() == 2);
    CHECK(read.record.cells[0].meta.candidate == "fast");
    CHECK(read.record.cells[1].meta.candidate == "slow");
    CHECK(std::count_if(read.record.samples.begin(), read.record.samples.end(),
                        [](const model::Sample& s) { return s.cell == 1; }) == 26);
    REQUIRE(read.header.candidates.size() == 2);
    CHECK(read.header.candidates[1].args == std::vector<std::string>{"--slow", "a b"});
    CHECK(read.header.candidates[1].env == std::vector<std::string>{"MODE=x"});
    CHECK(read.header.candidate->ref == "feat/fast");
  };
  const auto from_journal = formats::read_document("journal.jsonl", text);
  check(from_journal);
  CHECK_FALSE(from_journal.partial);
  auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {model::Metric::wall}),
                                   report::analysis_settings(header));
  REQUIRE(results.size() == 2);
  CHECK(results[0].candidate == "fast");
  CHECK(results[0].verdict == stats::Verdict::pass);
  CHECK(results[1].candidate == "slow");
  CHECK(results[1].verdict == stats::Verdict::regression);
  const auto document = report::make_document(header, record, results);
  const auto read = formats::document_from_json(formats::to_json(document), "results.json");
  check(read);
  CHECK(read.results[1].candidate == "slow");

  const auto table = report::render_verdict_table(results);
  CHECK(table.starts_with("| cell | candidate | metric | baseline | candidate median | ratio (95% CI) |"));
  INFO(table);
  CHECK(table.find("| parse | slow | wall | 100.3 ms | 130.4 ms | 1.300x [1.300, 1.300] |") != std::string::npos);
  const auto markdown = report::render_markdown(document, 65536);
  CHECK(markdown.find("vs candidates `fast` (aaaa), `slow` (bbbb) with `MODE=x --slow 'a b'`") != std::string::npos);
  CHECK(markdown.find("| parse (slow) | 12 |") != std::string::npos); // the cell table names the candidate
  // one candidate: no column, the table as before
  results[0].candidate.clear();
  CHECK(report::render_verdict_table({results[0]}).starts_with("| cell | metric | baseline | candidate |"));
}

TEST_CASE("results.json: stored verdicts are checked against the rows they come from") {
  // one cell 30 % slower (REGRESSION) and one at the baseline's speed (PASS)
  model::RunRecord record;
  record.seed = 5;
  record.rss = {"launcher", 4 << 20, 0.0001};
  record.cells = {{"slow", false, model::StopReason::max_rounds, 12, std::nullopt, {}},
                  {"same", false, model::StopReason::max_rounds, 12, std::nullopt, {}}};
  for (int round = 1; round <= 12; ++round) {
    for (std::size_t cell = 0; cell < 2; ++cell) {
      for (auto arm : {model::Arm::baseline, model::Arm::candidate}) {
        model::Outcome o;
        o.readings[model::Reading::wall] =
            0.1 * (1.0 + 0.002 * (round % 4)) * (arm == model::Arm::candidate && cell == 0 ? 1.3 : 1.0);
        record.samples.push_back({cell, arm, round, 0, o});
      }
    }
  }
  auto header = run_header();
  header.seed = record.seed;
  header.rss = record.rss;
  header.settings.metrics = header.settings.gate = {model::Metric::wall};
  const auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {model::Metric::wall}),
                                         report::analysis_settings(header));
  REQUIRE(results[0].verdict == stats::Verdict::regression);
  REQUIRE(results[1].verdict == stats::Verdict::pass);
  const auto written = formats::to_json(report::make_document(header, record, results));
  auto error_of = [](const nlohmann::json& document) -> std::string {
    try {
      formats::read_document("results.json", document.dump());
      return "";
    } catch (const UsageError& error) {
      return error.what();
    }
  };
  CHECK(error_of(written).empty()); // as written, it reads back
  SUBCASE("a run verdict that its rows do not give") {
    auto edited = written;
    edited["verdict"] = "pass"; // "✅ no regression" beside a REGRESSION row
    CHECK(error_of(edited) ==
          "results.json: the run's verdict is stored as \"pass\", but its rows give \"regression\": the file was "
          "edited or is damaged");
  }
  SUBCASE("a row's verdict that its interval does not give") {
    auto edited = written;
    edited["analysis"][0]["verdict"] = "PASS";
    edited["verdict"] = "pass";
    CHECK(error_of(edited).starts_with("results.json: slow wall is stored as PASS, but its interval"));
    edited = written;
    edited["analysis"][1]["verdict"] = "REGRESSION"; // "❌ 1 regression" with nothing past the gate
    CHECK(error_of(edited).find("same wall is stored as REGRESSION") != std::string::npos);
  }
  SUBCASE("the cautious answers a file cannot rule out are kept") {
    auto edited = written;
    edited["analysis"][0]["verdict"] = "INCONCLUSIVE"; // never more favourable than the rows allow ...
    CHECK_FALSE(error_of(edited).empty());
    edited = written;
    edited["analysis"][1].erase("interval_reaches_confidence"); // ... but an older file may not say
    CHECK(error_of(edited).empty());
  }
  SUBCASE("a document of nothing") {
    CHECK(error_of(nlohmann::json{{"schema_version", 1}}) ==
          "results.json: no \"analysis\" and no \"cells\": not a run's results");
  }
}
