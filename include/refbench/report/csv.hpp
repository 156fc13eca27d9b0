#pragma once
// report.csv (docs/manual/output-files.md): one row per cell × metric, RFC 4180 quoting.

#include <refbench/analysis/analysis.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace refbench::report {

// `text` as one CSV field: quoted (with doubled quotes) when it holds a
// comma, a quote, a carriage return or a newline.
std::string csv_field(std::string_view text);

// The header and one row per result, each ending in "\n". Columns: cell,
// metric, unit, gated, control, n, baseline_median, candidate_median, ratio,
// ci_low, ci_high, p, p_bh, verdict, censored, min_detectable_ratio,
// noise_floor, kind, difference, diff_ci_low, diff_ci_high, slo,
// baseline_slo_share, candidate_slo_share, candidate, p_improved,
// p_improved_bh, p_better, p_better_bh; numbers with 9 significant digits, empty when not defined.
std::string render_csv(const std::vector<analysis::MetricResult>& results);

} // namespace refbench::report
