#pragma once
// `refbench run --shard K/N` (README: run --shard): the shard checked against the config
// before anything is built, the payloads and cells it needs, its seed and
// the identity its results carry so that `refbench report` can merge them.

#include <refbench/config/config.hpp>
#include <refbench/runner/shard.hpp>

#include <cstdint>
#include <string>

namespace refbench::cli {

// Parses `flag` ("K/N") and checks that `config` plans at least N cells;
// throws UsageError (exit 2) otherwise.
runner::Shard checked_shard(const std::string& flag, const config::Config& config);

// Whether a cell of `shard` reads the payload of `bytes` (the others are
// not generated).
bool shard_uses_payload(const config::Config& config, runner::Shard shard, std::uint64_t bytes);

// What identifies the run `shard` belongs to: both commits, `seed`, and the
// SHA-256 of the config file's bytes (`config_text`) and `settings` (the
// effective settings that affect measurement, as text).
runner::ShardIdentity shard_identity(runner::Shard shard, const std::string& baseline_sha,
                                     const std::string& candidate_sha, std::uint64_t seed, bool seed_derived,
                                     const std::string& config_text, const std::string& settings);

} // namespace refbench::cli
