#include <refbench/model/command_output.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/outside_text.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace refbench::report {

namespace {

// The rank of a verdict in the leading table: regressions, improvements,
// then what could not be decided, then NEW; PASS rows are counted, not listed.
int lead_rank(const MetricResult& r) {
  switch (r.verdict) {
  case stats::Verdict::regression:
    return r.gated ? 0 : 1;
  case stats::Verdict::improved:
    return r.gated ? 2 : 3;
  case stats::Verdict::error:
    return 4;
  case stats::Verdict::censored:
  case stats::Verdict::inconclusive:
    return r.gated ? 5 : 7;
  case stats::Verdict::new_cell:
    return 6;
  case stats::Verdict::pass:
    return 8;
  }
  return 8;
}

} // namespace

std::string format_metric_value(double value, analysis::Unit unit, std::string_view label) {
  if (!std::isfinite(value)) {
    return "—";
  }
  switch (unit) {
  case analysis::Unit::seconds:
    return format_seconds(value);
  case analysis::Unit::bytes:
    return format_bytes(value);
  case analysis::Unit::plain: {
    // whole numbers of 10 000 and more in full ("10000", not "1e+04"); up to 4 significant digits otherwise
    const auto number = std::fabs(value) >= 1e4 && std::fabs(value) < 1e15 ? fmt::format("{:.0f}", value)
                                                                           : fmt::format("{:.4g}", value);
    return label.empty() ? number : fmt::format("{} {}", number, util::markdown_text(label)); // the harness chose it
  }
  }
  return "—";
}

std::string format_difference(double value) {
  if (value == 0) {
    return "±0"; // neither +0 nor -0: no change
  }
  return fmt::format("{:+.4g}", value);
}

std::string format_ratio_interval(const analysis::MetricResult& r) {
  if (r.kind == model::MetricKind::count) {
    if (!std::isfinite(r.difference) || !std::isfinite(r.diff_low) || !std::isfinite(r.diff_high)) {
      return "—";
    }
    return fmt::format("{} [{}, {}]", format_difference(r.difference), format_difference(r.diff_low),
                       format_difference(r.diff_high));
  }
  if (!std::isfinite(r.ratio) || !std::isfinite(r.ci_low) || !std::isfinite(r.ci_high)) {
    return "—";
  }
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", r.ratio, r.ci_low, r.ci_high);
}

std::string regression_reason(const analysis::MetricResult& r) {
  if (r.slo_broken && r.slo) {
    return fmt::format("SLO `{}` broken: candidate median {} (baseline {})", model::slo_text(*r.slo),
                       format_metric_value(r.candidate_median, r.unit, r.unit_label),
                       format_metric_value(r.baseline_median, r.unit, r.unit_label));
  }
  if (r.kind == model::MetricKind::count) {
    return fmt::format("candidate − baseline {}, beyond max_increase = {}", format_ratio_interval(r), r.max_increase);
  }
  return "";
}

std::string format_p(const analysis::MetricResult& r) {
  // the p of the side the change lies on: the worse side's against the
  // threshold, the better side's against its mirror (the smaller of the two)
  auto p = r.gated ? r.p_bh : r.p;
  const auto p_improved = r.gated ? r.p_improved_bh : r.p_improved;
  if (p_improved && (!p || *p_improved < *p)) {
    p = p_improved;
  }
  const auto p_better = r.gated ? r.p_better_bh : r.p_better;
  const bool up = r.direction == analysis::Direction::higher_is_better; // an improvement goes up
  const bool clear = r.kind == model::MetricKind::count
                         ? (up ? r.diff_low > r.max_increase : r.diff_high < -r.max_increase)
                         : (up ? r.ci_low > r.threshold : r.ci_high < 1 / r.threshold);
  if (r.verdict == stats::Verdict::improved && !clear && p_better) { // a small improvement: its test against no change
    p = p_better;
  }
  if (!p) {
    return "—";
  }
  return *p < 0.001 ? "<0.001" : fmt::format("{:.3f}", *p);
}

std::string format_verdict(const analysis::MetricResult& r) {
  std::string word(stats::verdict_name(r.verdict));
  if (r.slo_broken && r.verdict == stats::Verdict::regression) {
    word += " (SLO broken)";
  }
  return r.gated || r.control || r.candidate_only ? word : word + " (info)"; // a NEW row never gates anyway
}

std::string_view verdict_sgr(const analysis::MetricResult& r) {
  if (!r.gated && !r.control) {
    return "\033[2m"; // info rows: shown, never failing
  }
  switch (r.verdict) {
  case stats::Verdict::regression:
  case stats::Verdict::error:
    return "\033[31m";
  case stats::Verdict::improved:
  case stats::Verdict::pass:
    return "\033[32m";
  case stats::Verdict::inconclusive:
    return "\033[33m";
  case stats::Verdict::new_cell:
    return "\033[36m";
  case stats::Verdict::censored:
    return "\033[2m";
  }
  return "";
}

std::string render_verdict_table(const std::vector<analysis::MetricResult>& results) {
  return render_verdict_table(results, VerdictColour::plain);
}

bool several_candidates(const std::vector<analysis::MetricResult>& results) {
  return std::any_of(results.begin(), results.end(), [](const auto& r) { return !r.candidate.empty(); });
}

std::string render_verdict_table(const std::vector<analysis::MetricResult>& results, VerdictColour colour) {
  return render_verdict_table(results, colour, several_candidates(results));
}

std::string render_verdict_table(const std::vector<analysis::MetricResult>& results, VerdictColour colour,
                                 bool several) {
  std::string out = several
                        ? "| cell | candidate | metric | baseline | candidate median | ratio (95% CI) | p (BH) | n | "
                          "verdict |\n|---|---|---|---|---|---|---|---|---|\n"
                        : "| cell | metric | baseline | candidate | ratio (95% CI) | p (BH) | n | verdict |\n"
                          "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    std::string verdict = format_verdict(r);
    auto sgr = colour == VerdictColour::ansi ? verdict_sgr(r) : std::string_view();
    if (!sgr.empty()) {
      verdict = fmt::format("{}{}\033[0m", sgr, verdict);
    }
    const std::string which = several ? fmt::format(" {} |", util::markdown_text(r.control ? "—" : r.candidate)) : "";
    out += fmt::format("| {} |{} {} | {} | {} | {} | {} | {} | {} |\n", util::markdown_text(r.cell), which,
                       util::markdown_text(r.metric), format_metric_value(r.baseline_median, r.unit, r.unit_label),
                       format_metric_value(r.candidate_median, r.unit, r.unit_label), format_ratio_interval(r),
                       format_p(r), r.n, verdict);
  }
  return out;
}

// The verdict table of a run with many results: what moved first, then
// what is undecided, ERROR and NEW; the PASS rows (and the A/A control's)
// as a count under it. The whole table follows in a collapsed block.
std::string render_lead_table(const std::vector<MetricResult>& results) {
  std::vector<MetricResult> shown;
  std::size_t passed = 0;
  std::size_t control = 0;
  for (const auto& r : results) {
    if (r.control) {
      ++control;
    } else if (lead_rank(r) == 8 || (!r.gated && lead_rank(r) == 7)) {
      ++passed;
    } else {
      shown.push_back(r);
    }
  }
  std::stable_sort(shown.begin(), shown.end(),
                   [](const MetricResult& a, const MetricResult& b) { return lead_rank(a) < lead_rank(b); });
  std::string out = shown.empty() ? std::string("Nothing moved.\n") : render_verdict_table(shown);
  out += fmt::format("\n**{} more {}** pass, or are undecided on a metric that does not gate{}: all {} are under "
                     "*All {} results* below and in report.csv.\n",
                     passed, passed == 1 ? "result" : "results",
                     control == 0 ? "" : fmt::format(" (and the A/A control's {})", control), results.size(),
                     results.size());
  return out;
}

// The whole verdict table of a run with many results, collapsed.
std::string render_all_results(const std::vector<MetricResult>& results) {
  return fmt::format("\n<details><summary>All {} results</summary>\n\n{}\n</details>\n", results.size(),
                     render_verdict_table(results));
}

} // namespace refbench::report
