#pragma once
// Scale-out (docs/manual/commands.md#shards): `--shard K/N` splits the planned cells into N
// disjoint, cost-balanced sets. The split depends only on the config (the
// cells and their payload sizes), never on timings, so every runner of a
// matrix computes the same one; the shards of one run share refs, config and
// seed, which their `shard` record carries so that merging can check it.

#include <refbench/model/record.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::model {

// Shard `index` (1-based) of `count`.
struct Shard {
  std::size_t index = 1;
  std::size_t count = 1;
  bool operator==(const Shard&) const = default;
};

// Parses "K/N" (decimal, 1 ≤ K ≤ N); throws UsageError naming `text`.
Shard parse_shard(std::string_view text);

// The invocation cost of one pair of `cell`, estimated from the config
// alone: a fixed part worth the work of one MiB of payload (process
// start-up) plus the cell's payload bytes.
std::uint64_t estimated_cost(const CellSpec& cell);

// The 0-based shard of each cell with costs `costs`: largest cost first
// (ties: lower index first), each to the least-loaded shard (ties: lower
// shard). Pure and exact (integer costs), so the same everywhere.
std::vector<std::size_t> assign_shards(const std::vector<std::uint64_t>& costs, std::size_t count);

// The cells of `shard`, in their planned order: the cells that are not
// suites balanced over the shards (assign_shards of estimated_cost), and
// every suite cell in every shard, whose benchmarks families_of_shard
// splits once they are known (docs/manual/suites.md). Throws UsageError when
// there is no suite and `shard.count` exceeds the number of cells (some
// shard would get none).
std::vector<CellSpec> cells_of_shard(const std::vector<CellSpec>& cells, Shard shard);

// The family of a suite's benchmark: its name up to the first '/'
// ("BM_vec/1024" → "BM_vec", Go's "BenchmarkSort/size=8" →
// "BenchmarkSort"), so that a sweep's levels and Go's sub-benchmarks stay
// on one shard and a harness's filter can name them.
std::string benchmark_family(std::string_view benchmark);

// The families of `benchmarks` (a suite's names, as both arms reported
// them) that `shard` gets: the families in name order, each weighing its
// number of benchmarks, balanced by assign_shards. Depends only on the
// names, so every shard of a matrix computes the same split; empty when
// there are fewer families than shards and this one gets none.
std::vector<std::string> families_of_shard(const std::vector<std::string>& benchmarks, Shard shard);

// The seed of a sharded run given no seed: derived from both commits and the
// config file's bytes, so matrix jobs agree without coordination.
std::uint64_t derived_seed(std::string_view baseline_sha, std::string_view candidate_sha, std::string_view config_text);

// What the shards of one run share, recorded in each shard's results.json
// and journal header as `shard`.
struct ShardIdentity {
  Shard shard;
  std::string baseline_sha;
  std::string candidate_sha;
  std::uint64_t seed = 0;
  std::string config_sha256; // of the config file's bytes and the settings that affect measurement
  bool seed_derived = false; // the seed came from `derived_seed`
};

// The `shard` object of results.json and of the journal header.
nlohmann::json to_json(const ShardIdentity& identity);

// Reads a `shard` object back; throws UsageError naming `source` when it is
// malformed.
ShardIdentity shard_identity_from_json(const nlohmann::json& shard, const std::string& source);

// Why shards `a` and `b` cannot be merged as parts of one run — different
// shard counts, commits, configs or seeds, or the same shard twice — in a
// few words ("different seeds: 42 vs 43"); nullopt when they can.
std::optional<std::string> shard_mismatch(const ShardIdentity& a, const ShardIdentity& b);

} // namespace refbench::model
