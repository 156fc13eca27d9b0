#pragma once
// What an executor says about its own measuring: the peak-RSS method and
// floor, and the spawn jitter below which a wall reading means nothing.
// Plain data, so the folders that render or analyse a run can hold it
// without seeing the Executor.

#include <cstdint>
#include <string>

namespace refbench::model {

// How peak RSS is measured and the floor below which a reading means nothing
// (docs/manual/measurement.md): readings within k_rss_censor_margin of `floor_bytes` are censored.
struct RssProbe {
  std::string method;
  std::int64_t floor_bytes = 0;
  // The jitter of spawning a no-op (`true`) from the launcher at start-up:
  // the median absolute deviation of its wall over k_spawn_probe_runs runs,
  // the smallest of k_spawn_probe_batches such batches run back to back (a
  // load that starts or stops mid-probe inflates one batch's, not all).
  // Wall readings below 10x this are censored (docs/manual/statistics.md). 0 when unknown.
  double spawn_resolution_seconds = 0;
};

inline constexpr int k_spawn_probe_runs = 11;
inline constexpr int k_spawn_probe_batches = 3;

inline constexpr std::int64_t k_rss_censor_margin = 64 * 1024;

// How far the launcher's RSS floor may drift during a run before the run
// warns: a few pages move with the size of each request (68 KiB was seen
// once on a loaded machine), well below a floor that took in real memory.
inline constexpr std::int64_t k_rss_floor_drift = 2 * k_rss_censor_margin;

} // namespace refbench::model
