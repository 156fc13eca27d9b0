#include <doctest/doctest.h>

#include "pipeline_test_support.hpp"
#include "scratch_dir.hpp"

#include <refbench/pipeline/analyze.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// `refbench analyze` end to end on files made here: a CSV of pairs and a
// hyperfine export, its ratios checked against Hodges–Lehmann estimates
// computed here from the values written.

using namespace refbench;

namespace analyze_test {

// The median of `values` (an odd count in these tests; the mean of the two middle ones otherwise).
double analyze_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The paired Hodges–Lehmann ratio: exp of the median of the Walsh averages of log(candidate / baseline).
double analyze_paired_ratio(const std::vector<double>& baseline, const std::vector<double>& candidate) {
  std::vector<double> d;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    d.push_back(std::log(candidate[i] / baseline[i]));
  }
  std::vector<double> walsh;
  for (std::size_t i = 0; i < d.size(); ++i) {
    for (std::size_t j = i; j < d.size(); ++j) {
      walsh.push_back((d[i] + d[j]) / 2);
    }
  }
  return std::exp(analyze_median(walsh));
}

// The unpaired Hodges–Lehmann ratio: exp of the median of every log(candidate_j) − log(baseline_i).
double analyze_unpaired_ratio(const std::vector<double>& baseline, const std::vector<double>& candidate) {
  std::vector<double> shifts;
  for (double b : baseline) {
    for (double c : candidate) {
      shifts.push_back(std::log(c) - std::log(b));
    }
  }
  return std::exp(analyze_median(shifts));
}

// Ten pairs of cell `cell`: baselines 10..19, candidates `factor` times them with up to ±2 % of fixed spread.
struct AnalyzePairs {
  std::string cell;
  std::vector<double> baseline;
  std::vector<double> candidate;
  AnalyzePairs(std::string name, double factor, double spread) : cell(std::move(name)) {
    for (int i = 0; i < 10; ++i) {
      baseline.push_back(10.0 + i);
      candidate.push_back(baseline.back() * factor * (1 + spread * static_cast<double>((i * 7) % 5 - 2)));
    }
  }
};

// The CSV (cell,baseline,candidate) of `cells`, one row per pair.
std::string analyze_csv(const std::vector<AnalyzePairs>& cells) {
  std::string csv = "cell,baseline,candidate\n";
  for (const auto& cell : cells) {
    for (std::size_t i = 0; i < cell.baseline.size(); ++i) {
      csv += fmt::format("{},{:.17g},{:.17g}\n", cell.cell, cell.baseline[i], cell.candidate[i]);
    }
  }
  return csv;
}

// What run_analyze returned and printed (stdout parsed as results.json when it is JSON).
struct AnalyzeRan {
  int code = -1;
  nlohmann::json results;
  std::string out;
};

// Runs run_analyze with `o` (JSON to stdout unless `o.format` says otherwise), its output captured.
AnalyzeRan analyze_run(const pipeline::AnalyzeOptions& o) {
  AnalyzeRan ran;
  test::CapturedOutput captured;
  ran.code = pipeline::run_analyze(o, {.quiet = true});
  ran.out = captured.out.str();
  ran.results = nlohmann::json::parse(ran.out, nullptr, false);
  return ran;
}

} // namespace analyze_test

using namespace analyze_test;

TEST_CASE("pipeline::run_analyze: a CSV of pairs, each cell's ratio its Hodges–Lehmann estimate, exit 1 on a "
          "regression") {
  test::ScratchDir dir;
  const AnalyzePairs slow("slow", 1.3, 0.01), same("same", 1.0, 0.005);
  test::write_file(dir.path() / "pairs.csv", analyze_csv({slow, same}));
  pipeline::AnalyzeOptions o;
  o.files = {dir / "pairs.csv"};
  o.format = formats::OutputFormat::json;

  const auto ran = analyze_run(o);

  CHECK(ran.code == 1);
  REQUIRE(ran.results.is_object());
  CHECK(ran.results.at("verdict") == "regression");
  const auto slow_row = test::analysis_row(ran.results, "slow", "value");
  CHECK(slow_row.at("ratio").get<double>() ==
        doctest::Approx(analyze_paired_ratio(slow.baseline, slow.candidate)).epsilon(1e-12));
  CHECK(slow_row.at("n") == 10);
  CHECK(slow_row.at("paired") == true);
  CHECK(slow_row.at("verdict") == "REGRESSION");
  CHECK(slow_row.at("threshold").get<double>() == doctest::Approx(1.15)); // the default
  const auto same_row = test::analysis_row(ran.results, "same", "value");
  CHECK(same_row.at("ratio").get<double>() ==
        doctest::Approx(analyze_paired_ratio(same.baseline, same.candidate)).epsilon(1e-12));
  CHECK(same_row.at("verdict") == "PASS");

  SUBCASE("--fail-on never: the same regression exits 0") {
    o.fail_on = config::FailOn::never;
    CHECK(analyze_run(o).code == 0);
  }
  SUBCASE("--threshold 1.5: 1.3x is within it, a pass") {
    o.threshold = 1.5;
    const auto wide = analyze_run(o);
    CHECK(wide.code == 0);
    CHECK(wide.results.at("verdict") == "pass");
    CHECK(test::analysis_row(wide.results, "slow", "value").at("verdict") == "PASS");
    CHECK(test::analysis_row(wide.results, "slow", "value").at("threshold").get<double>() == doctest::Approx(1.5));
  }
  SUBCASE("--format markdown: the verdict table names both cells") {
    o.format = formats::OutputFormat::markdown;
    const auto markdown = analyze_run(o);
    CHECK(markdown.code == 1);
    CHECK(markdown.out.find("REGRESSION") != std::string::npos);
    CHECK(markdown.out.find("same") != std::string::npos);
  }
}

TEST_CASE("pipeline::run_analyze: a hyperfine export is one unpaired wall cell named after its file") {
  test::ScratchDir dir;
  const std::vector<double> baseline{0.100, 0.102, 0.098, 0.101, 0.099};
  const std::vector<double> candidate{0.080, 0.081, 0.079, 0.082, 0.0805}; // 20 % faster
  nlohmann::json export_json = {{"results",
                                 {{{"command", "old"}, {"mean", 0.1}, {"times", baseline}},
                                  {{"command", "new"}, {"mean", 0.08}, {"times", candidate}}}}};
  test::write_file(dir.path() / "startup.json", export_json.dump());
  pipeline::AnalyzeOptions o;
  o.files = {dir / "startup.json"};
  o.format = formats::OutputFormat::json;

  const auto ran = analyze_run(o);

  CHECK(ran.code == 0); // faster is no regression
  const auto row = test::analysis_row(ran.results, "startup", "wall");
  CHECK(row.at("paired") == false);
  CHECK(row.at("n") == 5);
  CHECK(row.at("ratio").get<double>() == doctest::Approx(analyze_unpaired_ratio(baseline, candidate)).epsilon(1e-12));
  CHECK(row.at("ratio").get<double>() < 1.0);
}

TEST_CASE("pipeline::run_analyze: bad input is a usage error (exit 2) naming the file") {
  test::ScratchDir dir;
  pipeline::AnalyzeOptions o;
  o.format = formats::OutputFormat::json;
  test::CapturedOutput captured; // nothing may be printed before the error

  SUBCASE("a CSV without a candidate column") {
    test::write_file(dir.path() / "bad.csv", "baseline,other\n1,2\n");
    o.files = {dir / "bad.csv"};
    const auto thrown = test::thrown_by([&] { pipeline::run_analyze(o, {.quiet = true}); });
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find(dir / "bad.csv:1") != std::string::npos);
    CHECK(thrown.what.find("no 'candidate' column") != std::string::npos);
  }
  SUBCASE("a non-positive value") {
    test::write_file(dir.path() / "zero.csv", "baseline,candidate\n1,2\n0,2\n");
    o.files = {dir / "zero.csv"};
    const auto thrown = test::thrown_by([&] { pipeline::run_analyze(o, {.quiet = true}); });
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find(dir / "zero.csv:3") != std::string::npos);
  }
  SUBCASE("the same cell in two files") {
    test::write_file(dir.path() / "a/x.csv", "cell,baseline,candidate\nparse,1,2\nparse,1,2\n");
    test::write_file(dir.path() / "b/x.csv", "cell,baseline,candidate\nparse,1,2\nparse,1,2\n");
    o.files = {dir / "a/x.csv", dir / "b/x.csv"};
    const auto thrown = test::thrown_by([&] { pipeline::run_analyze(o, {.quiet = true}); });
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find("cell 'parse' appears in more than one input") != std::string::npos);
  }
  SUBCASE("a file that is not there") {
    o.files = {dir / "missing.csv"};
    const auto thrown = test::thrown_by([&] { pipeline::run_analyze(o, {.quiet = true}); });
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find(dir / "missing.csv") != std::string::npos);
  }
  CHECK(captured.out.str().empty());
}
