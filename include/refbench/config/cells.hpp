#pragma once
// From [[cell]] tables to the runner's cells (SPEC §2): {size} expansion over
// the payloads, {arm}/{payload}/{size} filled in per arm; {output} and
// {round} are left for the runner to fill per invocation.

#include <refbench/config/config.hpp>
#include <refbench/runner/record.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace refbench::config {

// A payload file as the cells see it.
struct PayloadFile {
  std::string label; // e.g. "32MiB"
  std::string path;
  std::uint64_t bytes = 0;
};

// Where and how the arms run.
struct ArmPaths {
  std::string baseline;  // the {arm} path of the baseline (e.g. <work>/a)
  std::string candidate; // of equal length, e.g. <work>/b
};

// Expands `cells`: a cell whose command uses {payload} becomes one cell per
// payload (its name's {size} replaced, or "-<size>" appended when the name
// has none). A string command runs with /bin/sh -c. Each invocation runs in
// its arm's path with `base_env` plus the cell's env and `timeout`. The
// cells' meta carries their metrics, gate, thresholds and payload family.
std::vector<runner::CellSpec> plan_cells(const std::vector<CellConfig>& cells, const std::vector<PayloadFile>& payloads,
                                         const ArmPaths& arms, const std::vector<std::string>& base_env,
                                         std::chrono::nanoseconds timeout);

} // namespace refbench::config
