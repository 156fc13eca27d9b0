#include <refbench/report/report_model.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace refbench::report {
namespace {

using nlohmann::json;

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// The member `key` of `j`, or null when `j` is no object or lacks it.
const json* member(const json& j, const char* key) {
  if (!j.is_object()) {
    return nullptr;
  }
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::optional<double> number_at(const json& j, const char* key) {
  const json* m = member(j, key);
  return m != nullptr && m->is_number() ? std::optional<double>(m->get<double>()) : std::nullopt;
}

std::optional<std::int64_t> integer_at(const json& j, const char* key) {
  const json* m = member(j, key);
  return m != nullptr && m->is_number_integer() ? std::optional<std::int64_t>(m->get<std::int64_t>()) : std::nullopt;
}

std::optional<int> int_at(const json& j, const char* key) {
  auto value = integer_at(j, key);
  if (!value || *value < std::numeric_limits<int>::min() || *value > std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  return static_cast<int>(*value);
}

std::string string_at(const json& j, const char* key) {
  const json* m = member(j, key);
  return m != nullptr && m->is_string() ? m->get<std::string>() : std::string();
}

bool bool_at(const json& j, const char* key) {
  const json* m = member(j, key);
  return m != nullptr && m->is_boolean() && m->get<bool>();
}

std::vector<std::string> strings_at(const json& j, const char* key) {
  std::vector<std::string> out;
  const json* m = member(j, key);
  if (m != nullptr && m->is_array()) {
    for (const auto& item : *m) {
      if (item.is_string()) {
        out.push_back(item.get<std::string>());
      }
    }
  }
  return out;
}

// The array `key` of `j`, or an empty array.
const json& array_at(const json& j, const char* key) {
  static const json k_empty = json::array();
  const json* m = member(j, key);
  return m != nullptr && m->is_array() ? *m : k_empty;
}

analysis::Unit unit_of(const std::string& unit, const std::string& metric) {
  if (unit == "seconds") {
    return analysis::Unit::seconds;
  }
  if (unit == "bytes") {
    return analysis::Unit::bytes;
  }
  if (unit == "plain") {
    return analysis::Unit::plain;
  }
  if (metric == "wall" || metric == "cpu" || metric == "user" || metric == "sys") {
    return analysis::Unit::seconds;
  }
  return metric == "rss" ? analysis::Unit::bytes : analysis::Unit::plain;
}

stats::Verdict verdict_of(const std::string& name) {
  static constexpr std::array k_verdicts{stats::Verdict::error,      stats::Verdict::censored,
                                         stats::Verdict::regression, stats::Verdict::improved,
                                         stats::Verdict::pass,       stats::Verdict::inconclusive};
  for (auto verdict : k_verdicts) {
    if (stats::verdict_name(verdict) == name) {
      return verdict;
    }
  }
  return stats::Verdict::inconclusive;
}

std::optional<ArmInfo> arm_at(const json& arms, const char* key) {
  const json* arm = member(arms, key);
  if (arm == nullptr || !arm->is_object()) {
    return std::nullopt;
  }
  // what a keyword named (the tag of latest-release) says more than the keyword
  const std::string name = string_at(*arm, "name");
  return ArmInfo{name.empty() ? string_at(*arm, "ref") : name, string_at(*arm, "sha"), string_at(*arm, "command"),
                 number_at(*arm, "build_seconds")};
}

std::optional<IsolationInfo> isolation_at(const json& env) {
  const json* isolation = member(env, "isolation");
  if (isolation == nullptr || !isolation->is_object()) {
    return std::nullopt;
  }
  IsolationInfo info{string_at(*isolation, "mode"),
                     bool_at(*isolation, "pinned"),
                     string_at(*isolation, "refbench_cpus"),
                     string_at(*isolation, "benchmark_cpus"),
                     {},
                     string_at(*isolation, "warning")};
  for (const auto& split : array_at(*isolation, "splits")) {
    IsolationInfo::Split s{string_at(split, "cell"), {}, string_at(split, "unassigned")};
    if (const json* groups = member(split, "groups"); groups != nullptr && groups->is_object()) {
      for (const auto& [name, cpus] : groups->items()) {
        s.groups.emplace_back(name, cpus.is_string() ? cpus.get<std::string>() : std::string());
      }
    }
    info.splits.push_back(std::move(s));
  }
  return info;
}

std::optional<EnvironmentInfo> environment_at(const json& document) {
  const json* env = member(document, "environment");
  if (env == nullptr || !env->is_object() || env->empty()) {
    return std::nullopt;
  }
  return EnvironmentInfo{string_at(*env, "kernel"),   string_at(*env, "machine"), string_at(*env, "cpu_model"),
                         int_at(*env, "cpus"),        int_at(*env, "cores"),      int_at(*env, "threads_per_core"),
                         string_at(*env, "governor"), isolation_at(*env)};
}

std::optional<RssInfo> rss_at(const json& document) {
  const json* rss = member(document, "rss");
  if (rss == nullptr || !rss->is_object()) {
    return std::nullopt;
  }
  return RssInfo{string_at(*rss, "method"), number_at(*rss, "floor_bytes"),
                 number_at(*rss, "spawn_resolution_seconds")};
}

SettingsInfo settings_at(const json& document, const std::vector<analysis::MetricResult>& results) {
  static const json k_none = json::object();
  const json* s = member(document, "settings");
  const json& settings = s != nullptr ? *s : k_none;
  SettingsInfo out{
      number_at(settings, "budget_seconds"), int_at(settings, "max_rounds"),  int_at(settings, "min_rounds"),
      analysis::k_default_threshold,         number_at(settings, "alpha"),    number_at(settings, "precision"),
      string_at(settings, "interval"),       strings_at(settings, "metrics"), strings_at(settings, "gate")};
  if (auto threshold = number_at(settings, "threshold")) {
    out.threshold = *threshold;
  } else if (!results.empty()) {
    out.threshold = results.front().threshold;
  }
  return out;
}

CellInfo cell_from_json(const json& cell) {
  CellInfo out{string_at(cell, "name"), bool_at(cell, "control"), string_at(cell, "stop_reason"),
               int_at(cell, "rounds").value_or(0), std::nullopt};
  const json* failure = member(cell, "failure");
  if (failure != nullptr && failure->is_object()) {
    out.failure = FailureInfo{string_at(*failure, "arm"), int_at(*failure, "round").value_or(0),
                              string_at(*failure, "description"), string_at(*failure, "stderr_tail")};
  }
  return out;
}

} // namespace

analysis::MetricResult metric_result_from_json(const json& entry) {
  analysis::MetricResult r;
  r.cell = string_at(entry, "cell");
  r.metric = string_at(entry, "metric");
  r.unit = unit_of(string_at(entry, "unit"), r.metric);
  r.unit_label = string_at(entry, "unit_label");
  r.direction = string_at(entry, "better") == "higher" ? analysis::Direction::higher_is_better
                                                       : analysis::Direction::lower_is_better;
  r.control = bool_at(entry, "control");
  r.gated = bool_at(entry, "gated");
  const json* paired = member(entry, "paired");
  r.paired = paired == nullptr || !paired->is_boolean() || paired->get<bool>();
  r.n = static_cast<std::size_t>(std::max<std::int64_t>(0, integer_at(entry, "n").value_or(0)));
  r.baseline_median = number_at(entry, "baseline_median").value_or(k_nan);
  r.candidate_median = number_at(entry, "candidate_median").value_or(k_nan);
  r.ratio = number_at(entry, "ratio").value_or(k_nan);
  r.ci_low = number_at(entry, "ci_low").value_or(k_nan);
  r.ci_high = number_at(entry, "ci_high").value_or(k_nan);
  r.p = number_at(entry, "p");
  r.p_bh = number_at(entry, "p_bh");
  r.threshold = number_at(entry, "threshold").value_or(analysis::k_default_threshold);
  r.verdict = verdict_of(string_at(entry, "verdict"));
  r.censored = bool_at(entry, "censored");
  r.min_detectable_ratio = number_at(entry, "min_detectable_ratio").value_or(k_nan);
  r.half_width = std::log(r.min_detectable_ratio);
  r.noise_floor = number_at(entry, "noise_floor");
  if (const json* error = member(entry, "error"); error != nullptr && error->is_string()) {
    r.error = error->get<std::string>();
  }
  return r;
}

bool gated_row(const analysis::MetricResult& result, const std::vector<analysis::MetricResult>& results) {
  return result.gated ||
         (result.control && std::any_of(results.begin(), results.end(), [&](const analysis::MetricResult& other) {
            return other.gated && !other.control && other.metric == result.metric;
          }));
}

namespace {

// The `shard` object of one shard's document, or the `shards` list of a
// merge of shards (each with its index and count).
std::optional<ShardsInfo> shards_at(const json& document) {
  // a count or index that is no integer from 0 to k_max_shards reads as 0
  // (unknown): the report lists the shards from 1 to the count
  constexpr std::int64_t k_max_shards = 100000;
  auto size_at = [](const json& j, const char* key) {
    const auto value = integer_at(j, key).value_or(0);
    return static_cast<std::size_t>(value >= 0 && value <= k_max_shards ? value : 0);
  };
  ShardsInfo info;
  if (const json* shard = member(document, "shard"); shard != nullptr && shard->is_object()) {
    info.indices = {size_at(*shard, "index")};
    info.count = size_at(*shard, "count");
    return info;
  }
  info.merged = true;
  for (const auto& entry : array_at(document, "shards")) {
    if (!entry.is_object() || !entry.contains("index")) {
      return std::nullopt;
    }
    info.indices.push_back(size_at(entry, "index"));
    info.count = size_at(entry, "count");
  }
  if (info.indices.empty()) {
    return std::nullopt;
  }
  std::sort(info.indices.begin(), info.indices.end());
  return info;
}

} // namespace

ReportModel read_model(const json& document) {
  ReportModel model;
  for (const auto& entry : array_at(document, "analysis")) {
    model.results.push_back(metric_result_from_json(entry));
  }
  model.command = string_at(document, "command");
  // a missing (or unknown) verdict is derived from the analysis
  model.verdict =
      analysis::parse_run_verdict(string_at(document, "verdict")).value_or(analysis::overall_verdict(model.results));
  model.partial = bool_at(document, "partial");
  if (const json* seed = member(document, "seed"); seed != nullptr && seed->is_number_unsigned()) {
    model.seed = seed->get<std::uint64_t>();
  }
  model.reproduce = string_at(document, "reproduce");
  model.elapsed_seconds = number_at(document, "elapsed_seconds");
  model.total_seconds = number_at(document, "total_seconds");
  model.settings = settings_at(document, model.results);
  const json* arms = member(document, "arms");
  if (arms != nullptr) {
    model.baseline = arm_at(*arms, "baseline");
    model.candidate = arm_at(*arms, "candidate");
  }
  model.environment = environment_at(document);
  model.rss = rss_at(document);
  for (const auto& cell : array_at(document, "cells")) {
    model.cells.push_back(cell_from_json(cell));
  }
  for (const auto& warning : array_at(document, "warnings")) {
    if (warning.is_string()) {
      model.warnings.push_back({"", warning.get<std::string>()});
    } else {
      model.warnings.push_back({string_at(warning, "cell"), string_at(warning, "message")});
    }
  }
  for (const auto& replica : array_at(document, "replicas")) {
    if (replica.is_object()) {
      model.replicas.push_back({string_at(replica, "cell"), string_at(replica, "arm"),
                                int_at(replica, "replica").value_or(0),
                                static_cast<std::size_t>(std::max(0, int_at(replica, "n").value_or(0))),
                                number_at(replica, "median_wall").value_or(std::nan(""))});
    }
  }
  model.shards = shards_at(document);
  return model;
}

} // namespace refbench::report
