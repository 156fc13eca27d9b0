#include "scratch_dir.hpp"
#include <doctest/doctest.h>

#include <refbench/history/history.hpp>
#include <refbench/history/series.hpp>
#include <refbench/util/error.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

using namespace refbench;

namespace {

// A link from commit `from` to `to` of `ratio` ± 1 %.
history::Record link(const std::string& from, const std::string& to, double ratio, const std::string& run) {
  history::Record r;
  r.time = "2026-12-01T00:00:00Z";
  r.run_id = run;
  r.repository = "root0";
  r.baseline = {from, from};
  r.candidate = {to, to};
  r.cell = "parse";
  r.metric = "wall";
  r.gated = true;
  r.unit = "seconds";
  r.ratio = ratio;
  r.ci_low = ratio / 1.01;
  r.ci_high = ratio * 1.01;
  r.verdict = "PASS";
  r.n = 20;
  return r;
}

} // namespace

TEST_CASE("history::append: whole runs, once, under a lock; read back line by line") {
  test::ScratchDir dir;
  const auto first = link("a", "b", 1.04, "run1");
  CHECK(history::append(dir.path(), {first, first}));
  CHECK_FALSE(history::append(dir.path(), {first})); // the same run_id: not twice
  CHECK(history::append(dir.path(), {link("b", "c", 1.04, "run2")}));
  auto read = history::read_history(dir.path());
  REQUIRE(read.records.size() == 3);
  CHECK(read.warnings.empty());
  CHECK(read.records[2].candidate.sha == "c");
  CHECK(*read.records[2].ratio == 1.04);
  CHECK(read.records[2].line == 3);
  // a torn last line stays its own line: the next run starts a fresh one
  { std::ofstream(dir / "history.jsonl", std::ios::app) << "{\"time\": \"torn"; }
  CHECK(history::append(dir.path(), {link("c", "d", 1.0, "run3")}));
  read = history::read_history(dir.path());
  REQUIRE(read.records.size() == 4);
  REQUIRE(read.warnings.size() == 1);
  CHECK(read.warnings[0].find("history.jsonl:4: skipped, not a JSON line") != std::string::npos);
  CHECK(read.records[3].line == 5);
  // concurrent appends from threads with their own descriptors: every line whole
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<history::Record> run(50, link("x", "y", 1.0, "thread" + std::to_string(t)));
      history::append(dir.path(), run);
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  read = history::read_history(dir.path());
  CHECK(read.records.size() == 4 + 8 * 50);
  CHECK(read.warnings.size() == 1);
}

TEST_CASE("history::read_history: a negative or inverted ratio is a line skipped with a warning, never silently") {
  test::ScratchDir dir;
  auto negative = link("b", "c", 1.0, "run2");
  negative.ratio = -1.0;
  auto inverted = link("c", "d", 1.0, "run3");
  inverted.ci_low = 1.2;
  inverted.ci_high = 0.9;
  history::append(dir.path(), {link("a", "b", 1.0, "run1")});
  history::append(dir.path(), {negative});
  history::append(dir.path(), {inverted});
  const auto read = history::read_history(dir.path());
  CHECK(read.records.size() == 1);
  REQUIRE(read.warnings.size() == 2);
  CHECK(read.warnings[0].ends_with("history.jsonl:2: skipped, \"ratio\" is -1, not a positive ratio"));
  CHECK(read.warnings[1].ends_with("history.jsonl:3: skipped, \"ci_low\" 1.2 is above \"ci_high\" 0.9"));
}

TEST_CASE("history::read_history refuses another repository and another schema version by line") {
  test::ScratchDir dir;
  auto other = link("b", "c", 1.0, "run2");
  other.repository = "root1";
  history::append(dir.path(), {link("a", "b", 1.0, "run1")});
  history::append(dir.path(), {other});
  CHECK_THROWS_WITH_AS(history::read_history(dir.path()),
                       doctest::Contains("history.jsonl:2: a record of another repository"), UsageError);
  CHECK_THROWS_AS(history::read_history(dir.path(), std::string("root9")), UsageError);
  std::ofstream(dir / "history.jsonl") << "{\"schema_version\": 2}\n";
  CHECK_THROWS_WITH_AS(history::read_history(dir.path()),
                       doctest::Contains("history.jsonl:1: history schema_version 2 is not 1"), UsageError);
  // a planted symlink is never written through
  test::ScratchDir planted;
  std::filesystem::create_symlink(planted / "elsewhere", planted / "history.jsonl");
  CHECK_THROWS_AS(history::append(planted.path(), {link("a", "b", 1.0, "r")}), RefusedError);
  CHECK_FALSE(std::filesystem::exists(planted / "elsewhere"));
}

TEST_CASE("history::build_series: chains by commits, creep, a fixed baseline") {
  // five nights of +4 %, then a flat one, written out of order
  std::vector<history::Record> records{link("n3", "n4", 1.04, "r4"), link("n0", "n1", 1.04, "r1"),
                                       link("n1", "n2", 1.04, "r2"), link("n2", "n3", 1.04, "r3"),
                                       link("n4", "n5", 1.04, "r5"), link("n5", "n6", 1.00, "r6")};
  auto series = history::build_series(records, {});
  REQUIRE(series.size() == 1);
  const auto& s = series[0];
  CHECK(s.chained);
  REQUIRE(s.points.size() == 6);
  CHECK(s.points[0].record->candidate.sha == "n1"); // commit order, not line order
  CHECK(s.points[5].record->candidate.sha == "n6");
  CHECK(s.ratio == doctest::Approx(std::pow(1.04, 5)));
  // six links of ±1 % from 20 pairs each: the half-width t(114) / t(19) · √6 · log 1.01
  // (scipy: t.ppf(0.975, 114) / t.ppf(0.975, 19) · √6 · log 1.01)
  CHECK(std::log(s.ci_high / s.ratio) == doctest::Approx(0.02306862525756874).epsilon(1e-9));
  CHECK(s.verdict == "REGRESSION (creep)");
  CHECK(s.moved_most.size() == 3);
  CHECK(s.points[5].level == doctest::Approx(5 * std::log(1.04)));
  // a link that was itself a REGRESSION: a plain REGRESSION, not creep
  records[1].verdict = "REGRESSION";
  CHECK(history::build_series(records, {}).front().verdict == "REGRESSION");
  // a fixed baseline: the last ratio decides
  std::vector<history::Record> fixed{link("v1", "m1", 1.02, "a"), link("v1", "m2", 1.03, "b"),
                                     link("v1", "m3", 1.05, "c")};
  auto f = history::build_series(fixed, {}).front();
  CHECK_FALSE(f.chained);
  CHECK(f.points.size() == 3);
  CHECK(f.ratio == doctest::Approx(1.05));
  CHECK(f.verdict == "PASS");
  // a higher-is-better metric: a falling ratio is the regression
  for (auto& r : records) {
    r.higher_is_better = true;
    r.verdict = "PASS";
    r.ratio = 1 / *r.ratio;
    r.ci_low = *r.ratio / 1.01;
    r.ci_high = *r.ratio * 1.01;
  }
  CHECK(history::build_series(records, {}).front().verdict == "REGRESSION (creep)");
  history::SeriesSettings only;
  only.cells = {"nothing*"};
  CHECK_THROWS_AS(history::build_series(records, only), UsageError);
  std::ostringstream written;
  history::write_history_json(written, series, {"x.jsonl:3: skipped"});
  const auto document = nlohmann::json::parse(written.str());
  CHECK(document["series"][0]["links"] == 6);
  CHECK(document["series"][0]["verdict"] == "REGRESSION (creep)");
  CHECK(document["series"][0]["window"]["links"] == 6);
  CHECK(document["warnings"] == nlohmann::json::array({"x.jsonl:3: skipped"}));
  CHECK(written.str() == document.dump(2) + "\n"); // a series at a time, indented as one document
  std::ostringstream empty;
  history::write_history_json(empty, {}, {});
  CHECK(nlohmann::json::parse(empty.str()) ==
        nlohmann::json({{"series", nlohmann::json::array()}, {"warnings", nlohmann::json::array()}}));
  const auto html = history::render_history_html(series, {"x.jsonl:3: skipped <b>"}, 1.15);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("skipped &lt;b&gt;") != std::string::npos);
}

TEST_CASE("history::build_series: a counted metric's series is judged at the count threshold") {
  // a fixed baseline 1.03x ahead: inside wall's 1.15, past the counts' 1.01
  auto counted = [](const std::string& metric, const std::string& to, const std::string& run) {
    auto r = link("v1", to, 1.03, run);
    r.metric = metric;
    r.unit = "plain";
    r.ci_low = r.ci_high = r.ratio; // counts: a point
    return r;
  };
  const std::vector<history::Record> records{counted("instructions", "m1", "a"), counted("wall", "m1", "a"),
                                             counted("allocations", "m1", "a")};
  const auto series = history::build_series(records, {});
  REQUIRE(series.size() == 3);
  for (const auto& s : series) {
    INFO(s.metric);
    CHECK(s.threshold == (s.metric == "wall" ? 1.15 : 1.01));
    CHECK(s.verdict == (s.metric == "wall" ? "PASS" : "REGRESSION"));
  }
  std::ostringstream written;
  history::write_history_json(written, series, {});
  CHECK(nlohmann::json::parse(written.str())["series"][0]["threshold"].get<double>() > 1.0);
}

TEST_CASE("history::build_series: suite rows keep their names and the threshold their run judged them at") {
  // two nights of a Google Benchmark and a go suite: rows named CELL/BENCHMARK,
  // go's bytes_per_op a count (1.01 in its run), a real_time row with a cell's
  // override of 1.03, a plain row at the run's threshold
  auto row = [](const std::string& cell, const std::string& metric, double ratio, std::optional<double> threshold,
                const std::string& to, const std::string& run) {
    auto r = link(to == "n1" ? "n0" : "n1", to, ratio, run);
    r.cell = cell;
    r.metric = metric;
    r.threshold = threshold;
    return r;
  };
  const std::vector<history::Record> records{row("micro/BM_vec/1024", "real_time", 1.03, std::nullopt, "n1", "a"),
                                             row("micro/BM_vec/1024", "real_time", 1.03, std::nullopt, "n2", "b"),
                                             row("go/BenchmarkAlloc", "bytes_per_op", 1.03, 1.01, "n1", "a"),
                                             row("go/BenchmarkAlloc", "bytes_per_op", 1.03, 1.01, "n2", "b"),
                                             row("micro/BM_hash", "real_time", 1.03, 1.03, "n1", "a"),
                                             row("micro/BM_hash", "real_time", 1.03, 1.03, "n2", "b")};
  const auto series = history::build_series(records, {});
  REQUIRE(series.size() == 3);
  std::map<std::string, const history::Series*> by_name;
  for (const auto& s : series) {
    by_name[s.cell + " " + s.metric] = &s;
  }
  REQUIRE(by_name.contains("micro/BM_vec/1024 real_time"));
  REQUIRE(by_name.contains("go/BenchmarkAlloc bytes_per_op"));
  REQUIRE(by_name.contains("micro/BM_hash real_time"));
  // two links of +3 % (±1 % each): 1.061x, inside 1.15, past 1.01 and 1.03
  CHECK(by_name["micro/BM_vec/1024 real_time"]->threshold == 1.15);
  CHECK(by_name["micro/BM_vec/1024 real_time"]->verdict == "PASS");
  CHECK(by_name["go/BenchmarkAlloc bytes_per_op"]->threshold == 1.01);
  CHECK(by_name["go/BenchmarkAlloc bytes_per_op"]->verdict == "REGRESSION (creep)");
  CHECK(by_name["micro/BM_hash real_time"]->threshold == 1.03);
  CHECK(by_name["micro/BM_hash real_time"]->verdict == "REGRESSION (creep)");
  // --cells picks a suite's rows by glob, '/' and all
  history::SeriesSettings only;
  only.cells = {"micro/BM_vec*"};
  CHECK(history::build_series(records, only).size() == 1);
  // the threshold goes through a history line and back
  std::string problem;
  const auto back = history::record_from_json(history::to_json(records[2]), problem);
  REQUIRE(back);
  CHECK(back->threshold == 1.01);
  CHECK_FALSE(history::record_from_json(history::to_json(records[0]), problem)->threshold);
}
