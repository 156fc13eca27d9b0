#include <refbench/report/forest_plot.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string_view>

namespace refbench::report {
namespace {

constexpr std::string_view k_blank = " ";
constexpr std::string_view k_body = "─";
constexpr std::string_view k_low = "├";
constexpr std::string_view k_high = "┤";
constexpr std::string_view k_estimate = "●";
constexpr std::string_view k_one = "│";
constexpr std::string_view k_gate = "┆";
constexpr std::string_view k_tick = "┴";

bool positive_finite(double x) { return std::isfinite(x) && x > 0; }

bool has_interval(const analysis::MetricResult& r) {
  return positive_finite(r.ci_low) && positive_finite(r.ci_high) && r.ci_low <= r.ci_high;
}

// Maps a ratio to its plot column on the log scale [lo, hi].
struct Scale {
  double log_lo = 0;
  double log_hi = 0;
  std::size_t columns = 0;

  std::size_t column(double x) const {
    double last = static_cast<double>(columns - 1);
    double at = (std::log(x) - log_lo) / (log_hi - log_lo) * last;
    return static_cast<std::size_t>(std::lround(std::clamp(at, 0.0, last)));
  }
};

// A row's own threshold (a counted metric's or a cell's override), else the run's.
double row_threshold(const analysis::MetricResult& r, double threshold) {
  return positive_finite(r.threshold) ? r.threshold : threshold;
}

Scale scale_for(const std::vector<const analysis::MetricResult*>& rows, double threshold, std::size_t columns) {
  double lo = std::min({1.0, threshold, 1.0 / threshold});
  double hi = std::max({1.0, threshold, 1.0 / threshold});
  for (const auto* r : rows) {
    lo = std::min({lo, r->ratio, row_threshold(*r, threshold)});
    hi = std::max({hi, r->ratio, row_threshold(*r, threshold)});
    if (has_interval(*r)) {
      lo = std::min(lo, r->ci_low);
      hi = std::max(hi, r->ci_high);
    }
  }
  if (hi / lo < 1.01) {
    lo /= 1.1;
    hi *= 1.1;
  }
  return {std::log(lo), std::log(hi), columns};
}

// "cell metric" on one line, at most `width` code points (elided in the
// middle), then padded to it.
std::string label(const analysis::MetricResult& r, std::size_t width) {
  std::string text = model::cell_title(r.cell, r.candidate) + " " + r.metric;
  std::replace_if(
      text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
  text = util::elide_middle(text, width); // never at the end: "…sig_ms_100" and "…sig_ms_1000" stay apart
  return text + std::string(width - util::code_points(text), ' ');
}

std::string join(const std::vector<std::string_view>& glyphs) {
  std::string out;
  for (auto glyph : glyphs) {
    out += glyph;
  }
  while (!out.empty() && out.back() == ' ') {
    out.pop_back();
  }
  return out + "\n";
}

// One plot row: interval body, the 1.0 and threshold marks, interval ends, estimate.
std::string row(const analysis::MetricResult& r, const Scale& scale, double threshold) {
  std::vector<std::string_view> glyphs(scale.columns, k_blank);
  const bool interval = has_interval(r);
  if (interval) {
    std::fill(glyphs.begin() + static_cast<std::ptrdiff_t>(scale.column(r.ci_low)),
              glyphs.begin() + static_cast<std::ptrdiff_t>(scale.column(r.ci_high)) + 1, k_body);
  }
  glyphs[scale.column(1.0)] = k_one;
  glyphs[scale.column(threshold)] = k_gate;
  if (interval) {
    glyphs[scale.column(r.ci_low)] = k_low;
    glyphs[scale.column(r.ci_high)] = k_high;
  }
  glyphs[scale.column(r.ratio)] = k_estimate;
  return join(glyphs);
}

std::string axis(const Scale& scale, double threshold) {
  std::vector<std::string_view> glyphs(scale.columns, k_body);
  glyphs[scale.column(1.0)] = k_tick;
  glyphs[scale.column(threshold)] = k_tick;
  return join(glyphs);
}

// Writes `text` into `line` from `start` if it fits with a blank on each side.
bool place(std::string& line, const std::string& text, std::ptrdiff_t start) {
  const auto size = static_cast<std::ptrdiff_t>(line.size());
  const auto length = static_cast<std::ptrdiff_t>(text.size());
  if (start < 0 || start + length > size) {
    return false;
  }
  for (auto i = std::max<std::ptrdiff_t>(0, start - 1); i < std::min(size, start + length + 1); ++i) {
    if (line[static_cast<std::size_t>(i)] != ' ') {
      return false;
    }
  }
  line.replace(static_cast<std::size_t>(start), text.size(), text);
  return true;
}

// Labels under the axis: 1.0 and the threshold centred on their ticks (or
// beside them), then the two ends of the scale where they fit.
std::string axis_labels(const Scale& scale, double threshold) {
  std::string line(scale.columns, ' ');
  auto mark = [&](double value) {
    std::string text = fmt::format("{:.2f}x", value);
    auto at = static_cast<std::ptrdiff_t>(scale.column(value));
    auto length = static_cast<std::ptrdiff_t>(text.size());
    return place(line, text, at - length / 2) || place(line, text, at) || place(line, text, at - length + 1);
  };
  mark(1.0);
  mark(threshold);
  place(line, fmt::format("{:.2f}x", std::exp(scale.log_lo)), 0);
  std::string hi = fmt::format("{:.2f}x", std::exp(scale.log_hi));
  place(line, hi, static_cast<std::ptrdiff_t>(scale.columns) - static_cast<std::ptrdiff_t>(hi.size()));
  while (!line.empty() && line.back() == ' ') {
    line.pop_back();
  }
  return line + "\n";
}

} // namespace

bool plotted(const analysis::MetricResult& r, const std::vector<analysis::MetricResult>& results) {
  if (r.verdict == stats::Verdict::error || r.verdict == stats::Verdict::censored || r.error || r.censored ||
      !positive_finite(r.ratio)) {
    return false;
  }
  return gated_row(r, results);
}

std::string render_forest_plot(const std::vector<analysis::MetricResult>& results, double threshold,
                               std::size_t width) {
  std::vector<const analysis::MetricResult*> rows;
  std::size_t label_width = 1;
  for (const auto& r : results) {
    if (plotted(r, results)) {
      rows.push_back(&r);
      label_width = std::max(label_width, util::code_points(model::cell_title(r.cell, r.candidate)) + 1 +
                                              util::code_points(r.metric));
    }
  }
  if (rows.empty()) {
    return "";
  }
  if (!positive_finite(threshold)) {
    threshold = 1.0;
  }
  label_width = std::min(label_width, k_plot_label_limit);
  const std::size_t columns = std::max(k_plot_min_columns, width > label_width + 1 ? width - label_width - 1 : 0);
  const Scale scale = scale_for(rows, threshold, columns);
  const std::string indent(label_width + 1, ' ');
  std::string out;
  for (const auto* r : rows) {
    out += label(*r, label_width) + " " + row(*r, scale, row_threshold(*r, threshold));
  }
  const bool own =
      std::any_of(rows.begin(), rows.end(), [&](const auto* r) { return row_threshold(*r, threshold) != threshold; });
  out += indent + axis(scale, threshold);
  out += indent + axis_labels(scale, threshold);
  out += fmt::format("{} ratio  {}{}{} 95% interval  {} 1.00x  {} threshold {:.2f}x{}\n", k_estimate, k_low, k_body,
                     k_high, k_one, k_gate, threshold, own ? " (a row with its own threshold marks it)" : "");
  return out;
}

} // namespace refbench::report
