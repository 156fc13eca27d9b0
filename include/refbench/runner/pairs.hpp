#pragma once
// The complete pairs of a cell (same round, both arms succeeded) that
// analysis works on, and a new cell's candidate readings.

#include <refbench/runner/metrics.hpp>
#include <refbench/runner/record.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace refbench::runner {

struct PairedValues {
  std::vector<int> rounds;
  std::vector<double> baseline;
  std::vector<double> candidate;
  // Per pair: whether each reading sits at its measurement floor (for rss:
  // within k_rss_censor_margin of the launcher's peak RSS at the time).
  std::vector<bool> baseline_at_floor;
  std::vector<bool> candidate_at_floor;
};

// The complete pairs of `cell` in `record` for `metric`, in round order;
// warm-up samples and rounds with a failed or missing arm are left out.
PairedValues complete_pairs(const RunRecord& record, std::size_t cell, Metric metric);

// A new cell's readings (README: New and removed cells): every usable
// measured candidate sample of `cell`, in the candidate fields of the
// result (its baseline fields stay empty); `custom_metric` "" for `metric`.
PairedValues candidate_values(const RunRecord& record, std::size_t cell, Metric metric,
                              const std::string& custom_metric = "");

// The complete pairs of `cell` for the custom metric named `custom_metric`
// (README: Custom metrics): rounds where both arms reported it. No reading is at a floor.
PairedValues complete_pairs(const RunRecord& record, std::size_t cell, const std::string& custom_metric);

} // namespace refbench::runner
