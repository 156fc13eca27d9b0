#pragma once
// The cells one `refbench run` measures: all of the config's, one shard of
// them (`--shard K/N`, docs/manual/commands.md#shards) or those `--cells` selects —
// checked against the config before anything is built — the payloads they
// need, and a shard's seed and the identity its results carry so that
// `refbench report` can merge them.

#include <refbench/config/config.hpp>
#include <refbench/model/shard.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/process/executor.hpp>
#include <refbench/runner/rounds.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// Parses `flag` ("K/N") and checks that `config` plans at least N cells;
// throws UsageError (exit 2) otherwise.
model::Shard checked_shard(const std::string& flag, const config::Config& config);

// The cells `config` plans (names, order, payload sizes; stand-in paths)
// that `shard` gets and `globs` (--cells) select; throws UsageError (exit 2)
// when a glob matches no cell.
std::vector<model::CellSpec> cells_of_run(const config::Config& config, std::optional<model::Shard> shard,
                                          const std::vector<std::string>& globs);

// docs/manual/config.md#new-and-removed-cells. What the baseline's copy of the config
// says: the names of its cells (expanded), read with `git show SHA:PATH`
// when `config_path` lies inside `repo`'s work tree.
struct BaselineCells {
  std::optional<std::vector<std::string>> names; // none: unknown (outside the repository, or unreadable)
  std::string warning;                           // why a copy that exists could not be read; "" otherwise
};
BaselineCells baseline_cells(const std::string& repo, const std::string& sha, const std::string& config_path);

// Marks the cells of `cells` that `baseline` does not name as new
// (meta.candidate_only) and returns the baseline's cells that `config` has
// no more; nothing when the baseline's cells are unknown.
std::vector<std::string> mark_new_cells(std::vector<model::CellSpec>& cells, const config::Config& config,
                                        const BaselineCells& baseline);

// Whether a cell of the run reads the payload of `bytes` (the others are
// not generated).
bool run_uses_payload(const config::Config& config, std::optional<model::Shard> shard,
                      const std::vector<std::string>& globs, std::uint64_t bytes);

// docs/manual/suites.md, docs/manual/commands.md#shards: the suite cells of `plan` split over the
// shards. Each suite runs whole once per arm, untimed (a warm-up round
// through `executor`, `place` moving the replicas' links), to list its
// benchmarks; the shard keeps the families model::families_of_shard gives
// it: those benchmarks are the cell's rows (meta.rows) and the harness's
// own filter runs only them (suites::family_filter_arguments), in the cell
// and in its A/A control. A suite that gets no family leaves the shard;
// one that listed nothing (it failed) runs whole on shard 1 alone, where
// its ERROR is reported once. Returns a line for stderr per suite. Throws
// InterruptedError on a signal, UsageError when the shard has no cell left.
std::vector<std::string> split_suites(MeasurementPlan& plan, model::Shard shard, process::Executor& executor,
                                      const runner::PlacementHook& place);

// What identifies the run `shard` belongs to: both commits, `seed`, and the
// SHA-256 of the config file's bytes (`config_text`) and `settings` (the
// effective settings that affect measurement, as text).
model::ShardIdentity shard_identity(model::Shard shard, const std::string& baseline_sha,
                                    const std::string& candidate_sha, std::uint64_t seed, bool seed_derived,
                                    const std::string& config_text, const std::string& settings);

} // namespace refbench::pipeline
