#pragma once
// The plain per-arm medians table printed after a run: per cell and metric
// the baseline and candidate medians of complete pairs and their ratio.

#include <refbench/runner/pairs.hpp>
#include <refbench/runner/record.hpp>

#include <string>
#include <vector>

namespace refbench::report {

struct MedianRow {
  std::string cell;
  runner::Metric metric = runner::Metric::wall;
  std::size_t pairs = 0;
  double baseline_median = 0;
  double candidate_median = 0;
  double ratio = 0;      // candidate / baseline; NaN without pairs
  bool censored = false; // rss at the launcher floor in ≥ 20 % of either arm
};

// One row per cell of `record` and metric of `metrics`, cells in record order.
std::vector<MedianRow> median_rows(const runner::RunRecord& record, const std::vector<runner::Metric>& metrics);

// The rows as an aligned text table with a header line.
std::string render_median_table(const std::vector<MedianRow>& rows);

} // namespace refbench::report
