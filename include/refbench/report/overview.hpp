#pragma once
// The overview of a long run (docs/manual/suites.md, Many rows): every gated row's
// ratio to its baseline, counted in bins on a log scale that the run's
// threshold T cuts into — below 1/T, seven bins across [1/T, T] with one
// centred on 1, above T — beside the A/A control's rows in the same bins,
// with a bar per bin and the rows beyond the threshold named. A chart of
// where hundreds of rows fall, in lines as few as the bins: a radar or a
// forest plot needs a line or an axis per row.

#include <refbench/analysis/analysis.hpp>

#include <string>
#include <vector>

namespace refbench::report {

// The most rows named beside each outer bin; the rest are counted.
inline constexpr std::size_t k_overview_named = 3;

// The overview of `results` against `threshold` (> 1), lines ending in
// '\n'; "" when no gated row has a finite positive ratio. Gated rows
// without one (ERROR, a count metric's difference) are counted in a last
// line; the A/A column counts the control's rows of the gated metrics.
std::string render_overview(const std::vector<analysis::MetricResult>& results, double threshold);

} // namespace refbench::report
