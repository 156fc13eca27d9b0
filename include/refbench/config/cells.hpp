#pragma once
// From [[cell]] tables to the runner's cells (docs/manual/config.md): {size} expansion over
// the payloads, {arm}/{payload}/{size}/{cpus.NAME} filled in per arm; {output} and
// {round} are left for the runner to fill per invocation.

#include <refbench/config/config.hpp>
#include <refbench/model/record.hpp>

#include <chrono>
#include <map>
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
  std::string baseline;           // the {arm} path of the baseline (e.g. <work>/a)
  std::string candidate;          // of equal length, e.g. <work>/b
  std::string control;            // the A/A control's second baseline arm, e.g. <work>/c; "": none
  ArmSettings baseline_settings;  // [arms.baseline]: also the A/A control's, on both arms
  ArmSettings candidate_settings; // [arms.candidate]
  std::string candidate_label; // the cells' meta.candidate (docs/manual/commands.md#more-candidates); "": one candidate
};

// The CPU list of each {cpus.NAME} group, per [[cell]] name.
using CpuGroupLists = std::map<std::string, std::map<std::string, std::string>>;

// True when `cell`'s command reads a payload ({payload}): one cell per size.
bool uses_payload(const CellConfig& cell);

// `cell`'s name for the payload labelled `size_label`: {size} replaced, or
// "-<label>" appended when the name has none; nullptr: not expanded.
std::string expanded_name(const CellConfig& cell, const std::string* size_label);

// Throws a UsageError naming the cell's file:line:column when, after
// expansion over `sizes`, two cells share a name, a name ends in
// model::k_control_suffix, or a cell uses {payload} while `sizes` is empty.
void check_cell_names(const std::vector<CellConfig>& cells, const std::vector<PayloadSize>& sizes);

// The cpus splits `cells` ask for, one per cell that has one (owner = cell name).
std::vector<process::CpuSplitRequest> cpu_split_requests(const std::vector<CellConfig>& cells);

// What {cpus.NAME} stands for in each of `cells` under `plan`.
CpuGroupLists cpu_group_lists(const std::vector<CellConfig>& cells, const model::IsolationPlan& plan);

// Expands `cells`: a cell whose command uses {payload} becomes one cell per
// payload (its name's {size} replaced, or "-<size>" appended when the name
// has none). A string command runs with /bin/sh -c. Each invocation runs in
// its arm's path with `base_env` plus the cell's env and `timeout`. The
// cells' meta carries their metrics, gate, thresholds and payload family.
// {cpus.NAME} in argv and env values becomes the group's list in `cpus`.
std::vector<model::CellSpec> plan_cells(const std::vector<CellConfig>& cells, const std::vector<PayloadFile>& payloads,
                                        const ArmPaths& arms, const std::vector<std::string>& base_env,
                                        std::chrono::nanoseconds timeout, const CpuGroupLists& cpus = {});

// The cells of `cells` whose name matches one of `globs` (shell patterns:
// * ? [...]), in their order; all of them when `globs` is empty. Throws a
// UsageError naming `flag` and the first glob that matches no cell (or is
// empty), with the cells' names in the hint.
std::vector<model::CellSpec> select_cells(std::vector<model::CellSpec> cells, const std::vector<std::string>& globs,
                                          const std::string& flag);

// docs/manual/commands.md#shards: suite cell `cell` narrowed to `benchmarks` (exact
// names): they are its rows (meta.rows, as fnmatch patterns that match
// each name alone), and its harness's own filter, where it has one, runs
// only their families (suites::family_filter_arguments, appended to a
// command that is not a shell script, in every arm's invocation).
void narrow_suite(model::CellSpec& cell, const std::vector<std::string>& benchmarks);

} // namespace refbench::config
