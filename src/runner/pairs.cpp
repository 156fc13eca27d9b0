#include <refbench/runner/pairs.hpp>
#include <refbench/util/clock.hpp>

#include <algorithm>
#include <array>
#include <map>

namespace refbench::runner {
namespace {

constexpr std::array<std::pair<Metric, std::string_view>, 5> k_metric_names{{
    {Metric::wall, "wall"},
    {Metric::cpu, "cpu"},
    {Metric::user, "user"},
    {Metric::sys, "sys"},
    {Metric::rss, "rss"},
}};

} // namespace

std::string_view metric_name(Metric metric) {
  for (const auto& [m, name] : k_metric_names) {
    if (m == metric) {
      return name;
    }
  }
  return "unknown";
}

std::expected<std::vector<Metric>, std::string> parse_metric_list(std::string_view text) {
  std::vector<Metric> metrics;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find(',', start), text.size());
    std::string_view name = text.substr(start, end - start);
    auto found = std::find_if(k_metric_names.begin(), k_metric_names.end(),
                              [&](const auto& entry) { return entry.second == name; });
    if (found == k_metric_names.end()) {
      return std::unexpected("unknown metric '" + std::string(name) + "' (use wall, cpu, user, sys, rss)");
    }
    if (std::find(metrics.begin(), metrics.end(), found->first) != metrics.end()) {
      return std::unexpected("metric '" + std::string(name) + "' is listed twice");
    }
    metrics.push_back(found->first);
    start = end + 1;
  }
  return metrics;
}

double metric_value(const process::Outcome& outcome, Metric metric) {
  switch (metric) {
  case Metric::wall:
    return outcome.wall_seconds;
  case Metric::cpu:
    return outcome.user_seconds + outcome.sys_seconds;
  case Metric::user:
    return outcome.user_seconds;
  case Metric::sys:
    return outcome.sys_seconds;
  case Metric::rss:
    return static_cast<double>(outcome.peak_rss_bytes);
  }
  return 0;
}

bool at_floor(const process::Outcome& outcome, Metric metric, const process::RssProbe& floors) {
  switch (metric) {
  case Metric::rss:
    return outcome.peak_rss_bytes <=
           std::max(outcome.rss_floor_bytes, floors.floor_bytes) + process::k_rss_censor_margin;
  case Metric::wall:
    return outcome.wall_seconds < 10 * std::max(util::monotonic_resolution_seconds(), floors.spawn_resolution_seconds);
  case Metric::cpu:
  case Metric::user:
  case Metric::sys:
    return metric_value(outcome, metric) <= 0; // below the rusage resolution
  }
  return false;
}

namespace {

// The rounds of `cell` in which both arms gave a usable sample that `has`
// accepts, each with its two samples, in round order.
template <typename Has>
std::map<int, std::array<const Sample*, 2>> paired_samples(const RunRecord& record, std::size_t cell, Has has) {
  std::map<int, std::array<const Sample*, 2>> by_round;
  for (const auto& sample : record.samples) {
    if (sample.cell == cell && sample.round > 0 && usable(sample) && has(sample)) {
      by_round[sample.round][sample.arm == Arm::baseline ? 0 : 1] = &sample;
    }
  }
  std::erase_if(by_round, [](const auto& entry) { return entry.second[0] == nullptr || entry.second[1] == nullptr; });
  return by_round;
}

} // namespace

PairedValues candidate_values(const RunRecord& record, std::size_t cell, Metric metric,
                              const std::string& custom_metric) {
  PairedValues values;
  for (const auto& sample : record.samples) {
    if (sample.cell != cell || sample.arm != Arm::candidate || sample.round == 0 || !usable(sample)) {
      continue;
    }
    if (custom_metric.empty()) {
      values.candidate.push_back(metric_value(sample.outcome, metric));
    } else if (auto found = sample.values.find(custom_metric); found != sample.values.end()) {
      values.candidate.push_back(found->second);
    } else {
      continue;
    }
    values.rounds.push_back(sample.round);
  }
  return values;
}

PairedValues complete_pairs(const RunRecord& record, std::size_t cell, Metric metric) {
  PairedValues pairs;
  for (const auto& [round, arms] : paired_samples(record, cell, [](const Sample&) { return true; })) {
    pairs.rounds.push_back(round);
    pairs.baseline.push_back(metric_value(arms[0]->outcome, metric));
    pairs.candidate.push_back(metric_value(arms[1]->outcome, metric));
    pairs.baseline_at_floor.push_back(at_floor(arms[0]->outcome, metric, record.rss));
    pairs.candidate_at_floor.push_back(at_floor(arms[1]->outcome, metric, record.rss));
  }
  return pairs;
}

PairedValues complete_pairs(const RunRecord& record, std::size_t cell, const std::string& custom_metric) {
  PairedValues pairs;
  auto has = [&](const Sample& sample) { return sample.values.contains(custom_metric); };
  for (const auto& [round, arms] : paired_samples(record, cell, has)) {
    pairs.rounds.push_back(round);
    pairs.baseline.push_back(arms[0]->values.at(custom_metric));
    pairs.candidate.push_back(arms[1]->values.at(custom_metric));
    pairs.baseline_at_floor.push_back(false);
    pairs.candidate_at_floor.push_back(false);
  }
  return pairs;
}

} // namespace refbench::runner
