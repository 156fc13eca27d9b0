#include <doctest/doctest.h>

#include "pipeline_test_support.hpp"
#include "scratch_dir.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/pipeline/report.hpp>
#include <refbench/util/files.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

// `refbench report` end to end: runs measured here with a FakeExecutor
// (their candidate `factor` times slower) re-rendered from their
// results.json and journal.jsonl, and merged by analysed_document.

using namespace refbench;

namespace report_test {

namespace fs = std::filesystem;

// Walls of 0.1 s with ±1 % of deterministic jitter; the candidate's times `factor`.
doubles::FakeExecutor::Script report_walls(double factor) {
  return [factor](const model::Invocation& invocation, std::size_t index) {
    model::Outcome outcome;
    const double jitter = 1.0 + 0.01 * std::sin(static_cast<double>(index) * 1.7);
    outcome.readings[model::Reading::wall] = 0.1 * jitter * (invocation.argv[0] == "/bin/candidate" ? factor : 1.0);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall];
    outcome.readings[model::Reading::rss] = 50 << 20;
    return outcome;
  };
}

// Measures a compare-like run of one cell `cell` (12 rounds, seed 7, threshold `threshold`) into `out`.
void report_measure_into(const fs::path& out, const std::string& cell, double factor, double threshold = 1.15) {
  config::MeasurementFlags flags;
  flags.seed = 7;
  flags.max_rounds = 12;
  flags.min_rounds = 12;
  flags.threshold = threshold;
  flags.replicas = 1;
  const auto settings = config::resolve(flags, nullptr, config::k_compare_defaults);
  const model::Invocation baseline{{"/bin/baseline"}, {}, "", std::chrono::seconds(60), ""};
  const model::Invocation candidate{{"/bin/candidate"}, {}, "", std::chrono::seconds(60), ""};
  pipeline::MeasurementPlan plan{.cells = {{cell, baseline, candidate, false}},
                                 .settings = settings,
                                 .auto_control = true,
                                 .out = out,
                                 .could_not_start_hint = "check the command"};
  plan.header.command = "compare";
  fs::create_directories(out);
  doubles::FakeExecutor fake(report_walls(factor));
  std::ostringstream stdout_text, stderr_text;
  pipeline::Sinks sinks{{.quiet = true}, &stdout_text, &stderr_text, -1};
  sinks.clock = [&fake] { return fake.now(); };
  formats::JournalWriter journal((out / "journal.jsonl").string());
  REQUIRE(pipeline::measure_and_report(plan, fake, journal, sinks) == (factor > 1.15 ? 1 : 0));
}

// The run document in `path` (results.json or journal.jsonl), read as run_report reads it.
report::RunDocument report_read(const fs::path& path) {
  return formats::read_document(path.string(), pipeline::read_input_file(path.string()));
}

// The result of `cell` × wall in `document`; fails the test when there is none.
analysis::MetricResult report_wall_of(const report::RunDocument& document, const std::string& cell) {
  for (const auto& r : document.results) {
    if (r.cell == cell && r.metric == "wall") {
      return r;
    }
  }
  FAIL("no wall result for " << cell);
  return {};
}

// What run_report returned and printed.
struct ReportRan {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs run_report on `files` in `format` under `fail_on`, its output captured.
ReportRan report_run(const std::vector<std::string>& files, formats::OutputFormat format,
                     config::FailOn fail_on = config::FailOn::regression) {
  pipeline::ReportOptions o;
  o.files = files;
  o.format = format;
  o.fail_on = fail_on;
  test::CapturedOutput captured;
  ReportRan ran;
  ran.code = pipeline::run_report(o, {.quiet = true});
  ran.out = captured.out.str();
  ran.err = captured.err.str();
  return ran;
}

} // namespace report_test

using namespace report_test;

TEST_CASE("pipeline::run_report: a results.json re-rendered with its verdict; exit 1 on its regression") {
  test::ScratchDir dir;
  report_measure_into(dir.path() / "slow", "parse", 1.3);
  const std::string results = (dir.path() / "slow/results.json").string();

  const auto json = report_run({results}, formats::OutputFormat::json);
  CHECK(json.code == 1);
  const auto printed = nlohmann::json::parse(json.out);
  const auto written = nlohmann::json::parse(util::read_file(results).value());
  CHECK(printed.at("verdict") == "regression");
  CHECK(printed.at("analysis") == written.at("analysis")); // one results.json is shown as it is, not analysed again
  const auto parse = report_wall_of(report_read(results), "parse");
  CHECK(parse.ratio == doctest::Approx(1.3).epsilon(0.02));
  CHECK(parse.verdict == stats::Verdict::regression);

  const auto markdown = report_run({results}, formats::OutputFormat::markdown);
  CHECK(markdown.code == 1);
  CHECK(markdown.out.find("REGRESSION") != std::string::npos);
  CHECK(markdown.out.find("parse") != std::string::npos);

  CHECK(report_run({results}, formats::OutputFormat::csv, config::FailOn::never).code == 0);
}

TEST_CASE("pipeline::run_report: a journal is analysed again to the results.json's figures") {
  test::ScratchDir dir;
  report_measure_into(dir.path() / "run", "parse", 1.3);
  const auto from_results = report_read(dir.path() / "run/results.json");
  const std::string journal = (dir.path() / "run/journal.jsonl").string();

  const auto ran = report_run({journal}, formats::OutputFormat::json);

  CHECK(ran.code == 1);
  const auto printed = nlohmann::json::parse(ran.out);
  bool seen = false;
  for (const auto& row : printed.at("analysis")) {
    if (row.at("cell") == "parse" && row.at("metric") == "wall") {
      seen = true;
      const auto expected = report_wall_of(from_results, "parse");
      CHECK(row.at("ratio").get<double>() == doctest::Approx(expected.ratio).epsilon(1e-12));
      CHECK(row.at("ci_low").get<double>() == doctest::Approx(expected.ci_low).epsilon(1e-12));
      CHECK(row.at("n") == expected.n);
      CHECK(row.at("verdict") == "REGRESSION");
    }
  }
  CHECK(seen);
}

TEST_CASE("pipeline::analysed_document: two runs of distinct cells merge into one document, each cell's ratio kept") {
  test::ScratchDir dir;
  report_measure_into(dir.path() / "one", "parse", 1.3);
  report_measure_into(dir.path() / "two", "print", 1.0);
  const std::vector<std::string> files{dir / "one/results.json", dir / "two/results.json"};
  const std::vector<report::RunDocument> runs{report_read(files[0]), report_read(files[1])};

  const auto merged = pipeline::analysed_document(runs, files);

  REQUIRE(merged.merged.size() == 2);
  CHECK(merged.merged[0].file == files[0]);
  CHECK(merged.merged[1].file == files[1]);
  CHECK(report_wall_of(merged, "parse").ratio == doctest::Approx(1.3).epsilon(0.02));
  CHECK(report_wall_of(merged, "print").ratio == doctest::Approx(1.0).epsilon(0.02));
  CHECK(report_wall_of(merged, "parse").verdict == stats::Verdict::regression);
  CHECK(report_wall_of(merged, "print").verdict == stats::Verdict::pass);
  CHECK(report_wall_of(merged, "print-control").control);
  CHECK(merged.verdict == analysis::RunVerdict::regression);
  CHECK(merged.record.cells.size() == 4); // both cells and both A/A controls

  // run_report on the two files prints the same merge
  const auto ran = report_run(files, formats::OutputFormat::json);
  CHECK(ran.code == 1);
  CHECK(nlohmann::json::parse(ran.out).at("analysis").size() == merged.results.size());
}

TEST_CASE("pipeline::analysed_document and run_report: what cannot be merged or read is a usage error (exit 2)") {
  test::ScratchDir dir;
  report_measure_into(dir.path() / "one", "parse", 1.3);
  report_measure_into(dir.path() / "other", "print", 1.0, 1.25);
  const std::string one = dir / "one/results.json";
  const std::string other = dir / "other/results.json";

  SUBCASE("the same run twice") {
    const auto thrown = test::thrown_by([&] {
      pipeline::analysed_document({report_read(one), report_read(one)}, {one, one});
    });
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find("cell 'parse' is also in an earlier file") != std::string::npos);
  }
  SUBCASE("another threshold") {
    const auto thrown = test::thrown_by([&] {
      pipeline::analysed_document({report_read(one), report_read(other)}, {one, other});
    });
    CHECK(thrown.code == 2);
    CHECK(thrown.what == other + " was run with another threshold or alpha than " + one);
  }
  SUBCASE("a file that is no run") {
    test::write_file(dir.path() / "notes.json", R"({"hello": "world"})");
    test::CapturedOutput captured;
    const auto thrown = test::thrown_by([&] { report_run({dir / "notes.json"}, formats::OutputFormat::markdown); });
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find(dir / "notes.json") != std::string::npos);
    CHECK(captured.out.str().empty());
  }
}
