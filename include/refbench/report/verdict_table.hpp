#pragma once
// The verdict table of docs/manual/output-files.md in GitHub-flavoured Markdown:
// cell | metric | baseline | candidate | ratio (95% CI) | p (BH) | n | verdict
// (with a candidate column after the cell when a run has several candidates)

#include <refbench/analysis/analysis.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace refbench::report {

// A value in the unit of the metric as Markdown (e.g. "471.8 ms", "12.25
// MiB", "3049"); a plain value is followed by `label` when there is one
// ("3049 req/s"), as util::markdown_text.
std::string format_metric_value(double value, analysis::Unit unit, std::string_view label = {});

// "1.011x [0.947, 1.038]"; for a count metric its difference "+2 [+1, +3]"
// ("±0" for no change); "—" without an estimate.
std::string format_ratio_interval(const analysis::MetricResult& result);

// A signed difference: "+2", "-0.5", "±0".
std::string format_difference(double value);

// Why `result` is a REGRESSION when its ratio does not say it: "SLO `<=
// 5000` broken: candidate median 6100 (baseline 1200)" or, for a count,
// "candidate − baseline +3 [+1, +5], beyond max_increase = 0"; "" otherwise.
std::string regression_reason(const analysis::MetricResult& result);

// The p column: the BH-adjusted p for gated metrics, the raw p for info
// metrics — of the side the change lies on, the smaller of p (against the
// threshold) and p_improved (against its mirror), or p_better (against no
// change) for a small IMPROVED — "—" for the control; "<0.001" below 0.001.
std::string format_p(const analysis::MetricResult& result);

// The verdict column, with " (info)" for metrics that are shown, not gated.
std::string format_verdict(const analysis::MetricResult& result);

// True when `results` come from a run of several candidates (docs/manual/commands.md#more-candidates): the tables then
// name each row's candidate.
bool several_candidates(const std::vector<analysis::MetricResult>& results);

// The header, the separator and one row per result, each ending in '\n';
// with several candidates a `candidate` column follows the cell ("—" for
// the A/A control) and the candidate's median is headed "candidate median".
std::string render_verdict_table(const std::vector<analysis::MetricResult>& results);

// How the verdict cell is decorated: `plain` Markdown, or ANSI colours for a
// terminal.
enum class VerdictColour { plain, ansi };

// The SGR colour of `result`'s verdict on a terminal: red (REGRESSION,
// ERROR), green (IMPROVED, PASS), yellow (INCONCLUSIVE), dim (CENSORED and
// every "(info)" row).
std::string_view verdict_sgr(const analysis::MetricResult& result);

// The table of render_verdict_table(`results`), with the verdict cells
// wrapped in ESC[…m / ESC[0m when `colour` is `ansi`; `plain` gives the
// Markdown table byte for byte.
std::string render_verdict_table(const std::vector<analysis::MetricResult>& results, VerdictColour colour);

// The same with the candidate column when `several`, whatever `results` hold
// (for measuring rows of a table that has it).
std::string render_verdict_table(const std::vector<analysis::MetricResult>& results, VerdictColour colour,
                                 bool several);

// From how many results report.md leads with what moved (docs/manual/suites.md):
// a suite of many benchmarks is hundreds of rows, most of them PASS.
inline constexpr std::size_t k_lead_from_results = 60;

// The verdict table of a run with many results: what moved first
// (regressions, improvements), then ERROR, undecided and NEW; the PASS
// rows and the A/A control's as a count under it.
std::string render_lead_table(const std::vector<analysis::MetricResult>& results);

// The whole verdict table of a run with many results, collapsed in a
// <details> block.
std::string render_all_results(const std::vector<analysis::MetricResult>& results);

} // namespace refbench::report
