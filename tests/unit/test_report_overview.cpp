// The overview of a long run: each ratio's bin computed by hand from the
// bin edges exp(−e + i · 2e/7), e = ln 1.15 — 0.870, 0.905, 0.942, 0.980,
// 1.020, 1.062, 1.105, 1.150 — and the exact text.
#include <doctest/doctest.h>

#include <refbench/report/overview.hpp>

#include <string>
#include <vector>

using namespace refbench;
using analysis::MetricResult;
using stats::Verdict;

namespace {

MetricResult row(const std::string& cell, double ratio, bool control = false, const std::string& metric = "real_time") {
  MetricResult r;
  r.cell = cell;
  r.metric = metric;
  r.gated = !control;
  r.control = control;
  r.ratio = ratio;
  r.verdict = ratio > 1.15 ? Verdict::regression : ratio < 1 / 1.15 ? Verdict::improved : Verdict::pass;
  return r;
}

} // namespace

TEST_CASE("report::render_overview counts every gated row and the control's in bins cut by T") {
  std::vector<MetricResult> results{
      row("micro/BM_a", 1.0),
      row("micro/BM_b", 0.99),
      row("micro/BM_c", 1.019), // 0.980–1.020
      row("micro/BM_d", 1.03),  // 1.020–1.062
      row("micro/BM_e", 1.12),  // 1.105–1.150
      row("micro/BM_f", 1.4),
      row("micro/BM_g", 1.16), // above T, furthest first
      row("micro/BM_h", 0.6),  // below 1/T
      row("micro/BM_i", 0.95), // 0.942–0.980
      row("micro-control/BM_a", 1.0, true),
      row("micro-control/BM_b", 1.01, true),            // the control's, gated metric
      row("micro-control/BM_c", 0.93, true),            // 0.905–0.942
      row("micro-control/BM_a", 1.5, true, "cpu_time"), // a metric gated nowhere: not counted
  };
  auto not_gated = row("micro/BM_a", 2.0);
  not_gated.metric = "cpu_time";
  not_gated.gated = false;
  results.push_back(not_gated);
  auto error = row("micro/BM_z", 1.0);
  error.error = "BM_z failed";
  error.verdict = Verdict::error;
  results.push_back(error);

  CHECK(report::render_overview(results, 1.15) == "gated rows, ratio to baseline   rows    A/A\n"
                                                  "below 0.870x (1/T)                 1      0  ██████████  "
                                                  "micro/BM_h real_time 0.600x\n"
                                                  "0.870x – 0.905x                    0      0\n"
                                                  "0.905x – 0.942x                    0      1\n"
                                                  "0.942x – 0.980x                    1      0  ██████████\n"
                                                  "0.980x – 1.020x                    3      2  "
                                                  "██████████████████████████████\n"
                                                  "1.020x – 1.062x                    1      0  ██████████\n"
                                                  "1.062x – 1.105x                    0      0\n"
                                                  "1.105x – 1.150x                    1      0  ██████████\n"
                                                  "above 1.150x (T)                   2      0  ████████████████████  "
                                                  "micro/BM_f real_time 1.400x, micro/BM_g real_time 1.160x\n"
                                                  "not on the chart: 1 gated row without a ratio (ERROR, a count's "
                                                  "difference)\n");
}

TEST_CASE("report::render_overview names three rows beyond T, elided in the middle, and counts the rest") {
  std::vector<MetricResult> results;
  for (int i = 0; i < 5; ++i) {
    results.push_back(row("suite/BM_a_benchmark_with_a_very_long_name_indeed_" + std::to_string(i), 1.2 + 0.1 * i));
  }
  const auto text = report::render_overview(results, 1.15);
  CAPTURE(text);
  // whole words dropped from the middle, the end kept: "…indeed_4 real_time" and "…indeed_3 real_time" stay apart
  CHECK(text.find("above 1.150x (T)                   5      0  ██████████████████████████████  "
                  "suite/BM_a_benchmark_…indeed_4 real_time 1.600x, suite/BM_a_benchmark_…indeed_3 real_time "
                  "1.500x, suite/BM_a_benchmark_…indeed_2 real_time 1.400x, 2 more\n") != std::string::npos);
  CHECK(report::render_overview({}, 1.15).empty());
  CHECK(report::render_overview({row("x", 1.0, true)}, 1.15).empty()); // the control alone: no gated row
}
