#include <refbench/config/cells.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/pipeline/shard_run.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/sha256.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <set>

#include <algorithm>

namespace refbench::pipeline {
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

BaselineCells baseline_cells(const std::string& repo, const std::string& sha, const std::string& config_path) {
  namespace fs = std::filesystem;
  const fs::path top = fs::weakly_canonical(git::run_git(repo, {"rev-parse", "--show-toplevel"}));
  const fs::path relative = fs::weakly_canonical(fs::absolute(config_path)).lexically_relative(top);
  if (relative.empty() || *relative.begin() == "..") {
    return {}; // a config outside the repository: no baseline copy to compare with
  }
  const std::string object = sha + ":" + relative.generic_string();
  try {
    git::run_git(repo, {"cat-file", "-e", object});
  } catch (const git::GitError&) {
    return {std::vector<std::string>{}, ""}; // the baseline has no such file: it has no cells
  }
  try {
    const auto text = git::run_git(repo, {"show", object});
    std::vector<std::string> names;
    for (const auto& cell :
         cells_of_run(config::parse_config(text, sha.substr(0, 12) + ":" + relative.string()), std::nullopt, {})) {
      names.push_back(cell.name);
    }
    return {names, ""};
  } catch (const UsageError& error) {
    return {std::nullopt, fmt::format("cannot read the baseline's {} ({}): new and removed cells are not marked",
                                      relative.string(), error.what())};
  }
}

std::vector<std::string> mark_new_cells(std::vector<runner::CellSpec>& cells, const config::Config& config,
                                        const BaselineCells& baseline) {
  if (!baseline.names) {
    return {};
  }
  const std::set<std::string> before(baseline.names->begin(), baseline.names->end());
  for (auto& cell : cells) {
    cell.meta.candidate_only = !cell.control && !before.contains(cell.name);
  }
  std::set<std::string> now;
  for (const auto& cell : cells_of_run(config, std::nullopt, {})) {
    now.insert(cell.name);
  }
  std::vector<std::string> removed;
  for (const auto& name : *baseline.names) {
    if (!now.contains(name)) {
      removed.push_back(name);
    }
  }
  return removed;
}

} // namespace refbench::pipeline
