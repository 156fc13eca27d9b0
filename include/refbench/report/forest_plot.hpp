#pragma once
// A monospace forest plot (docs/manual/output-files.md): each plotted ratio (●) with its 95 %
// interval (├──┤) on a log scale, against marks for 1.0 (│) and the
// threshold (┆) drawn on every row — the row's own threshold (a counted
// metric's, a cell's override), the run's on the axis — then an axis with
// labels and a legend.
//
// The scale spans [min(1/T, every lower bound), max(T, every upper bound)]
// (and every row's threshold)
// over the plot columns 0 … P−1; value x sits in column
// round((ln x − ln lo) / (ln hi − ln lo) · (P − 1)).

#include <refbench/analysis/analysis.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace refbench::report {

// The widest label column, in code points; longer labels are elided in the middle.
inline constexpr std::size_t k_plot_label_limit = 32;

// The fewest plot columns, however narrow the requested width.
inline constexpr std::size_t k_plot_min_columns = 21;

// Whether `result` gets a row: a gated metric, or the control's row of a
// metric gated elsewhere in `results`; not ERROR or CENSORED; a finite ratio.
bool plotted(const analysis::MetricResult& result, const std::vector<analysis::MetricResult>& results);

// The plot of `results` against `threshold`, lines ending in '\n'; rows and
// axis take at most `width` code points (the plot at least
// k_plot_min_columns), the legend its own; "" when nothing is plotted.
std::string render_forest_plot(const std::vector<analysis::MetricResult>& results, double threshold, std::size_t width);

} // namespace refbench::report
