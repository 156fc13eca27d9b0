#include <refbench/report/median_table.hpp>
#include <refbench/report/units.hpp>
#include <refbench/stats/summary.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace refbench::report {
namespace {

// Share of readings at their measurement floor.
double share_at_floor(const std::vector<bool>& at_floor) {
  if (at_floor.empty()) {
    return 0;
  }
  return static_cast<double>(std::count(at_floor.begin(), at_floor.end(), true)) / static_cast<double>(at_floor.size());
}

std::string format_value(runner::Metric metric, double value) {
  return metric == runner::Metric::rss ? format_bytes(value) : format_seconds(value);
}

// Display width of UTF-8 text (counts code points, not bytes).
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

} // namespace

std::vector<MedianRow> median_rows(const runner::RunRecord& record, const std::vector<runner::Metric>& metrics) {
  std::vector<MedianRow> rows;
  for (std::size_t cell = 0; cell < record.cells.size(); ++cell) {
    for (runner::Metric metric : metrics) {
      auto pairs = runner::complete_pairs(record, cell, metric);
      MedianRow row{record.cells[cell].name,
                    metric,
                    pairs.baseline.size(),
                    0,
                    0,
                    std::numeric_limits<double>::quiet_NaN(),
                    false};
      if (!pairs.baseline.empty()) {
        row.baseline_median = stats::median(pairs.baseline);
        row.candidate_median = stats::median(pairs.candidate);
        row.ratio = row.candidate_median / row.baseline_median;
      }
      row.censored = share_at_floor(pairs.baseline_at_floor) >= 0.2 || share_at_floor(pairs.candidate_at_floor) >= 0.2;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string render_median_table(const std::vector<MedianRow>& rows) {
  std::vector<std::array<std::string, 6>> lines{{"cell", "metric", "baseline", "candidate", "ratio", "n"}};
  for (const auto& row : rows) {
    bool any = row.pairs > 0;
    std::string ratio = any ? format_ratio(row.ratio) : "—";
    if (row.censored) {
      ratio += " (censored)";
    }
    lines.push_back({row.cell, std::string(runner::metric_name(row.metric)),
                     any ? format_value(row.metric, row.baseline_median) : "—",
                     any ? format_value(row.metric, row.candidate_median) : "—", ratio, std::to_string(row.pairs)});
  }
  std::array<std::size_t, 6> width{};
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      width[i] = std::max(width[i], display_width(line[i]));
    }
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      text += line[i];
      if (i + 1 < line.size()) {
        text += std::string(width[i] - display_width(line[i]) + 2, ' ');
      }
    }
    out += text + "\n";
  }
  return out;
}

} // namespace refbench::report
