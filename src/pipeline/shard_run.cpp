#include <refbench/config/cells.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/pipeline/shard_run.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/sha256.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include <algorithm>

namespace refbench::pipeline {
namespace {

// The cells `config` plans, with stand-in paths: the same names, order and
// payload sizes as the real plan, which is all the partition looks at.
std::vector<model::CellSpec> cells_of_config(const config::Config& config) {
  std::vector<config::PayloadFile> payloads;
  for (const auto& size : config.payload_sizes) {
    payloads.push_back({size.label, "{payload}", size.bytes});
  }
  return config::plan_cells(config.cells, payloads, {"{arm}", "{arm}"}, {}, std::chrono::nanoseconds(0));
}

// The suite cell a cell of the plan runs: itself, or the one its A/A control replicates.
std::string suite_of(const model::CellSpec& cell) {
  const std::string_view suffix = model::k_control_suffix;
  return cell.control && cell.name.ends_with(suffix) ? cell.name.substr(0, cell.name.size() - suffix.size())
                                                     : cell.name;
}

// The benchmarks each suite of `plan` reported in one untimed invocation
// per arm, by cell name; none for a suite that reported nothing.
std::map<std::string, std::set<std::string>> list_suites(const MeasurementPlan& plan, process::Executor& executor,
                                                         const runner::PlacementHook& place) {
  std::vector<model::CellSpec> suites;
  for (const auto& cell : plan.cells) {
    if (cell.meta.suite && !cell.control) {
      suites.push_back(cell);
      suites.back().counted.clear();
    }
  }
  auto settings = plan.rounds();
  settings.warmup = 1;
  settings.warm_up_only = true;
  settings.auto_control = false;
  settings.counter.reset();
  settings.counts_dir.clear();
  formats::JournalWriter nowhere;
  runner::RoundHooks hooks;
  hooks.place = place;
  const auto listing = runner::run_rounds(suites, settings, executor, nowhere, hooks);
  if (listing.interrupted_by != 0) {
    throw InterruptedError(listing.interrupted_by);
  }
  std::map<std::string, std::set<std::string>> names;
  for (std::size_t cell = 0; cell < suites.size(); ++cell) {
    auto& reported = names[suites[cell].name];
    for (const auto& sample : listing.samples) {
      if (sample.cell == cell && model::usable(sample) && !listing.cells[cell].failure) {
        for (const auto& benchmark : sample.benchmarks) {
          reported.insert(benchmark.name);
        }
      }
    }
  }
  return names;
}

} // namespace

std::vector<std::string> split_suites(MeasurementPlan& plan, model::Shard shard, process::Executor& executor,
                                      const runner::PlacementHook& place) {
  if (shard.count == 1 || std::none_of(plan.cells.begin(), plan.cells.end(),
                                       [](const model::CellSpec& cell) { return cell.meta.suite.has_value(); })) {
    return {};
  }
  const auto listed = list_suites(plan, executor, place);
  std::vector<std::string> lines;
  std::map<std::string, std::vector<std::string>> rows; // the shard's benchmarks of each suite it keeps
  for (const auto& [suite, names] : listed) {
    if (names.empty()) {
      lines.push_back(fmt::format("refbench: shard {}/{}: suite {} listed no benchmark (it failed): {}", shard.index,
                                  shard.count, suite,
                                  shard.index == 1 ? "it runs whole here, on shard 1" : "it runs whole on shard 1"));
      if (shard.index == 1) {
        rows[suite];
      }
      continue;
    }
    const auto families = model::families_of_shard({names.begin(), names.end()}, shard);
    std::vector<std::string> mine;
    for (const auto& name : names) {
      if (std::find(families.begin(), families.end(), model::benchmark_family(name)) != families.end()) {
        mine.push_back(name);
      }
    }
    lines.push_back(fmt::format("refbench: shard {}/{}: suite {}: {} of its {} benchmarks{}", shard.index, shard.count,
                                suite, mine.size(), names.size(), mine.empty() ? " (fewer families than shards)" : ""));
    if (!mine.empty()) {
      rows[suite] = mine;
    }
  }
  std::erase_if(plan.cells,
                [&](const model::CellSpec& cell) { return cell.meta.suite && !rows.contains(suite_of(cell)); });
  for (auto& cell : plan.cells) {
    const auto found = cell.meta.suite ? rows.find(suite_of(cell)) : rows.end();
    if (found != rows.end() && !found->second.empty()) { // else not a suite, or one that runs whole
      config::narrow_suite(cell, found->second);
    }
  }
  if (plan.cells.empty()) {
    throw UsageError(fmt::format("--shard {}/{}: this shard gets no cell and none of the suites' benchmarks",
                                 shard.index, shard.count),
                     "use fewer shards: a suite splits by benchmark family (the name up to its first '/')");
  }
  return lines;
}

model::Shard checked_shard(const std::string& flag, const config::Config& config) {
  const auto shard = model::parse_shard(flag);
  model::cells_of_shard(cells_of_config(config), shard); // throws when a shard would get no cell
  return shard;
}

std::vector<model::CellSpec> cells_of_run(const config::Config& config, std::optional<model::Shard> shard,
                                          const std::vector<std::string>& globs) {
  auto cells = cells_of_config(config);
  if (shard) {
    cells = model::cells_of_shard(cells, *shard);
  }
  return config::select_cells(std::move(cells), globs, "--cells");
}

bool run_uses_payload(const config::Config& config, std::optional<model::Shard> shard,
                      const std::vector<std::string>& globs, std::uint64_t bytes) {
  const auto mine = cells_of_run(config, shard, globs);
  return std::any_of(mine.begin(), mine.end(), [&](const model::CellSpec& cell) {
    return !cell.meta.family.empty() && cell.meta.payload_bytes == bytes;
  });
}

model::ShardIdentity shard_identity(model::Shard shard, const std::string& baseline_sha,
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

std::vector<std::string> mark_new_cells(std::vector<model::CellSpec>& cells, const config::Config& config,
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
