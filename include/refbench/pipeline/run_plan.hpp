#pragma once
// What `run` and `bisect` plan before they measure (docs/manual/commands.md#refbench-run,
// docs/manual/bisect.md): the repository and config read and checked, the output
// directories, the payloads, every candidate's cells and the A/A control.

#include <refbench/config/cells.hpp>
#include <refbench/config/config.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/model/shard.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/pipeline/run_arms.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/runner/rounds.hpp>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace refbench::pipeline {

// What a build may need on disk when build.disk does not say (the preflight).
inline constexpr std::uint64_t k_default_build_disk = 1ull << 30;

// The repository and its config, read and checked before anything is resolved.
struct Inputs {
  std::string repo;
  std::string config_path;
  config::Config config;
  std::string config_text;
  config::MeasurementSettings settings;
  std::optional<model::Shard> shard;
  std::vector<std::string> cells; // --cells: the globs of the cells to run; empty: all
};

// Reads and checks the repository, the config, the settings, --shard and
// --cells of `o`; throws RefusedError (not a repository), UsageError (no
// config, a bad setting, a --cells glob that matches nothing).
Inputs read_inputs(const RunOptions& o);

// --out and --workdir as absolute paths, refused when a brace in them
// would be read as a placeholder.
std::pair<std::filesystem::path, std::filesystem::path> out_and_work(const RunOptions& o);

// Creates <out>/logs and <out>/outputs, refusing links planted there.
void make_out_dirs(const std::filesystem::path& out);

// The payload files of the config's sizes (only those the shard's or the
// selected cells read) and their results.json entries.
std::vector<config::PayloadFile> make_payloads(const Inputs& in, const std::filesystem::path& out, std::uint64_t seed,
                                               nlohmann::json& payloads_json);

// The shard's (or the selected) cells with the A/A control of
// run.control_cell appended; else, and when that cell is in another shard
// or not selected, the runner picks one among them (`auto_control`).
std::vector<model::CellSpec> with_control(std::vector<model::CellSpec> cells, const Inputs& in, bool& auto_control);

// The cells of every candidate of `arms`, cell by cell: with several
// candidates each cell is planned once per candidate (its meta names the
// candidate, `labels[k]`), every copy with its own baseline invocation in
// each round.
std::vector<model::CellSpec> plan_candidates(const Inputs& in, const Arms& arms, const ArmReplicas& replicas,
                                             const std::vector<config::PayloadFile>& payloads,
                                             const std::vector<std::string>& env, const model::IsolationPlan& isolation,
                                             const std::vector<std::string>& labels);

} // namespace refbench::pipeline
