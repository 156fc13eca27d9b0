#pragma once
// A run's results in the formats of the dashboards teams keep (docs/manual/commands.md#refbench-report,
// docs/manual/commands.md#exports): Bencher Metric Format, which Bencher ingests, and github-action-benchmark's custom
// JSON. Both give the candidate's median of each measured cell and metric, outside the A/A control.

#include <refbench/report/run_document.hpp>

#include <nlohmann/json.hpp>

namespace refbench::formats {

// {"CELL": {"METRIC": {"value": candidate median, "lower_value",
// "upper_value": the baseline's median times the ratio's interval}}};
// values in the metric's unit (seconds, bytes, or its own).
nlohmann::json to_bmf(const report::RunDocument& document);

// [{"name": "CELL (METRIC)", "unit", "value", "range"}] of the
// lower-is-better metrics (github-action-benchmark's customSmallerIsBetter
// tool takes one direction a file): the candidate's median, "± H" half
// the width of the baseline's median times the ratio's interval.
nlohmann::json to_github_action_benchmark(const report::RunDocument& document);

} // namespace refbench::formats
