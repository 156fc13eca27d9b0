// Exports (docs/manual/commands.md#exports): BMF that refbench's own BMF reader reads
// back, and github-action-benchmark's custom JSON of the lower-is-better metrics.
#include <refbench/formats/exports.hpp>
#include <refbench/suites/suite.hpp>

#include <doctest/doctest.h>

using namespace refbench;
using analysis::MetricResult;

namespace {

MetricResult row(const std::string& cell, const std::string& metric, double baseline, double ratio) {
  MetricResult r;
  r.cell = cell;
  r.metric = metric;
  r.n = 12;
  r.baseline_median = baseline;
  r.candidate_median = baseline * ratio;
  r.ratio = ratio;
  r.ci_low = ratio * 0.9;
  r.ci_high = ratio * 1.1;
  return r;
}

report::RunDocument document() {
  report::RunDocument d;
  d.results.push_back(row("micro/BM_b", "real_time", 2e-6, 1.4));
  auto rate = row("micro/BM_b", "items_per_second", 5e8, 0.7);
  rate.direction = analysis::Direction::higher_is_better;
  rate.unit = analysis::Unit::plain;
  rate.unit_label = "items/s";
  d.results.push_back(rate);
  auto control = row("micro-control/BM_b", "real_time", 2e-6, 1.0);
  control.control = true;
  d.results.push_back(control);
  auto added = row("micro/BM_new", "real_time", 0, 1);
  added.candidate_only = true;
  added.candidate_median = 3e-6;
  d.results.push_back(added);
  auto failed = row("micro/BM_err", "real_time", 2e-6, 1);
  failed.error = "reported benchmark `BM_err` as failed: no input";
  d.results.push_back(failed);
  return d;
}

} // namespace

TEST_CASE("to_bmf: the candidate's medians, read back by the BMF reader") {
  const auto bmf = formats::to_bmf(document());
  CHECK(bmf.size() == 2); // no control, no ERROR
  CHECK(bmf["micro/BM_b"]["real_time"]["value"].get<double>() == doctest::Approx(2.8e-6));
  CHECK(bmf["micro/BM_b"]["real_time"]["lower_value"].get<double>() == doctest::Approx(2e-6 * 1.26));
  CHECK(bmf["micro/BM_b"]["real_time"]["upper_value"].get<double>() == doctest::Approx(2e-6 * 1.54));
  CHECK_FALSE(bmf["micro/BM_new"]["real_time"].contains("lower_value"));
  auto read = suites::read_suite(suites::Harness::bmf, bmf.dump(), "the export");
  REQUIRE(read.has_value());
  REQUIRE(read->size() == 2);
  CHECK(read->front().name == "micro/BM_b");
  CHECK(read->front().values.at("items_per_second") == doctest::Approx(3.5e8));
}

TEST_CASE("to_github_action_benchmark: the lower-is-better metrics, with a range") {
  const auto entries = formats::to_github_action_benchmark(document());
  REQUIRE(entries.size() == 2);
  CHECK(entries[0]["name"] == "micro/BM_b (real_time)");
  CHECK(entries[0]["unit"] == "s");
  CHECK(entries[0]["value"].get<double>() == doctest::Approx(2.8e-6));
  CHECK(entries[0]["range"] == "± 2.8e-07"); // half of 2e-6 × [1.26, 1.54]
  CHECK(entries[1]["name"] == "micro/BM_new (real_time)");
  CHECK_FALSE(entries[1].contains("range"));
}
