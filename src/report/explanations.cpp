#include <refbench/report/explanations.hpp>
#include <refbench/report/units.hpp>
#include <refbench/util/outside_text.hpp>

#include <cmath>
#include <fmt/format.h>

namespace refbench::report {
namespace {

std::string share_of(double delta, double change) {
  return change != 0 && std::isfinite(delta / change) ? fmt::format("{:.1f} %", 100.0 * delta / change) : "—";
}

std::string functions_table(const model::Explanation& e) {
  const double change = e.candidate_instructions - e.baseline_instructions;
  std::string text = "| function | object | baseline | candidate | Δ | share of the change |\n"
                     "|---|---|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < e.functions.size() && i < k_where_functions; ++i) {
    const auto& f = e.functions[i];
    text += fmt::format("| {} | {} | {} | {} | {} | {} |\n", util::markdown_text(f.function),
                        util::markdown_text(f.object), format_count(f.baseline), format_count(f.candidate),
                        format_count(f.delta, true), share_of(f.delta, change));
  }
  if (e.functions.size() > k_where_functions) {
    text += fmt::format("\n{} more functions moved (results.json: explanations).\n",
                        e.functions.size() - k_where_functions);
  }
  return text;
}

std::string sites_table(const model::Explanation& e) {
  std::string text = "| allocation site | object | baseline | candidate | Δ |\n|---|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < e.allocation_sites.size() && i < k_where_sites; ++i) {
    const auto& s = e.allocation_sites[i];
    text += fmt::format("| {} | {} | {} | {} | {} |\n", util::markdown_text(s.function), util::markdown_text(s.object),
                        format_count(s.baseline), format_count(s.candidate), format_count(s.delta, true));
  }
  if (e.allocation_sites.size() > k_where_sites) {
    text += fmt::format("\n{} more allocation sites moved (results.json: explanations).\n",
                        e.allocation_sites.size() - k_where_sites);
  }
  return text;
}

// One explained cell's collapsed section.
std::string section(const model::Explanation& e) {
  const double change = e.candidate_instructions - e.baseline_instructions;
  const double percent = e.baseline_instructions > 0 ? 100.0 * change / e.baseline_instructions : 0.0;
  std::string text = fmt::format(
      "<details><summary>Where {} changed: {} → {} instructions ({:+.1f} %), {} {} moved</summary>\n\n",
      util::markdown_text(e.cell), format_count(e.baseline_instructions), format_count(e.candidate_instructions),
      percent, e.functions.size(), e.functions.size() == 1 ? "function" : "functions");
  if (e.functions.empty()) {
    text += "No function's instructions moved: look at I/O, system calls, cache misses and code layout, which "
            "instruction counts cannot see.\n\n";
  } else {
    text += functions_table(e) + "\n";
  }
  if (!e.allocation_sites.empty()) {
    text += sites_table(e) + "\n";
  }
  if (!e.scope.empty()) {
    text += "Counted: " + util::markdown_text(e.scope) + ".\n";
  }
  text += fmt::format("{}Measured off the timed rounds by {}, one invocation per arm ({}); a function's code "
                      "includes what was inlined into it.\n",
                      e.graph.empty() ? "" : fmt::format("[Call stacks, baseline → candidate]({}) · ", e.graph),
                      util::markdown_text(e.source), format_seconds(e.seconds));
  return text + "\n</details>\n";
}

} // namespace

std::string format_count(double count, bool sign) {
  if (!std::isfinite(count)) {
    return "—";
  }
  const auto digits = fmt::format("{:.0f}", std::fabs(count));
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      grouped += "\u2009";
    }
    grouped += digits[i];
  }
  const bool negative = count < 0 && digits != "0";
  return (negative ? "\u2212" : sign && digits != "0" ? "+" : "") + grouped;
}

std::string render_explanations(const RunDocument& document, std::size_t limit) {
  if (document.explanations.empty()) {
    return "";
  }
  std::string text = "\n**Where the changes came from**\n\n";
  std::string refused;
  std::size_t shown = 0;
  std::size_t left = 0;
  for (const auto& e : document.explanations) {
    if (!e.problem.empty()) {
      refused += fmt::format("- {}: {}\n", util::markdown_text(e.cell), util::markdown_text(e.problem));
      continue;
    }
    auto part = section(e);
    if (shown < k_where_cells && text.size() + part.size() + 200 <= limit) {
      text += part;
      ++shown;
    } else {
      ++left;
    }
  }
  if (left > 0) {
    text += fmt::format("\n{} more explained {} in results.json (explanations).\n", left, left == 1 ? "cell" : "cells");
  }
  if (!refused.empty()) {
    const std::string heading = "\nNot explained:\n\n";
    text += text.size() + heading.size() + refused.size() <= limit ? heading + refused : "";
  }
  return shown == 0 && refused.empty() && left == 0 ? "" : text;
}

} // namespace refbench::report
