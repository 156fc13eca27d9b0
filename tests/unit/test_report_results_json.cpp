#include <doctest/doctest.h>

#include <refbench/analysis/from_record.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/runner/journal.hpp>
#include <refbench/runner/record_reader.hpp>

#include <cmath>

using namespace refbench;

namespace {

// A record of a family "enc" over 1 KiB and 32 MiB (fixed 0.45 s + 2 ms/MiB)
// whose 32 MiB cell only gates wall and shows wall and rss.
runner::RunRecord family_record() {
  runner::RunRecord record;
  record.seed = 11;
  record.rss = {"launcher", 4 << 20, 0.0001};
  runner::CellMeta small{std::vector<std::string>{"wall"}, std::vector<std::string>{"wall"}, {}, "enc", 1024};
  runner::CellMeta large{
      std::vector<std::string>{"wall", "rss"}, std::vector<std::string>{"wall"}, {{"wall", 1.2}}, "enc", 32u << 20};
  record.cells = {{"enc-1KiB", false, runner::StopReason::max_rounds, 12, std::nullopt, small},
                  {"enc-32MiB", false, runner::StopReason::max_rounds, 12, std::nullopt, large}};
  for (int round = 1; round <= 12; ++round) {
    for (std::size_t cell = 0; cell < 2; ++cell) {
      for (auto arm : {runner::Arm::baseline, runner::Arm::candidate}) {
        process::Outcome o;
        o.wall_seconds = (cell == 0 ? 0.450 : 0.514) * (1.0 + 0.001 * (round % 3));
        o.peak_rss_bytes = 64 << 20;
        record.samples.push_back({cell, arm, round, 0, o});
      }
    }
  }
  return record;
}

} // namespace

TEST_CASE("runner::CellMeta travels through the journal and results.json") {
  auto record = family_record();
  report::RunContext context;
  context.metrics = {runner::Metric::wall, runner::Metric::cpu};
  context.gated = {runner::Metric::wall};
  std::vector<runner::CellSpec> specs(2);
  for (std::size_t i = 0; i < 2; ++i) {
    specs[i].name = record.cells[i].name;
    specs[i].meta = record.cells[i].meta;
  }
  std::string text = report::journal_header(context, specs, record.rss, record.seed).dump() + "\n";
  for (const auto& sample : record.samples) {
    text += runner::to_json(sample, record.cells).dump() + "\n";
  }
  auto check = [&](const runner::RunRecord& read) {
    REQUIRE(read.cells.size() == 2);
    CHECK(read.cells[1].meta.family == "enc");
    CHECK(read.cells[1].meta.payload_bytes == (32u << 20));
    CHECK(read.cells[1].meta.metrics == std::vector<std::string>{"wall", "rss"});
    CHECK(read.cells[1].meta.threshold.at("wall") == 1.2);
    // the cells' own metrics win over the run's (wall, cpu)
    auto samples = analysis::cell_samples(read, context.metrics, context.gated);
    REQUIRE(samples[1].metrics.size() == 2);
    CHECK(samples[1].metrics[1].metric == "rss");
    CHECK_FALSE(samples[1].metrics[1].gated);
    CHECK(samples[1].metrics[0].threshold == 1.2);
    REQUIRE(samples[0].metrics.size() == 1);
  };
  check(runner::read_journal(text, "journal.jsonl").record);
  check(runner::read_results(report::results_json(record, context, {}), "results.json").record);
  SUBCASE("no meta: the run's metrics") {
    runner::CellMeta none;
    CHECK(runner::to_json(none).empty());
    CHECK_FALSE(runner::cell_meta_from_json(nlohmann::json()).metrics);
  }
}

TEST_CASE("report::results_json") {
  auto record = family_record();
  report::RunContext context;
  context.command = "run";
  context.baseline_label = "v1.0.0";
  context.candidate_label = "main";
  context.metrics = {runner::Metric::wall};
  context.gated = {runner::Metric::wall};
  context.threshold = 1.15;
  context.settings.max_rounds = 12;
  context.settings.budget_seconds = 60;
  context.reproduce = "refbench run --seed 11";
  auto results =
      analysis::analyze(analysis::cell_samples(record, context.metrics, context.gated), {1.15, 0.05, 0.95, 10});
  auto document = report::results_json(record, context, results);

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
    CHECK(report::results_json(record, context, results).at("warnings").size() == 1);
    for (std::size_t i = 13; i < record.samples.size(); ++i) {
      record.samples[i].outcome.rss_floor_bytes = 200 << 20;
    }
    auto warnings = report::results_json(record, context, results).at("warnings");
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[1].at("cell") == "enc-1KiB"); // sample 13: round 4, the first cell's candidate
    CHECK(warnings[1].at("message") == "the launcher's RSS floor rose from 3.000 MiB to 200.0 MiB while running the "
                                       "candidate command of enc-1KiB in round 4: rss readings from then on include "
                                       "it");
  }
  SUBCASE("arms without refs are the commands") {
    CHECK(document.at("arms").at("baseline").at("command") == "v1.0.0");
    context.arms = {{"baseline", {{"ref", "v1.0.0"}, {"sha", "abc"}}}, {"candidate", {{"ref", "main"}}}};
    CHECK(report::results_json(record, context, results).at("arms").at("baseline").at("sha") == "abc");
  }
  SUBCASE("context_from_json reads back what was written") {
    for (const auto& header : {document, report::journal_header(context, {}, record.rss, record.seed)}) {
      auto read = report::context_from_json(header);
      CHECK(read.command == "run");
      CHECK(read.reproduce == "refbench run --seed 11");
      CHECK(read.baseline_label == "v1.0.0");
      CHECK(read.candidate_label == "main");
      CHECK(read.settings.max_rounds == 12);
      CHECK(read.settings.budget_seconds == 60);
      CHECK(read.settings.seed == 11);
      CHECK(read.threshold == 1.15);
      CHECK(read.metrics == context.metrics);
    }
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
        "censored,min_detectable_ratio,noise_floor\n"
        "\"parse, \"\"large\"\"\",wall,seconds,true,false,12,0.25,0.3,1.2,1.1,1.3,0.01,0.02,REGRESSION,false,1.0833,\n"
        "x-control,wall,bytes,false,true,12,0.25,0.3,,1.1,1.3,,,REGRESSION,false,1.0833,1.04\n");
  CHECK(report::csv_field("a\rb") == "\"a\rb\"");
}
