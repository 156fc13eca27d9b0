#pragma once
// docs/manual/statistics.md: a payload family whose fixed cost dominates cannot show a
// regression confined to payload work — the gate is wider than the part of
// the cell that can change. Pure: no I/O.

#include <refbench/analysis/analysis.hpp>
#include <refbench/model/record.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace refbench::analysis {

// One cell of a payload family: its payload size and baseline median wall.
struct FamilyPoint {
  std::string cell;
  std::string family;
  double payload_bytes = 0;
  double baseline_seconds = 0;
  double threshold = model::k_default_threshold; // the cell's wall threshold
};

struct SensitivityWarning {
  std::string cell;
  std::string family;
  double fixed_share = 0; // share of the cell's time that does not grow with the payload
  double max_ratio = 0;   // the ratio the cell shows when its payload work takes twice as long
  double threshold = 0;
  std::string message; // "`cell`: fixed cost is …" (docs/manual/statistics.md)
};

// The least-squares line y = intercept + slope·x through the points;
// NaNs when fewer than two distinct x values.
struct Line {
  double intercept;
  double slope;
};
Line fit_line(const std::vector<double>& x, const std::vector<double>& y);

// Per family of at least two sizes, fits baseline = a + b·size (b clamped at
// 0) and warns on the family's largest cell when (T − 1) × its time exceeds
// its payload part b·size, i.e. when doubling the payload work stays under
// the gate. Smaller sizes are fixed-cost cells by design and not judged.
std::vector<SensitivityWarning> sensitivity_warnings(const std::vector<FamilyPoint>& points);

// The family points of `record`'s non-control cells that carry a family,
// with the wall baseline median and threshold from `results`.
std::vector<FamilyPoint> family_points(const model::RunRecord& record, const std::vector<MetricResult>& results);

} // namespace refbench::analysis
