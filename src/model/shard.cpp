#include <refbench/model/shard.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <numeric>

namespace refbench::model {
namespace {

constexpr std::uint64_t k_fixed_cost_bytes = 1 << 20;

std::optional<std::size_t> parse_count(std::string_view text) {
  std::size_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::string short_sha(const std::string& sha) { return sha.substr(0, 12); }

// A bound for shard counts read back from files, far above any matrix
// (GitHub runs at most 256 jobs per matrix), so a corrupt count is refused
// instead of listing billions of missing shards.
constexpr std::size_t k_max_shards = 100000;

} // namespace

Shard parse_shard(std::string_view text) {
  const std::string hint = "write --shard K/N with 1 <= K <= N, e.g. --shard 2/3 for the second of three shards";
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    throw UsageError(fmt::format("--shard '{}' is not K/N", text), hint);
  }
  const auto index = parse_count(text.substr(0, slash));
  const auto count = parse_count(text.substr(slash + 1));
  if (!index || !count) {
    throw UsageError(fmt::format("--shard '{}' is not K/N with whole numbers K and N", text), hint);
  }
  if (*count < 1 || *index < 1 || *index > *count) {
    throw UsageError(fmt::format("--shard '{}': K must be between 1 and N", text), hint);
  }
  return {*index, *count};
}

std::uint64_t estimated_cost(const CellSpec& cell) { return k_fixed_cost_bytes + cell.meta.payload_bytes; }

std::vector<std::size_t> assign_shards(const std::vector<std::uint64_t>& costs, std::size_t count) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<std::uint64_t> load(count, 0);
  std::vector<std::size_t> shard_of(costs.size(), 0);
  for (std::size_t cell : order) {
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[cell] = lightest;
    load[lightest] += costs[cell];
  }
  return shard_of;
}

std::vector<CellSpec> cells_of_shard(const std::vector<CellSpec>& cells, Shard shard) {
  const auto suites = static_cast<std::size_t>(
      std::count_if(cells.begin(), cells.end(), [](const CellSpec& cell) { return cell.meta.suite.has_value(); }));
  if (suites == 0 && shard.count > cells.size()) {
    throw UsageError(fmt::format("--shard {}/{}: the config plans only {} cell{}, so some shard would get none",
                                 shard.index, shard.count, cells.size(), cells.size() == 1 ? "" : "s"),
                     fmt::format("use at most {} shards", cells.size()));
  }
  std::vector<std::uint64_t> costs;
  for (const auto& cell : cells) {
    if (!cell.meta.suite) {
      costs.push_back(estimated_cost(cell));
    }
  }
  const auto shard_of = assign_shards(costs, shard.count);
  std::vector<CellSpec> mine;
  std::size_t plain = 0;
  for (const auto& cell : cells) {
    if (cell.meta.suite || shard_of[plain++] == shard.index - 1) {
      mine.push_back(cell);
    }
  }
  return mine;
}

std::string benchmark_family(std::string_view benchmark) {
  return std::string(benchmark.substr(0, benchmark.find('/')));
}

std::vector<std::string> families_of_shard(const std::vector<std::string>& benchmarks, Shard shard) {
  std::map<std::string, std::uint64_t> sizes; // by family, in name order
  for (const auto& name : benchmarks) {
    ++sizes[benchmark_family(name)];
  }
  std::vector<std::uint64_t> costs;
  for (const auto& [family, size] : sizes) {
    costs.push_back(size);
  }
  const auto shard_of = assign_shards(costs, shard.count);
  std::vector<std::string> mine;
  std::size_t i = 0;
  for (const auto& [family, size] : sizes) {
    if (shard_of[i++] == shard.index - 1) {
      mine.push_back(family);
    }
  }
  return mine;
}

std::uint64_t derived_seed(std::string_view baseline_sha, std::string_view candidate_sha,
                           std::string_view config_text) {
  util::Sha256 hash;
  hash.update(std::string_view("refbench shard seed\n"));
  hash.update(baseline_sha);
  hash.update(std::string_view("\n"));
  hash.update(candidate_sha);
  hash.update(std::string_view("\n"));
  hash.update(config_text);
  const std::string hex = hash.hex_digest().substr(0, 16);
  std::uint64_t seed = 0;
  std::from_chars(hex.data(), hex.data() + hex.size(), seed, 16);
  return seed;
}

nlohmann::json to_json(const ShardIdentity& id) {
  return {{"index", id.shard.index},           {"count", id.shard.count}, {"baseline_sha", id.baseline_sha},
          {"candidate_sha", id.candidate_sha}, {"seed", id.seed},         {"seed_derived", id.seed_derived},
          {"config_sha256", id.config_sha256}};
}

ShardIdentity shard_identity_from_json(const nlohmann::json& j, const std::string& source) {
  try {
    ShardIdentity id;
    id.shard = {j.at("index").get<std::size_t>(), j.at("count").get<std::size_t>()};
    if (id.shard.index < 1 || id.shard.index > id.shard.count || id.shard.count > k_max_shards) {
      throw UsageError(fmt::format("{}: malformed \"shard\" record: shard {} of {} (K/N needs 1 <= K <= N <= {})",
                                   source, id.shard.index, id.shard.count, k_max_shards),
                       "pass the results.json or journal.jsonl a `refbench run --shard` wrote");
    }
    id.baseline_sha = j.at("baseline_sha").get<std::string>();
    id.candidate_sha = j.at("candidate_sha").get<std::string>();
    id.seed = j.at("seed").get<std::uint64_t>();
    id.seed_derived = j.value("seed_derived", false);
    id.config_sha256 = j.at("config_sha256").get<std::string>();
    return id;
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(fmt::format("{}: malformed \"shard\" record: {}", source, error.what()),
                     "pass the results.json or journal.jsonl a `refbench run --shard` wrote");
  }
}

std::optional<std::string> shard_mismatch(const ShardIdentity& a, const ShardIdentity& b) {
  if (a.baseline_sha != b.baseline_sha) {
    return fmt::format("different baseline commits: {} vs {}", short_sha(a.baseline_sha), short_sha(b.baseline_sha));
  }
  if (a.candidate_sha != b.candidate_sha) {
    return fmt::format("different candidate commits: {} vs {}", short_sha(a.candidate_sha), short_sha(b.candidate_sha));
  }
  if (a.config_sha256 != b.config_sha256) {
    return fmt::format("different configs or settings: sha256 {} vs {}", a.config_sha256.substr(0, 12),
                       b.config_sha256.substr(0, 12));
  }
  if (a.seed != b.seed) {
    return fmt::format("different seeds: {} vs {}", a.seed, b.seed);
  }
  if (a.shard.count != b.shard.count) {
    return fmt::format("different shard counts: {}/{} vs {}/{}", a.shard.index, a.shard.count, b.shard.index,
                       b.shard.count);
  }
  if (a.shard.index == b.shard.index) {
    return fmt::format("both are shard {}/{}", a.shard.index, a.shard.count);
  }
  return std::nullopt;
}

} // namespace refbench::model
