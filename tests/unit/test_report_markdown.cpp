// report.md (docs/manual/output-files.md): snapshots of the exact Markdown for five documents
// under tests/unit/snapshots/ (REFBENCH_UPDATE_SNAPSHOTS=1 rewrites them),
// and the facts each one must show, checked on their own.
#include "snapshot.hpp"
#include "utf8_check.hpp"
#include <doctest/doctest.h>

#include <refbench/formats/results_json.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <string>

using namespace refbench;
using analysis::MetricResult;
using nlohmann::json;
using stats::Verdict;

using refbench::test::check_snapshot;
using refbench::test::valid_utf8;

namespace {

// A result of `metric` in `cell` with ratio `ratio` [lo, hi]; wall is gated.
MetricResult result(const std::string& cell, const std::string& metric, double baseline, double ratio, double lo,
                    double hi, Verdict verdict) {
  MetricResult r;
  r.cell = cell;
  r.metric = metric;
  r.unit = metric == "rss" ? analysis::Unit::bytes : analysis::Unit::seconds;
  r.gated = metric == "wall";
  r.n = 30;
  r.baseline_median = baseline;
  r.candidate_median = baseline * ratio;
  r.ratio = ratio;
  r.ci_low = lo;
  r.ci_high = hi;
  r.p = 0.41;
  if (r.gated) {
    r.p_bh = 0.62;
  }
  r.verdict = verdict;
  r.min_detectable_ratio = std::sqrt(hi / lo);
  if (verdict == Verdict::error) { // analysis leaves a failed cell out of BH
    r.p.reset();
    r.p_bh.reset();
  }
  return r;
}

MetricResult control(const std::string& cell, const std::string& metric, double baseline, double lo, double hi) {
  MetricResult r = result(cell, metric, baseline, 1.0, lo, hi, Verdict::pass);
  r.control = true;
  r.gated = false;
  r.p.reset();
  r.p_bh.reset();
  return r;
}

// Sets every wall result's noise floor from the control's interval.
void set_floor(std::vector<MetricResult>& results, double floor) {
  for (auto& r : results) {
    if (r.metric == "wall") {
      r.noise_floor = floor;
    }
  }
}

json cell(const std::string& name, int rounds, const std::string& stop, bool is_control = false) {
  return {
      {"name", name}, {"control", is_control}, {"stop_reason", stop}, {"rounds", rounds}, {"samples", json::array()}};
}

// A `run` document with two refs, its settings, environment and `results`.
json run_document(const std::vector<MetricResult>& results, json cells) {
  json analysis = json::array();
  for (const auto& r : results) {
    analysis.push_back(formats::to_json(r));
  }
  return {{"schema_version", 1},
          {"command", "run"},
          {"seed", 424242},
          {"verdict", analysis::run_verdict_name(analysis::overall_verdict(results))},
          {"partial", false},
          {"arms",
           {{"baseline", {{"ref", "main"}, {"sha", "1a2b3c4d5e6f7a8b"}, {"dir", "/w/a"}, {"build_seconds", 41.2}}},
            {"candidate", {{"ref", "feat/x"}, {"sha", "5d6e7f8a9b0c1d2e"}, {"dir", "/w/b"}, {"build_seconds", 43.9}}}}},
          {"settings",
           {{"budget_seconds", 600},
            {"max_rounds", 60},
            {"min_rounds", 10},
            {"threshold", 1.15},
            {"alpha", 0.05},
            {"precision", 0.02},
            {"interval", "signed-rank"},
            {"metrics", {"wall", "rss"}},
            {"gate", {"wall"}}}},
          {"environment",
           {{"kernel", "Linux 6.1.0-18-amd64"},
            {"machine", "x86_64"},
            {"cpu_model", "AMD EPYC 7763 64-Core Processor"},
            {"cpus", 4},
            {"cores", 2},
            {"threads_per_core", 2},
            {"governor", "performance"}}},
          {"rss", {{"method", "launcher"}, {"floor_bytes", 4194304}, {"spawn_resolution_seconds", 0.00012}}},
          {"elapsed_seconds", 312.4},
          {"total_seconds", 401.9},
          {"reproduce", "refbench run --seed 424242 --budget 10m main feat/x"},
          {"cells", std::move(cells)},
          {"analysis", std::move(analysis)},
          {"warnings", json::array()}};
}

// (a) three cells and the control, every wall PASS, rss shown as info.
json pass_document() {
  std::vector<MetricResult> results{control("encrypt-1MiB-control", "wall", 0.4718, 0.962, 1.041),
                                    result("encrypt-1MiB", "wall", 0.4718, 1.011, 0.987, 1.038, Verdict::pass),
                                    result("encrypt-1MiB", "rss", 12.5 * 1048576, 1.0, 1.0, 1.0, Verdict::pass),
                                    result("encrypt-32MiB", "wall", 0.5267, 0.991, 0.968, 1.017, Verdict::pass),
                                    result("encrypt-32MiB", "rss", 44.0 * 1048576, 1.002, 1.0, 1.004, Verdict::pass),
                                    result("decrypt-1MiB", "wall", 0.0314, 0.874, 0.851, 0.899, Verdict::improved),
                                    result("decrypt-1MiB", "rss", 12.5 * 1048576, 1.0, 1.0, 1.0, Verdict::pass)};
  set_floor(results, 1.041);
  return run_document(results,
                      {cell("encrypt-1MiB", 24, "precision"), cell("encrypt-32MiB", 31, "precision"),
                       cell("decrypt-1MiB", 60, "max-rounds"), cell("encrypt-1MiB-control", 24, "precision", true)});
}

// (b) one regression in encrypt-32MiB, with a sensitivity warning.
json regression_document() {
  std::vector<MetricResult> results{control("encrypt-1MiB-control", "wall", 0.4718, 0.947, 1.038),
                                    result("encrypt-1MiB", "wall", 0.4718, 1.011, 0.982, 1.040, Verdict::pass),
                                    result("encrypt-32MiB", "wall", 0.5267, 1.203, 1.171, 1.236, Verdict::regression)};
  results[2].p = 0.0004;
  results[2].p_bh = 0.003;
  set_floor(results, 1.056);
  auto document = run_document(results, {cell("encrypt-1MiB", 57, "precision"), cell("encrypt-32MiB", 34, "budget"),
                                         cell("encrypt-1MiB-control", 57, "precision", true)});
  document["settings"]["metrics"] = {"wall"};
  document["elapsed_seconds"] = 600.3;
  document["warnings"] = {{{"cell", "encrypt-32MiB"},
                           {"message", "`encrypt-32MiB`: fixed cost is 86 % of this cell; a regression confined to "
                                       "payload work cannot exceed 1.14× here, below the 1.15× gate."}}};
  return document;
}

// (c) the control's interval is wider than the threshold: nothing can pass.
json inconclusive_document() {
  std::vector<MetricResult> results{control("startup-control", "wall", 0.0021, 0.851, 1.184),
                                    result("startup", "wall", 0.0021, 1.02, 0.88, 1.21, Verdict::inconclusive),
                                    result("parse", "wall", 0.0105, 0.97, 0.90, 1.05, Verdict::inconclusive)};
  set_floor(results, 1.184 > 1 / 0.851 ? 1.184 : 1 / 0.851);
  auto document = run_document(results, {cell("startup", 60, "max-rounds"), cell("parse", 60, "max-rounds"),
                                         cell("startup-control", 60, "max-rounds", true)});
  document["settings"]["metrics"] = {"wall"};
  document["environment"].erase("threads_per_core");
  document["environment"].erase("cores");
  document["environment"]["governor"] = "unknown";
  return document;
}

// (d) a `compare` whose cell (named with |, ` and <) failed in round 3, and
// a CENSORED rss in the control; the run was interrupted afterwards.
json error_document() {
  const std::string name = "a|b `c` <d>";
  MetricResult wall = result(name, "wall", 0.012, NAN, NAN, NAN, Verdict::error);
  wall.error = "the candidate exited with code 3";
  MetricResult rss = result(name, "rss", 4194304, NAN, NAN, NAN, Verdict::error);
  rss.error = wall.error;
  MetricResult censored = control(name + "-control", "rss", 4194304, 1.0, 1.0);
  censored.censored = true;
  censored.verdict = Verdict::censored;
  std::vector<MetricResult> results{wall, rss, control(name + "-control", "wall", 0.012, 0.97, 1.03), censored};
  set_floor(results, 1.031);
  auto failed = cell(name, 3, "error");
  failed["failure"] = {{"arm", "candidate"},
                       {"round", 3},
                       {"description", "exited with code 3"},
                       {"stderr_tail", "loading config\nwarning: cache is cold\nerror: `frobnicate` failed: <eof>\n"}};
  auto document = run_document(results, {failed, cell(name + "-control", 5, "interrupted", true)});
  document["command"] = "compare";
  document["partial"] = true;
  document["arms"] = {{"baseline", {{"command", "./bench --mode=`old`"}}}, {"candidate", {{"command", "./bench"}}}};
  document["reproduce"] = "refbench compare --seed 424242 --name 'a|b `c` <d>' './bench --mode=`old`' ./bench";
  document.erase("total_seconds");
  return document;
}

// (e) 400 cells, every tenth failed with a long stderr: the details cannot fit.
json oversized_document() {
  std::vector<MetricResult> results;
  json cells = json::array();
  std::string stderr_tail;
  for (int line = 1; line <= 60; ++line) {
    stderr_tail += fmt::format("line {:02} of a long and chatty stderr — ünïcödé so cuts must respect UTF-8\n", line);
  }
  for (int i = 0; i < 400; ++i) {
    const std::string name = fmt::format("payload-family-{:03}", i);
    auto c = cell(name, 20, "precision");
    if (i % 10 == 0) {
      results.push_back(result(name, "wall", NAN, NAN, NAN, NAN, Verdict::error));
      results.back().n = 0;
      c["stop_reason"] = "error";
      c["rounds"] = 0;
      c["failure"] = {
          {"arm", "baseline"}, {"round", 0}, {"description", "killed by signal 9"}, {"stderr_tail", stderr_tail}};
    } else {
      results.push_back(result(name, "wall", 0.05, 1.0, 0.98, 1.02, Verdict::pass));
    }
    cells.push_back(std::move(c));
  }
  auto document = run_document(results, std::move(cells));
  document["settings"]["metrics"] = {"wall"};
  return document;
}

// `document` read as results.json (a schema_version added when it has none).
report::RunDocument read(json document) {
  document.emplace("schema_version", report::k_schema_version);
  return formats::document_from_json(document, "results.json");
}

std::string markdown(const json& document, std::size_t limit = report::k_markdown_limit) {
  return report::render_markdown(read(document), limit);
}

MetricResult from_json(const json& entry) {
  return formats::metric_result_from_json(util::JsonFields(entry, "results.json", "analysis[0]", ""));
}

// The line of `text` that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (line.starts_with(prefix)) {
      return line;
    }
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return "";
}

std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::size_t count = text.starts_with(prefix) ? 1 : 0;
  for (std::size_t at = text.find("\n" + prefix); at != std::string::npos; at = text.find("\n" + prefix, at + 1)) {
    ++count;
  }
  return count;
}

} // namespace

TEST_CASE("formats::document_from_json: what other commands leave out") {
  SUBCASE("a CSV analysis: no arms, environment or cells") {
    MetricResult csv = result("bench", "value", 10, 1.3, 1.2, 1.4, Verdict::regression);
    csv.gated = true;
    json entry = formats::to_json(csv);
    entry.erase("unit");
    json document{{"command", "analyze"}, {"analysis", {entry}}, {"settings", {{"threshold", 1.1}}}};
    auto model = read(document);
    CHECK(model.header.command == "analyze");
    CHECK(model.verdict == analysis::RunVerdict::regression); // derived from the analysis
    CHECK_FALSE(model.header.baseline.has_value());
    CHECK_FALSE(model.header.environment.has_value());
    CHECK(model.record.cells.empty());
    CHECK(model.header.settings.threshold == 1.1);
    REQUIRE(model.results.size() == 1);
    CHECK(model.results[0].unit == analysis::Unit::plain);
    CHECK(model.results[0].verdict == Verdict::regression);
    auto text = report::render_markdown(model);
    CHECK(text.find("### refbench: ❌ 1 regression\n") != std::string::npos);
    CHECK(text.find("noise floor unknown (no A/A control)") != std::string::npos);
  }
  SUBCASE("an empty document is no run: refused, never an empty report") {
    CHECK_THROWS_WITH_AS(read(json::object()), doctest::Contains("has neither `cells` nor `analysis`"), UsageError);
    CHECK_THROWS_AS(read(json{{"schema_version", 1}}), UsageError);
    auto model = read(json{{"analysis", json::array()}}); // an analysis of nothing is one
    CHECK(model.verdict == analysis::RunVerdict::inconclusive);
    CHECK(model.header.settings.threshold == 1.15);
    CHECK(report::render_markdown(model).starts_with(
        "<!-- refbench -->\n### refbench: ⚠️ inconclusive: no results\n"));
  }
}

TEST_CASE("formats::metric_result_from_json inverts to_json") {
  MetricResult r = result("c", "cpu", 0.25, 1.1, 1.05, 1.16, Verdict::inconclusive);
  r.direction = analysis::Direction::higher_is_better;
  r.noise_floor = 1.04;
  r.error = "outputs differ";
  r.paired = false;
  auto back = from_json(formats::to_json(r));
  CHECK(back.cell == "c");
  CHECK(back.metric == "cpu");
  CHECK(back.unit == analysis::Unit::seconds); // by name: no "unit" key yet
  CHECK(back.direction == analysis::Direction::higher_is_better);
  CHECK_FALSE(back.paired);
  CHECK(back.ratio == r.ratio);
  CHECK(back.ci_low == r.ci_low);
  CHECK(back.p == r.p);
  CHECK(back.p_bh == r.p_bh);
  CHECK(back.noise_floor == r.noise_floor);
  CHECK(back.min_detectable_ratio == r.min_detectable_ratio);
  CHECK(back.verdict == Verdict::inconclusive);
  CHECK(back.error == r.error);

  MetricResult empty = result("c", "rss", NAN, NAN, NAN, NAN, Verdict::censored);
  empty.p.reset();
  auto j = formats::to_json(empty);
  j["unit"] = "plain";
  auto none = from_json(j);
  CHECK(std::isnan(none.ratio));
  CHECK(std::isnan(none.baseline_median));
  CHECK_FALSE(none.p.has_value());
  CHECK(none.unit == analysis::Unit::plain); // the key wins over the name
  CHECK(none.verdict == Verdict::censored);
  CHECK(from_json(json{{"cell", "c"}, {"metric", "rss"}}).unit == analysis::Unit::bytes);
}

TEST_CASE("report::render_markdown (a) a clean pass") {
  const auto text = markdown(pass_document());
  check_snapshot("pass.md", text);
  CHECK(text.starts_with("<!-- refbench -->\n"));
  CHECK(line_starting(text, "### ") ==
        "### refbench: ✅ no regression · baseline `main` (1a2b3c4) vs candidate `feat/x` (5d6e7f8)");
  CHECK(line_starting(text, "noise floor") ==
        "noise floor ±4.1 % · threshold 1.15x · rounds 24–60 of max 60 · budget used 5 min 12 s of 10 min · "
        "wall time 6 min 42 s");
  CHECK(count_lines_starting(text, "| encrypt") == 5 + 3); // verdict table rows + per-cell rows
  CHECK(text.find("- CPU: AMD EPYC 7763 64-Core Processor · 4 logical CPUs · 2 cores × 2 threads per core · SMT on") !=
        std::string::npos);
  CHECK(text.find("```sh\nrefbench run --seed 424242 --budget 10m main feat/x\n```") != std::string::npos);
  CHECK(text.ends_with("</details>\n"));
}

TEST_CASE("report::render_markdown (b) a regression") {
  const auto text = markdown(regression_document());
  check_snapshot("regression.md", text);
  CHECK(line_starting(text, "### ").starts_with("### refbench: ❌ 1 regression · "));
  CHECK(line_starting(text, "| encrypt-32MiB | wall |") ==
        "| encrypt-32MiB | wall | 526.7 ms | 633.6 ms | 1.203x [1.171, 1.236] | 0.003 | 30 | REGRESSION |");
  // the estimate sits right of the threshold mark on the regressed row
  const std::string row = line_starting(text, "encrypt-32MiB wall");
  REQUIRE_FALSE(row.empty());
  const auto estimate = util::code_points(row.substr(0, row.find("●")));
  const auto gate = util::code_points(row.substr(0, row.find("┆")));
  CHECK(row.find("┆") != std::string::npos);
  CHECK(estimate > gate);
  CHECK(text.find("- `encrypt-32MiB`: fixed cost is 86 % of this cell") != std::string::npos);
}

TEST_CASE("report::render_markdown (c) inconclusive: the noise floor reaches the threshold") {
  const auto text = markdown(inconclusive_document());
  check_snapshot("inconclusive.md", text);
  CHECK(line_starting(text, "### ").starts_with("### refbench: ⚠️ inconclusive: 2 metrics undecided · "));
  CHECK(line_starting(text, "noise floor").starts_with("noise floor ±18.4 % (≥ threshold: no cell can pass)"));
  CHECK(text.find("SMT unknown") != std::string::npos);
}

TEST_CASE("report::render_markdown: a suite's per-row floors are a spread, never \"no cell can pass\" when rows can") {
  // three benchmarks of a suite, each judged against its own control row's floor
  std::vector<MetricResult> results;
  const std::vector<std::pair<std::string, double>> rows{{"zip/a", 1.019}, {"zip/b", 1.172}, {"zip/c", 1.04}};
  for (const auto& [name, floor] : rows) {
    auto row = result(name, "wall", 0.01, 1.0, 0.99, 1.01, floor < 1.15 ? Verdict::pass : Verdict::inconclusive);
    row.noise_floor = floor;
    auto aa = control(name + "-control", "wall", 0.01, 1 / floor, floor);
    aa.noise_floor = floor;
    results.push_back(row);
    results.push_back(aa);
  }
  json cells = json::array({cell("zip", 30, "precision"), cell("zip-control", 30, "precision", true)});
  auto text = markdown(run_document(results, cells));
  CHECK(line_starting(text, "noise floor")
            .starts_with(
                "noise floors ±1.9–17.2 % over 3 A/A rows (1 ≥ threshold: their rows cannot pass) · threshold 1.15x"));
  CHECK(text.find("no cell can pass") == std::string::npos);
  for (auto& r : results) {
    r.noise_floor = 1.2;
  }
  text = markdown(run_document(results, cells));
  CHECK(line_starting(text, "noise floor")
            .starts_with("noise floors ±20.0 % over 3 A/A rows (all ≥ threshold: no row can pass)"));
}

TEST_CASE("report::render_markdown (d) an ERROR cell and a CENSORED metric") {
  const auto text = markdown(error_document());
  check_snapshot("error.md", text);
  CHECK(line_starting(text, "### ") == "### refbench: 💥 1 cell failed · baseline `` ./bench --mode=`old` `` vs "
                                       "candidate `./bench` · ⏸ partial (interrupted)");
  // the name is escaped in the table and a code span in prose
  CHECK(line_starting(text, "| a\\|b \\`c\\` &lt;d&gt; | wall |").ends_with("| ERROR |"));
  CHECK(text.find("``a|b `c` <d>``: the candidate failed in round 3: exited with code 3") != std::string::npos);
  CHECK(text.find("```text\nloading config\nwarning: cache is cold\nerror: `frobnicate` failed: <eof>\n```") !=
        std::string::npos);
  CHECK(text.find("- ``a|b `c` <d>-control`` rss: RSS at the launcher floor (4.000 MiB)") != std::string::npos);
  CHECK(text.find("partial: interrupted") != std::string::npos);
}

TEST_CASE("report::render_markdown (e) details beyond the limit are trimmed") {
  const auto document = oversized_document();
  const auto text = markdown(document);
  check_snapshot("oversized.md", text);
  CHECK(text.size() <= report::k_markdown_limit);
  CHECK(valid_utf8(text));
  CHECK(text.find("_Left out to stay under 60000 bytes: ") != std::string::npos);
  CHECK(text.find("results.json has everything._") != std::string::npos);
  // 400 results lead with the 40 ERROR rows; the whole table, intact, is collapsed under them
  CHECK(count_lines_starting(text, "| payload-family-") == 440);
  CHECK(text.find("<details><summary>All 400 results</summary>") != std::string::npos);
  CHECK(text.ends_with("</details>\n"));
  SUBCASE("smaller limits drop the details, the plot, then PASS rows; cuts keep UTF-8 whole") {
    for (std::size_t limit : {40000UL, 20000UL, 9000UL, 3001UL, 700UL, 301UL, 7UL}) {
      const auto small = markdown(document, limit);
      CHECK(small.size() <= limit);
      CHECK(valid_utf8(small));
    }
    const auto rows = markdown(document, 9000); // the collapsed whole table goes first, the leading rows stay
    CHECK(count_lines_starting(rows, "| payload-family-") == 40);
    CHECK(rows.find("| ERROR |") != std::string::npos);
    CHECK(rows.find("All 400 results</summary>") == std::string::npos);
    const auto tight = markdown(document, 3001); // then the leading table's own rows
    CHECK(count_lines_starting(tight, "| payload-family-") < 40);
    CHECK(tight.find("table rows left out to stay under 3001 bytes (") != std::string::npos);
  }
}

TEST_CASE("report::render_markdown shortens a long stderr line between characters") {
  auto document = error_document();
  std::string tail;
  for (int i = 0; i < 3000; ++i) {
    tail += "ü"; // two bytes each, one line
  }
  document["cells"][0]["failure"]["stderr_tail"] = tail;
  const auto full = markdown(document, 1 << 20);
  REQUIRE(full.find(tail) != std::string::npos);
  const auto text = markdown(document, full.size() - 1);
  CHECK(text.size() < full.size());
  CHECK(valid_utf8(text));
  CHECK(text.find(tail) == std::string::npos);
  CHECK(text.find(tail.substr(0, 1000)) != std::string::npos); // the last 1000 bytes: 500 whole ü
  CHECK(text.find(tail.substr(0, 1002)) == std::string::npos);
  CHECK(text.find("_Left out to stay under ") != std::string::npos);
  CHECK(text.find("stderr tails beyond their last 5 lines") != std::string::npos);
}

TEST_CASE("report::render_markdown says in one line where wall and instruction counts disagree") {
  auto counts = [](const std::string& cell, double ratio, Verdict verdict) {
    auto r = result(cell, "instructions", 3.6e8, ratio, ratio, ratio, verdict);
    r.unit = analysis::Unit::plain;
    return r;
  };
  std::vector<MetricResult> results{
      result("io", "wall", 0.2, 1.4, 1.3, 1.5, Verdict::regression),       counts("io", 1.0, Verdict::pass),
      result("ipc", "wall", 0.2, 0.52, 0.5, 0.55, Verdict::improved),      counts("ipc", 1.51, Verdict::regression),
      result("busy", "wall", 0.2, 1.01, 0.97, 1.04, Verdict::pass),        counts("busy", 1.3, Verdict::regression),
      result("agree", "wall", 0.2, 1.4, 1.3, 1.5, Verdict::regression),    counts("agree", 1.4, Verdict::regression),
      result("unsure", "wall", 0.2, 1.1, 0.9, 1.3, Verdict::inconclusive), counts("unsure", 1.3, Verdict::regression)};
  const auto text = markdown(run_document(results, {cell("io", 30, "max-rounds"), cell("ipc", 30, "max-rounds"),
                                                    cell("busy", 30, "max-rounds"), cell("agree", 30, "max-rounds"),
                                                    cell("unsure", 30, "max-rounds")}));
  CHECK(line_starting(text, "**Counts and wall disagree** in `io`") ==
        "**Counts and wall disagree** in `io`: wall REGRESSION (1.400x) but instructions PASS (1.000x): the change is "
        "outside the counted instruction stream — system calls, I/O, cache misses, code layout.");
  CHECK(line_starting(text, "**Counts and wall disagree** in `busy`") ==
        "**Counts and wall disagree** in `busy`: instructions REGRESSION (1.300x) but wall PASS (1.010x): the counted "
        "work does not bind the time — it waits on memory, I/O or other processes.");
  // 2x faster with 1.51x the instructions (a latency-bound loop replaced by a wider one)
  CHECK(line_starting(text, "**Counts and wall disagree** in `ipc`") ==
        "**Counts and wall disagree** in `ipc`: wall IMPROVED (0.520x) but instructions REGRESSION (1.510x): the time "
        "follows memory, I/O or instructions per cycle, not the instruction count.");
  // both moved the same way, or one could not tell: no line
  CHECK(count_lines_starting(text, "**Counts and wall disagree**") == 3);
}

TEST_CASE("report::render_markdown leads a suite of 500 benchmarks with what moved, within a comment") {
  std::vector<MetricResult> results;
  json cells = json::array();
  for (const bool is_control : {false, true}) {
    for (int b = 0; b < 500; ++b) {
      const std::string name =
          fmt::format("{}/BM_a_rather_long_benchmark_name_{}", is_control ? "micro-control" : "micro", b);
      for (const char* metric : {"real_time", "cpu_time"}) {
        const double ratio = is_control ? 1.0 : b == 321 ? 1.4 : b == 17 ? 0.6 : 1.0;
        const Verdict verdict = ratio > 1 ? Verdict::regression : ratio < 1 ? Verdict::improved : Verdict::pass;
        auto r = is_control ? control(name, metric, 2e-6, 0.98, 1.02)
                            : result(name, metric, 2e-6, ratio, ratio * 0.98, ratio * 1.02, verdict);
        r.gated = !is_control && std::string_view(metric) == "real_time";
        results.push_back(r);
      }
      cells.push_back(cell(name, 20, "max-rounds", is_control));
    }
  }
  const auto text = markdown(run_document(results, cells));
  CHECK(text.size() <= report::k_markdown_limit);
  CHECK(report::k_markdown_limit <= 65536); // GitHub's limit on a comment
  CHECK(valid_utf8(text));
  // regressions first, then improvements; the rest counted
  const auto first = text.find("| micro/BM_a_rather_long_benchmark_name_321 | real_time |");
  const auto second = text.find("| micro/BM_a_rather_long_benchmark_name_17 | real_time |");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  CHECK(text.find("| micro/BM_a_rather_long_benchmark_name_0 |") > text.find("**996 more results**"));
  CHECK(line_starting(text, "**996 more results**") ==
        "**996 more results** pass, or are undecided on a metric that does not gate (and the A/A control's 1000): all "
        "2000 are under *All 2000 results* below and in report.csv.");
  // the overview of all 500 gated rows beside the control's 500, the two that moved named
  CHECK(line_starting(text, "0.980x – 1.020x") ==
        "0.980x – 1.020x                  498    500  ██████████████████████████████");
  CHECK(line_starting(text, "above 1.150x (T)") ==
        "above 1.150x (T)                   1      0  █  micro/BM_a_rather_…name_321 real_time 1.400x");
  CHECK(line_starting(text, "below 0.870x (1/T)") ==
        "below 0.870x (1/T)                 1      0  █  micro/BM_a_rather_…name_17 real_time 0.600x");
}

namespace {

// One explanation as results.json carries it: `functions` functions and
// as many allocation sites, each named `name` and its index.
json explanation_json(const std::string& cell, std::size_t functions, const std::string& name) {
  json list = json::array();
  for (std::size_t i = 0; i < functions; ++i) {
    list.push_back({{"function", fmt::format("{}{}", name, i)},
                    {"object", "prog"},
                    {"baseline", 1000.0 * static_cast<double>(i + 1)},
                    {"candidate", 3000.0 * static_cast<double>(i + 1)},
                    {"delta", 2000.0 * static_cast<double>(i + 1)}});
  }
  return {{"cell", cell},
          {"source", "callgrind"},
          {"seconds", 2.5},
          {"instructions", {{"baseline", 1e6}, {"candidate", 2e6}}},
          {"functions", list},
          {"allocation_sites", list},
          {"graph", "why/1-" + cell + ".svg"}};
}

} // namespace

TEST_CASE("report: 500 explained rows keep the comment within GitHub's limit, names escaped, the rest counted") {
  std::vector<MetricResult> results;
  json cells = json::array();
  json explanations = json::array();
  const std::string hostile = "std::vector<int>::</details><script>alert(1)</script>|@here_";
  for (int i = 0; i < 500; ++i) {
    const auto name = fmt::format("cell-{}", i);
    results.push_back(result(name, "wall", 0.01, 2.0, 1.9, 2.1, Verdict::regression));
    cells.push_back(cell(name, 20, "precise"));
    explanations.push_back(explanation_json(name, 50, hostile));
  }
  auto document = run_document(results, cells);
  document["explanations"] = explanations;
  const auto read_back = read(document);
  REQUIRE(read_back.explanations.size() == 500);
  CHECK(read_back.explanations[7].functions.size() == 50);
  CHECK(read_back.explanations[7].functions[1].delta == 4000);
  const auto text = report::render_markdown(read_back);
  CHECK(text.size() <= report::k_markdown_limit);
  CHECK(valid_utf8(text));
  CHECK(text.find("<details><summary>Where cell-0 changed: 1\u2009000\u2009000 → 2\u2009000\u2009000 instructions "
                  "(+100.0 %), 50 "
                  "functions moved</summary>") != std::string::npos);
  // the sections that fit in a third of the limit (8 here); the rest counted
  CHECK(text.find("<summary>Where cell-7 changed") != std::string::npos);
  CHECK(text.find("492 more explained cells in results.json (explanations).") != std::string::npos);
  CHECK(text.find("42 more functions moved") != std::string::npos);
  CHECK(text.find("<script") == std::string::npos);
  CHECK(text.find("</details><script") == std::string::npos);
  CHECK(text.find("| std::vector&lt;int&gt;::&lt;/details&gt;&lt;script&gt;") != std::string::npos);
  CHECK(text.find("[Call stacks, baseline → candidate](why/1-cell-0.svg)") != std::string::npos);
}

TEST_CASE("report: an explanation with nothing moved says where to look; a graph outside why/ is refused") {
  auto document =
      run_document({result("c", "wall", 0.01, 2.0, 1.9, 2.1, Verdict::regression)}, {cell("c", 20, "precise")});
  document["explanations"] = {explanation_json("c", 0, "f")};
  const auto text = markdown(document);
  CHECK(text.find("No function's instructions moved: look at I/O, system calls, cache misses and code layout") !=
        std::string::npos);
  for (const char* graph : {"javascript:alert(1)", "why/../../x.svg", "why/a b.svg", "https://x/why/a.svg"}) {
    document["explanations"][0]["graph"] = graph;
    CHECK_THROWS_WITH_AS(read(document), doctest::Contains("explanations[0].graph must be a picture under why/"),
                         UsageError);
  }
}
