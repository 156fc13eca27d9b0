#pragma once
// The sweep tables of report.md (docs/manual/config.md#parameter-sweeps): per sweep — the
// cells one [[cell]] with params expanded into — a table with one row per
// level and metric (the parameter values, baseline and candidate medians,
// ratio or difference with its interval, verdict), and per gated metric a
// Mermaid xychart-beta of both arms' medians across the levels, which
// GitHub renders in a comment.

#include <refbench/report/run_document.hpp>

#include <string>

namespace refbench::report {

// The sweeps of `document` that measured at least two levels, each as a
// bold title, its table and its charts, every line ending in '\n'; "" when
// there are none. A chart is left out when a level has no median.
std::string render_sweeps(const RunDocument& document);

// One chart: a ```mermaid block of xychart-beta with `title`, the x-axis
// titled `axis` with `labels`, the y-axis titled `unit`, and one line per
// series (same length as `labels`), numbers in plain decimals (Mermaid
// reads no exponents). Quotes and control characters in the texts become '
// and spaces.
std::string render_xychart(const std::string& title, const std::string& axis, const std::vector<std::string>& labels,
                           const std::string& unit, const std::vector<std::vector<double>>& series);

} // namespace refbench::report
