#include <doctest/doctest.h>

#include "git_test_support.hpp"
#include "pipeline_test_support.hpp"

#include <refbench/history/history.hpp>
#include <refbench/pipeline/history.hpp>
#include <refbench/util/files.hpp>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// `refbench history` and what `run --history` does with a history, end to
// end on history.jsonl files written here: a chain of links whose
// cumulative ratio is their product, the window that exit 1 follows,
// history-last over a real repository, appending a run, the band notes.

using namespace refbench;

namespace history_test {

namespace fs = std::filesystem;

// A made-up 40-hex commit id for link `k` of a chain.
std::string history_sha(int k) { return fmt::format("{:040x}", 0xc0ffee00 + k); }

// A record of cell `work` × wall: `baseline` → `candidate` at `ratio` ± `half` (relative), 20 pairs, its own run.
history::Record history_link(const std::string& baseline, const std::string& candidate, double ratio,
                             double half = 0.005, const std::string& repository = "root") {
  static int run = 0;
  history::Record r;
  r.time = fmt::format("2026-01-{:02}T03:00:00Z", 1 + run % 28);
  r.run_id = fmt::format("run{:04}", ++run);
  r.repository = repository;
  r.baseline = {"nightly", baseline};
  r.candidate = {"main", candidate};
  r.cell = "work";
  r.metric = "wall";
  r.gated = true;
  r.unit = "seconds";
  r.ratio = ratio;
  r.ci_low = ratio * (1 - half);
  r.ci_high = ratio * (1 + half);
  r.verdict = ratio * (1 - half) > 1.15 ? "REGRESSION" : "PASS";
  r.n = 20;
  return r;
}

// Appends the chain of `ratios` (link k: sha k → sha k+1) to `dir`'s history, one run per link.
void history_write_chain(const fs::path& dir, const std::vector<double>& ratios,
                         const std::string& repository = "root") {
  for (std::size_t k = 0; k < ratios.size(); ++k) {
    const int i = static_cast<int>(k);
    REQUIRE(history::append(dir, {history_link(history_sha(i), history_sha(i + 1), ratios[k], 0.005, repository)}));
  }
}

// What run_history returned, its stdout parsed as JSON.
struct HistoryRan {
  int code = -1;
  nlohmann::json printed;
};

// Runs run_history on `o` with --format json, its output captured.
HistoryRan history_run(pipeline::HistoryOptions o) {
  o.format = pipeline::HistoryFormat::json;
  test::CapturedOutput captured;
  HistoryRan ran;
  ran.code = pipeline::run_history(o, {.quiet = true});
  ran.printed = nlohmann::json::parse(captured.out.str());
  return ran;
}

// A result row of `cell` × wall at `ratio`, gated unless `gated` is false.
analysis::MetricResult history_result(const std::string& cell, double ratio, bool gated = true, bool control = false) {
  analysis::MetricResult r;
  r.cell = cell;
  r.metric = "wall";
  r.gated = gated;
  r.control = control;
  r.n = 20;
  r.ratio = ratio;
  r.ci_low = ratio * 0.99;
  r.ci_high = ratio * 1.01;
  r.baseline_median = 0.1;
  r.candidate_median = 0.1 * ratio;
  r.verdict = stats::Verdict::inconclusive;
  return r;
}

// The exponentially weighted mean of `logs` at the last value and its deviation (span 10, α = 2/11;
// the incremental EW variance), started at the first value.
std::pair<double, double> history_ewma(const std::vector<double>& logs) {
  const double alpha = 2.0 / 11.0;
  double mean = logs.front();
  double variance = 0;
  for (std::size_t t = 1; t < logs.size(); ++t) {
    const double delta = logs[t] - mean;
    variance = (1 - alpha) * (variance + alpha * delta * delta);
    mean += alpha * delta;
  }
  return {mean, std::sqrt(variance)};
}

} // namespace history_test

using namespace history_test;

TEST_CASE("pipeline::run_history: a chain's cumulative ratio is its links' product; exit 1 follows the window") {
  test::ScratchDir dir;
  const std::vector<double> ratios{1.04, 1.04, 1.04, 1.04, 1.04}; // no link a regression, 1.22x in all
  history_write_chain(dir.path(), ratios);
  pipeline::HistoryOptions o;
  o.dir = dir.str();

  const auto all = history_run(o);

  CHECK(all.code == 1);
  REQUIRE(all.printed.at("series").size() == 1);
  const auto& series = all.printed.at("series")[0];
  CHECK(series.at("cell") == "work");
  CHECK(series.at("links") == 5);
  CHECK(series.at("cumulative_ratio").get<double>() == doctest::Approx(std::pow(1.04, 5)).epsilon(1e-12));
  CHECK(series.at("verdict") == "REGRESSION (creep)");
  CHECK(series.at("window").at("verdict") == "REGRESSION (creep)");

  o.window = 2; // the last two links: 1.04² = 1.08x, within 1.15
  const auto recent = history_run(o);
  CHECK(recent.code == 0);
  const auto& window = recent.printed.at("series")[0].at("window");
  CHECK(window.at("links") == 2);
  CHECK(window.at("cumulative_ratio").get<double>() == doctest::Approx(1.04 * 1.04).epsilon(1e-12));
  CHECK(window.at("verdict") == "PASS");
  CHECK(recent.printed.at("series")[0].at("verdict") == "REGRESSION (creep)"); // the whole chain's stays
}

TEST_CASE("pipeline::run_history: no directory is exit 2; no records, or nothing to judge, exit 3") {
  test::ScratchDir dir;
  pipeline::HistoryOptions o;
  test::CapturedOutput captured;

  o.dir = dir / "missing";
  auto thrown = test::thrown_by([&] { pipeline::run_history(o, {.quiet = true}); });
  CHECK(thrown.code == 2);
  CHECK(thrown.what == dir / "missing" + " is not a directory");

  o.dir = dir.str(); // no history.jsonl: an empty history
  thrown = test::thrown_by([&] { pipeline::run_history(o, {.quiet = true}); });
  CHECK(thrown.code == 3);
  CHECK(thrown.what.find("has no records") != std::string::npos);

  test::write_file(dir.path() / history::k_history_file, "not json\n");
  thrown = test::thrown_by([&] { pipeline::run_history(o, {.quiet = true}); });
  CHECK(thrown.code == 3);
  CHECK(thrown.what.find("(1 line skipped)") != std::string::npos); // quiet: the warning was not printed above

  auto unjudged = history_link(history_sha(0), history_sha(1), 1.0); // a count metric's line: no ratio
  unjudged.ratio.reset();
  unjudged.ci_low.reset();
  unjudged.ci_high.reset();
  std::filesystem::remove(dir.path() / history::k_history_file);
  REQUIRE(history::append(dir.path(), {unjudged}));
  thrown = test::thrown_by([&] { pipeline::run_history(o, {.quiet = true}); });
  CHECK(thrown.code == 3);
  CHECK(thrown.what.find("has 1 records and no series with a ratio to judge") != std::string::npos);
  CHECK(captured.out.str().empty());
}

TEST_CASE("pipeline::repository_id and history_last: the root commit, and the last record's candidate") {
  test::IsolatedGitEnvironment git;
  test::TempDir dir;
  const std::string repo = test::create_history_repo(dir);
  const std::string root = test::sh("git rev-parse 'v1.2.0^{commit}'", repo); // the first commit
  const std::string two = test::sh("git rev-parse v1.10.0-rc1", repo);
  const std::string three = test::sh("git rev-parse main", repo);

  CHECK(pipeline::repository_id(repo, "HEAD") == root);
  CHECK(pipeline::repository_id(repo, "feat/x") == root);

  CHECK(test::thrown_by([&] { pipeline::history_last(std::nullopt, repo); }).code == 2);
  const auto history_dir = dir.path() / "history";
  std::filesystem::create_directories(history_dir);
  const auto empty = test::thrown_by([&] { pipeline::history_last(history_dir, repo); });
  CHECK(empty.code == 3);
  CHECK(empty.what.find("has no records yet") != std::string::npos);

  REQUIRE(history::append(history_dir, {history_link(root, three, 1.0, 0.005, root)}));
  REQUIRE(history::append(history_dir, {history_link(three, two, 1.0, 0.005, root)})); // file order, not commit order
  CHECK(pipeline::history_last(history_dir, repo) == two);

  const std::string stranger = std::string(40, 'e');
  REQUIRE(history::append(history_dir, {history_link(two, stranger, 1.0, 0.005, root)}));
  const auto absent = test::thrown_by([&] { pipeline::history_last(history_dir, repo); });
  CHECK(absent.code == 3);
  CHECK(absent.what.find("commit eeeeeeeeeeee (line 3 of the history) is not in") != std::string::npos);
}

TEST_CASE("pipeline::append_to_history: a run's rows but its control, once; an interrupted run not at all") {
  test::IsolatedGitEnvironment git;
  test::TempDir dir;
  const std::string repo = test::create_history_repo(dir);
  const std::string root = test::sh("git rev-parse 'v1.2.0^{commit}'", repo);
  const std::string three = test::sh("git rev-parse main", repo);
  report::RunDocument document;
  document.header.command = "run";
  document.header.baseline = report::ArmInfo{.ref = "v1.2.0", .sha = root};
  document.header.candidate = report::ArmInfo{.ref = "main", .sha = three};
  document.results = {history_result("work", 1.1), history_result("work-control", 1.0, false, true)};
  const auto history_dir = dir.path() / "history";

  {
    test::CapturedOutput captured;
    pipeline::append_to_history(history_dir, document, repo, false);
    pipeline::append_to_history(history_dir, document, repo, false); // the same run again
    CHECK(captured.err.str().find("refbench: history: appended 1 record(s)") != std::string::npos);
    CHECK(captured.err.str().find("refbench: history: already holds 1 record(s)") != std::string::npos);
  }
  const auto read = history::read_history(history_dir);
  REQUIRE(read.records.size() == 1);
  const auto& record = read.records[0];
  CHECK(record.repository == root);
  CHECK(record.baseline.sha == root);
  CHECK(record.candidate.sha == three);
  CHECK(record.cell == "work");
  CHECK(record.ratio.value() == doctest::Approx(1.1).epsilon(1e-12));
  CHECK(record.ci_high.value() == doctest::Approx(1.1 * 1.01).epsilon(1e-12));

  document.partial = true;
  const auto other_dir = dir.path() / "other";
  test::CapturedOutput captured;
  pipeline::append_to_history(other_dir, document, repo, false);
  CHECK_FALSE(std::filesystem::exists(other_dir / history::k_history_file));
  CHECK(captured.err.str().find("interrupted: nothing appended") != std::string::npos);
}

TEST_CASE("pipeline::band_notes: a gated row's place in the band of its series' last ratios") {
  test::ScratchDir dir;
  report::RunDocument document;
  document.results = {history_result("work", 1.3), history_result("work", 1.3, false),
                      history_result("work-control", 1.3, true, true)};
  document.results[1].metric = "user";                       // ungated, and a series the history lacks
  CHECK(pipeline::band_notes(dir.path(), document).empty()); // no history yet

  history_write_chain(dir.path(), {1.10, 1.10, 1.02, 1.02});

  const auto last_two = pipeline::band_notes(dir.path(), document, 2);
  REQUIRE(last_two.size() == 1); // the gated row only: not the ungated one, not the control
  CHECK(last_two[0].cell == "work");
  const auto& band = last_two[0].facts.at("history");
  CHECK(band.at("points") == 2);
  CHECK(band.at("ewma").get<double>() == doctest::Approx(1.02).epsilon(1e-12)); // two equal ratios
  CHECK(band.at("sd").get<double>() == 0.0);
  CHECK(band.at("z").get<double>() == 0.0); // no spread: no distance in deviations
  CHECK(last_two[0].message.find("work wall 1.300x") != std::string::npos);

  const auto all = pipeline::band_notes(dir.path(), document, 0);
  REQUIRE(all.size() == 1);
  const auto& wide = all[0].facts.at("history");
  CHECK(wide.at("points") == 4);
  const auto [mean, sd] = history_ewma({std::log(1.10), std::log(1.10), std::log(1.02), std::log(1.02)});
  REQUIRE(sd > 0);
  CHECK(wide.at("ewma").get<double>() == doctest::Approx(std::exp(mean)).epsilon(1e-12));
  CHECK(wide.at("sd").get<double>() == doctest::Approx(sd).epsilon(1e-12));
  CHECK(wide.at("z").get<double>() == doctest::Approx((std::log(1.3) - mean) / sd).epsilon(1e-9));
}
