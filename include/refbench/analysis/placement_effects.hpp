#pragma once
// Placement effects (docs/manual/measurement.md, "Replicas"): how each
// byte-identical replica of an arm measured, and which one departs from its
// siblings by more than the run's noise floor. Pure: no I/O.

#include <refbench/analysis/analysis.hpp>
#include <refbench/model/record.hpp>

#include <string>
#include <vector>

namespace refbench::analysis {

// The wall median of one replica of one arm of a cell, over its usable
// measured samples (warm-up left out).
struct ReplicaMedian {
  std::string cell;
  std::string arm; // "baseline" or "candidate"; the control's second arm is "control"
  int replica = 0;
  std::size_t n = 0;
  double median_seconds = 0;
};

// A replica whose median is further from its siblings' than the noise floor.
struct PlacementWarning {
  std::string cell;
  std::string arm;
  int replica = 0;
  double ratio = 0;       // the Hodges–Lehmann shift to its siblings' samples, as a ratio
  double noise_floor = 0; // the cell's wall noise floor it exceeds
  std::string message;    // "placement effect: candidate replica 2 of `cell` is 9 % slower …"
};

// The least samples a replica needs before its median is compared.
inline constexpr std::size_t k_min_replica_samples = 3;

// Per cell (the control included) and arm, the median of each replica that
// ran; empty when every sample came from replica 0.
std::vector<ReplicaMedian> replica_medians(const model::RunRecord& record);

// Per non-control cell and arm with at least two replicas of
// k_min_replica_samples samples: a warning for each replica whose wall
// departs from its siblings' pooled samples beyond the cell's wall noise
// floor in `results` with 95 % confidence (the whole Mann–Whitney interval
// of the log shift outside ±ln floor); none without a floor.
std::vector<PlacementWarning> placement_warnings(const model::RunRecord& record,
                                                 const std::vector<MetricResult>& results);

} // namespace refbench::analysis
