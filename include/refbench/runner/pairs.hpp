#pragma once
// Metrics of a sample and the complete pairs of a cell (same round, both
// arms succeeded) that analysis works on.

#include <refbench/runner/record.hpp>

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::runner {

enum class Metric { wall, cpu, user, sys, rss };

std::string_view metric_name(Metric metric);

// Parses a comma-separated list like "wall,cpu,rss"; an unknown or repeated
// name is an error naming it.
std::expected<std::vector<Metric>, std::string> parse_metric_list(std::string_view text);

// The value of `metric` in `outcome` (seconds or bytes).
double metric_value(const process::Outcome& outcome, Metric metric);

struct PairedValues {
  std::vector<int> rounds;
  std::vector<double> baseline;
  std::vector<double> candidate;
  // Per pair: whether each reading sits at its measurement floor (for rss:
  // within k_rss_censor_margin of the launcher's peak RSS at the time).
  std::vector<bool> baseline_at_floor;
  std::vector<bool> candidate_at_floor;
};

// Whether `outcome`'s `metric` reading sits at its measurement floor (README: Statistics):
// rss within k_rss_censor_margin of the launcher's peak (the larger of the
// sample's and the run's start-up floor in `floors`); wall below 10× the
// timer or spawn resolution; cpu/user/sys of 0 (below the rusage resolution).
bool at_floor(const process::Outcome& outcome, Metric metric, const process::RssProbe& floors);

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
