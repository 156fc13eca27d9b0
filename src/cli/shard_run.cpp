#include <refbench/cli/shard_run.hpp>
#include <refbench/config/cells.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>

namespace refbench::cli {
namespace {

// The cells `config` plans, with stand-in paths: the same names, order and
// payload sizes as the real plan, which is all the partition looks at.
std::vector<runner::CellSpec> cells_of_config(const config::Config& config) {
  std::vector<config::PayloadFile> payloads;
  for (const auto& size : config.payload_sizes) {
    payloads.push_back({size.label, "{payload}", size.bytes});
  }
  return config::plan_cells(config.cells, payloads, {"{arm}", "{arm}"}, {}, std::chrono::nanoseconds(0));
}

} // namespace

runner::Shard checked_shard(const std::string& flag, const config::Config& config) {
  const auto shard = runner::parse_shard(flag);
  runner::cells_of_shard(cells_of_config(config), shard); // throws when a shard would get no cell
  return shard;
}

std::vector<runner::CellSpec> cells_of_run(const config::Config& config, std::optional<runner::Shard> shard,
                                           const std::vector<std::string>& globs) {
  auto cells = cells_of_config(config);
  if (shard) {
    cells = runner::cells_of_shard(cells, *shard);
  }
  return config::select_cells(std::move(cells), globs, "--cells");
}

bool run_uses_payload(const config::Config& config, std::optional<runner::Shard> shard,
                      const std::vector<std::string>& globs, std::uint64_t bytes) {
  const auto mine = cells_of_run(config, shard, globs);
  return std::any_of(mine.begin(), mine.end(), [&](const runner::CellSpec& cell) {
    return !cell.meta.family.empty() && cell.meta.payload_bytes == bytes;
  });
}

runner::ShardIdentity shard_identity(runner::Shard shard, const std::string& baseline_sha,
                                     const std::string& candidate_sha, std::uint64_t seed, bool seed_derived,
                                     const std::string& config_text, const std::string& settings) {
  util::Sha256 hash;
  hash.update(config_text);
  hash.update(std::string_view("\n--\n"));
  hash.update(settings);
  return {shard, baseline_sha, candidate_sha, seed, hash.hex_digest(), seed_derived};
}

} // namespace refbench::cli
