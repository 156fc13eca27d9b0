#include <refbench/analysis/sensitivity.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>

namespace refbench::analysis {

Line fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = std::min(x.size(), y.size());
  if (std::set<double>(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n)).size() < 2) {
    return {nan, nan};
  }
  double mean_x = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxy = 0;
  double sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
  }
  const double slope = sxy / sxx;
  return {mean_y - slope * mean_x, slope};
}

std::vector<SensitivityWarning> sensitivity_warnings(const std::vector<FamilyPoint>& points) {
  std::map<std::string, std::vector<const FamilyPoint*>> families;
  for (const auto& point : points) {
    if (!point.family.empty() && std::isfinite(point.baseline_seconds) && point.baseline_seconds > 0) {
      families[point.family].push_back(&point);
    }
  }
  std::vector<SensitivityWarning> warnings;
  for (const auto& [family, members] : families) {
    std::vector<double> sizes;
    std::vector<double> seconds;
    for (const auto* point : members) {
      sizes.push_back(point->payload_bytes);
      seconds.push_back(point->baseline_seconds);
    }
    const Line line = fit_line(sizes, seconds);
    if (!std::isfinite(line.slope)) {
      continue;
    }
    const auto* largest = *std::max_element(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return a->payload_bytes < b->payload_bytes;
    });
    const double total = largest->baseline_seconds;
    const double payload_part = std::min(std::max(line.slope, 0.0) * largest->payload_bytes, total);
    if ((largest->threshold - 1.0) * total <= payload_part) {
      continue;
    }
    SensitivityWarning warning{largest->cell,      family, 1.0 - payload_part / total, 1.0 + payload_part / total,
                               largest->threshold, ""};
    warning.message = fmt::format("`{}`: fixed cost is {:.0f} % of this cell; payload work twice as slow would show "
                                  "as only {:.2f}× here, below the {:.2f}× gate — gate a larger payload, or a cell "
                                  "without the fixed cost",
                                  largest->cell, warning.fixed_share * 100.0, warning.max_ratio, warning.threshold);
    warnings.push_back(std::move(warning));
  }
  return warnings;
}

std::vector<FamilyPoint> family_points(const model::RunRecord& record, const std::vector<MetricResult>& results) {
  std::vector<FamilyPoint> points;
  for (const auto& cell : record.cells) {
    if (cell.control || cell.meta.family.empty()) {
      continue;
    }
    auto wall = std::find_if(results.begin(), results.end(), [&](const MetricResult& r) {
      return r.cell == cell.name && r.candidate == cell.meta.candidate && r.metric == "wall";
    });
    if (wall == results.end()) {
      continue;
    }
    points.push_back({model::cell_title(cell), model::cell_title(cell.meta.family, cell.meta.candidate),
                      static_cast<double>(cell.meta.payload_bytes), wall->baseline_median, wall->threshold});
  }
  return points;
}

} // namespace refbench::analysis
