#include <refbench/analysis/placement_effects.hpp>
#include <refbench/stats/summary.hpp>
#include <refbench/stats/unpaired.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace refbench::analysis {
namespace {

// The label of `arm` in `cell`: the control's candidate side runs the baseline.
std::string side_of(const model::CellRecord& cell, model::Arm arm) {
  return cell.control && arm == model::Arm::candidate ? "control" : std::string(model::arm_name(arm));
}

// Wall times of usable measured samples, by cell, arm label and replica.
using Walls = std::map<std::pair<std::size_t, std::string>, std::map<int, std::vector<double>>>;

Walls walls_by_replica(const model::RunRecord& record) {
  Walls walls;
  for (const auto& s : record.samples) {
    if (s.round > 0 && model::usable(s) && s.cell < record.cells.size()) {
      walls[{s.cell, side_of(record.cells[s.cell], s.arm)}][s.replica].push_back(
          s.outcome.readings[model::Reading::wall]);
    }
  }
  return walls;
}

std::vector<double> logs_of(const std::vector<double>& values) {
  std::vector<double> logs;
  for (double v : values) {
    if (v > 0) {
      logs.push_back(std::log(v));
    }
  }
  return logs;
}

bool replicated(const model::RunRecord& record) {
  return std::any_of(record.samples.begin(), record.samples.end(), [](const auto& s) { return s.replica != 0; });
}

std::optional<double> wall_floor(const std::string& cell, const std::vector<MetricResult>& results) {
  for (const auto& r : results) {
    if (r.cell == cell && r.metric == "wall") {
      return r.noise_floor;
    }
  }
  return std::nullopt;
}

} // namespace

std::vector<ReplicaMedian> replica_medians(const model::RunRecord& record) {
  std::vector<ReplicaMedian> medians;
  if (!replicated(record)) {
    return medians;
  }
  for (const auto& [key, replicas] : walls_by_replica(record)) {
    for (const auto& [replica, walls] : replicas) {
      medians.push_back({record.cells[key.first].name, key.second, replica, walls.size(), stats::median(walls)});
    }
  }
  return medians;
}

std::vector<PlacementWarning> placement_warnings(const model::RunRecord& record,
                                                 const std::vector<MetricResult>& results) {
  std::vector<PlacementWarning> warnings;
  if (!replicated(record)) {
    return warnings;
  }
  for (const auto& [key, replicas] : walls_by_replica(record)) {
    const auto& cell = record.cells[key.first];
    const auto floor = wall_floor(cell.name, results);
    if (cell.control || !floor || !std::isfinite(*floor) || replicas.size() < 2) {
      continue;
    }
    for (const auto& [replica, walls] : replicas) {
      std::vector<double> siblings;
      for (const auto& [other, other_walls] : replicas) {
        if (other != replica) {
          siblings.insert(siblings.end(), other_walls.begin(), other_walls.end());
        }
      }
      if (walls.size() < k_min_replica_samples || siblings.size() < k_min_replica_samples) {
        continue;
      }
      // the two-sample shift of the logs and its 95 % interval: a replica is
      // named only when the whole interval lies beyond the noise floor, so a
      // few noisy readings of one replica are not taken for its placement
      const auto x = logs_of(siblings);
      const auto y = logs_of(walls);
      const auto interval = stats::mann_whitney_interval(x, y, 0.95);
      const double bound = std::log(*floor);
      if (!interval.reaches_confidence || !(interval.lo > bound || interval.hi < -bound)) {
        continue;
      }
      const double ratio = std::exp(stats::hodges_lehmann_shift(x, y));
      const double percent = std::abs(ratio - 1.0) * 100.0;
      warnings.push_back({cell.name, key.second, replica, ratio, *floor,
                          fmt::format("placement effect: {} replica {} of `{}` is {:.0f} % {} than its byte-identical "
                                      "siblings, beyond the run's noise floor (±{:.1f} %): this run's interval "
                                      "includes where its files landed in memory",
                                      key.second, replica, cell.name, percent, ratio > 1.0 ? "slower" : "faster",
                                      (*floor - 1.0) * 100.0)});
    }
  }
  return warnings;
}

} // namespace refbench::analysis
