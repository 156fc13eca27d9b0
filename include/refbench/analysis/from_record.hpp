#pragma once
// Bridges a measured run to the analysis: complete pairs per cell and
// metric with their floor flags, and the precision test of docs/manual/statistics.md.

#include <refbench/analysis/analysis.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/model/record.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::analysis {

// The samples of cell `cell` of `record` for `metrics`; those in `gated` can
// fail the run; `thresholds` overrides the run's threshold per metric name.
// `index`, when given, is `record`'s (model::SampleIndex).
CellSamples cell_samples_of(const model::RunRecord& record, std::size_t cell, const std::vector<model::Metric>& metrics,
                            const std::vector<model::Metric>& gated,
                            const std::map<std::string, double>& thresholds = {},
                            const model::SampleIndex* index = nullptr);

// The samples of every cell of `record`: the metrics and gate of each cell's
// meta, else `metrics` and `gated`; the meta's thresholds apply. Failed
// cells carry their failure as the error.
std::vector<CellSamples> cell_samples(const model::RunRecord& record, const std::vector<model::Metric>& metrics,
                                      const std::vector<model::Metric>& gated);

// The metrics named in `names` (names refbench does not measure are left
// out), or `fallback` when there are no names.
std::vector<model::Metric> metrics_named(const std::optional<std::vector<std::string>>& names,
                                         const std::vector<model::Metric>& fallback);

// Whether `name` is a counted built-in metric (model::counted:
// instructions, allocations, allocated_bytes): its default threshold is
// model::k_default_count_threshold.
bool counted_metric(std::string_view name);

// True when `cell` of `record` has at least `settings.min_rounds` pairs and
// the interval (of `settings.interval`) of every metric in `gated` (and
// every custom metric the cell's meta gates) reaches
// its confidence with a half-width (log units) of at most `precision`, and
// every gated count metric's difference interval a half-width of at most
// half its max_increase (docs/manual/statistics.md). Never looks at significance.
bool precise_enough(const model::RunRecord& record, std::size_t cell, const std::vector<model::Metric>& gated,
                    double precision, const Settings& settings);

} // namespace refbench::analysis
