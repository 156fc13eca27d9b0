#include <refbench/report/markdown.hpp>
#include <refbench/report/sweep.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/outside_text.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace refbench::report {
namespace {

using analysis::MetricResult;

// A sweep as measured: its levels (cells) in the order the config expands them.
struct Sweep {
  std::string name;
  std::vector<const model::CellRecord*> levels;
};

std::vector<Sweep> sweeps_of(const RunDocument& document) {
  std::vector<Sweep> sweeps;
  for (const auto& cell : document.record.cells) {
    if (cell.control || cell.meta.sweep.empty()) {
      continue;
    }
    const auto name = model::cell_title(cell.meta.sweep, cell.meta.candidate); // one sweep per candidate
    auto found = std::find_if(sweeps.begin(), sweeps.end(), [&](const Sweep& s) { return s.name == name; });
    if (found == sweeps.end()) {
      sweeps.push_back({name, {}});
      found = std::prev(sweeps.end());
    }
    found->levels.push_back(&cell);
  }
  std::erase_if(sweeps, [](const Sweep& s) { return s.levels.size() < 2; });
  return sweeps;
}

// Text for inside a Mermaid string: no quotes, no control characters.
std::string chart_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += c == '"' ? '\'' : static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  }
  return out;
}

// `value` as Mermaid's xychart reads numbers: plain decimals, never an
// exponent ("1234567", "0.00004"); 6 significant digits, trailing zeros cut.
std::string chart_number(double value) {
  const double magnitude = std::fabs(value);
  const int decimals = magnitude == 0 ? 0 : std::clamp(5 - static_cast<int>(std::floor(std::log10(magnitude))), 0, 12);
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') {
      text.pop_back();
    }
  }
  return text == "-0" ? "0" : text;
}

// A level's parameter values joined by "/" ("32/fast").
std::string level_label(const model::CellRecord& cell) {
  std::string label;
  for (const auto& [name, value] : cell.meta.params) {
    label += (label.empty() ? "" : "/") + value;
  }
  return label;
}

// The scale and unit a chart of `unit` values up to `largest` is drawn in.
std::pair<double, std::string> chart_scale(const MetricResult& r, double largest) {
  switch (r.unit) {
  case analysis::Unit::seconds:
    return largest >= 1      ? std::pair{1.0, std::string("s")}
           : largest >= 1e-3 ? std::pair{1e3, std::string("ms")}
                             : std::pair{1e6, std::string("µs")};
  case analysis::Unit::bytes:
    return {1.0 / (1024.0 * 1024.0), "MiB"};
  case analysis::Unit::plain:
    return {1.0, r.unit_label};
  }
  return {1.0, ""};
}

std::string table_of(const Sweep& sweep, const std::map<std::string, std::vector<const MetricResult*>>& by_cell) {
  std::string header = "|";
  std::string rule = "|";
  for (const auto& [name, value] : sweep.levels.front()->meta.params) {
    header += " " + util::markdown_text(name) + " |";
    rule += "---|";
  }
  std::string out =
      header + " metric | baseline | candidate | ratio (95% CI) | verdict |\n" + rule + "---|---|---|---|---|\n";
  for (const auto* level : sweep.levels) {
    const auto found = by_cell.find(model::cell_title(*level));
    if (found == by_cell.end()) {
      continue;
    }
    std::string values = "|";
    for (const auto& [name, value] : level->meta.params) {
      values += " " + util::markdown_text(value) + " |";
    }
    for (const auto* r : found->second) {
      out += fmt::format("{} {} | {} | {} | {} | {} |\n", values, util::markdown_text(r->metric),
                         format_metric_value(r->baseline_median, r->unit, r->unit_label),
                         format_metric_value(r->candidate_median, r->unit, r->unit_label), format_ratio_interval(*r),
                         format_verdict(*r));
    }
  }
  return out;
}

// One chart per metric gated at every level, of both arms' medians; none
// for a metric with a level that has no finite median.
std::string charts_of(const Sweep& sweep, const std::map<std::string, std::vector<const MetricResult*>>& by_cell) {
  std::vector<std::vector<const MetricResult*>> per_level;
  for (const auto* level : sweep.levels) {
    const auto found = by_cell.find(model::cell_title(*level));
    per_level.push_back(found == by_cell.end() ? std::vector<const MetricResult*>{} : found->second);
  }
  std::string axis;
  for (const auto& [name, value] : sweep.levels.front()->meta.params) {
    axis += (axis.empty() ? "" : "/") + name;
  }
  std::vector<std::string> labels;
  for (const auto* level : sweep.levels) {
    labels.push_back(level_label(*level));
  }
  std::string out;
  for (const auto* first : per_level.front()) {
    if (!first->gated) {
      continue;
    }
    std::vector<const MetricResult*> column;
    for (const auto& results : per_level) {
      auto found =
          std::find_if(results.begin(), results.end(), [&](const auto* r) { return r->metric == first->metric; });
      if (found == results.end() || !std::isfinite((*found)->baseline_median) ||
          !std::isfinite((*found)->candidate_median)) {
        break;
      }
      column.push_back(*found);
    }
    if (column.size() != sweep.levels.size()) {
      continue;
    }
    double largest = 0;
    for (const auto* r : column) {
      largest = std::max({largest, r->baseline_median, r->candidate_median});
    }
    const auto [scale, unit] = chart_scale(*first, largest);
    std::vector<std::vector<double>> series(2);
    for (const auto* r : column) {
      series[0].push_back(r->baseline_median * scale);
      series[1].push_back(r->candidate_median * scale);
    }
    out += "\n" + render_xychart(fmt::format("{} · {} median: baseline, candidate", sweep.name, first->metric), axis,
                                 labels, unit.empty() ? first->metric : fmt::format("{} ({})", first->metric, unit),
                                 series);
  }
  return out;
}

} // namespace

std::string render_xychart(const std::string& title, const std::string& axis, const std::vector<std::string>& labels,
                           const std::string& unit, const std::vector<std::vector<double>>& series) {
  std::string x;
  for (const auto& label : labels) {
    x += fmt::format("{}\"{}\"", x.empty() ? "" : ", ", chart_text(label));
  }
  std::string body = fmt::format("xychart-beta\n  title \"{}\"\n  x-axis \"{}\" [{}]\n  y-axis \"{}\"\n",
                                 chart_text(title), chart_text(axis), x, chart_text(unit));
  for (const auto& line : series) {
    std::string values;
    for (double v : line) {
      values += (values.empty() ? "" : ", ") + chart_number(v);
    }
    body += "  line [" + values + "]\n";
  }
  return util::markdown_code_block(body, "mermaid");
}

std::string render_sweeps(const RunDocument& document) {
  std::map<std::string, std::vector<const MetricResult*>> by_cell;
  for (const auto& r : document.results) {
    by_cell[model::cell_title(r.cell, r.candidate)].push_back(&r);
  }
  std::string out;
  for (const auto& sweep : sweeps_of(document)) {
    out += fmt::format("\n**Sweep {}** ({} levels)\n\n", util::markdown_code(sweep.name), sweep.levels.size()) +
           table_of(sweep, by_cell) + charts_of(sweep, by_cell);
  }
  return out;
}

} // namespace refbench::report
