#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/version.hpp>

#include "document_limits.hpp"

#include <fmt/format.h>

// The members of results.json and of the journal's first line that say how
// the run was asked for: schema_version, tool, command, seed, settings,
// arms, environment (with CPU isolation), rss, reproduce, shard.

namespace refbench::formats {

using namespace report; // the document whose JSON this is
namespace {

using nlohmann::json;
using Fields = util::JsonFields;
using limits::k_max_count;
using limits::k_max_replicas;

json metric_names(const std::vector<model::Metric>& metrics) {
  json list = json::array();
  for (auto m : metrics) {
    list.push_back(model::metric_name(m));
  }
  return list;
}

// The metrics named in member `key`, or `fallback` when it is missing;
// names refbench does not measure itself are left out.
std::vector<model::Metric> metrics_at(const Fields& f, std::string_view key, std::vector<model::Metric> fallback) {
  if (!f.has(key)) {
    return fallback;
  }
  std::vector<model::Metric> metrics;
  for (const auto& item : f.part(key, true, false)) {
    if (!item.is_string()) {
      f.fail(fmt::format("{} must hold only strings, got {}", f.name(key), util::json_excerpt(item)));
    }
    if (auto parsed = model::parse_metric_list(item.get<std::string>())) {
      metrics.insert(metrics.end(), parsed->begin(), parsed->end());
    }
  }
  return metrics;
}

std::optional<int> optional_count(const Fields& f, std::string_view key, std::int64_t low) {
  if (!f.has(key)) {
    return std::nullopt;
  }
  return static_cast<int>(f.integer(key, low, k_max_count));
}

json to_json(const RecordedSettings& s, bool measured) {
  json j{{"min_rounds", s.min_rounds},
         {"threshold", s.threshold},
         {"alpha", s.alpha},
         {"interval", analysis::interval_name(s.interval)}};
  if (measured) {
    j["metrics"] = metric_names(s.metrics);
    j["gate"] = metric_names(s.gate);
  }
  const std::pair<const char*, std::optional<double>> numbers[] = {{"budget_seconds", s.budget_seconds},
                                                                   {"precision", s.precision}};
  for (const auto& [key, value] : numbers) {
    if (value) {
      j[key] = *value;
    }
  }
  const std::pair<const char*, std::optional<int>> counts[] = {
      {"max_rounds", s.max_rounds}, {"warmup", s.warmup}, {"replicas", s.replicas}};
  for (const auto& [key, value] : counts) {
    if (value) {
      j[key] = *value;
    }
  }
  if (s.counters) {
    j["counters"] = *s.counters;
  }
  if (s.explain) {
    j["explain"] = *s.explain;
  }
  if (s.better) {
    j["better"] = *s.better == analysis::Direction::higher_is_better ? "higher" : "lower";
  }
  return j;
}

RecordedSettings settings_from(const Fields& document) {
  const auto object = document.part("settings", false, false);
  const Fields f = document.inner(object, document.name("settings"));
  RecordedSettings s;
  s.budget_seconds = f.optional_number("budget_seconds", 0.0, util::k_max_recorded_seconds);
  s.max_rounds = optional_count(f, "max_rounds", 0);
  s.min_rounds = static_cast<int>(f.integer("min_rounds", 1, k_max_count, model::k_default_min_rounds));
  s.warmup = optional_count(f, "warmup", 0);
  if (f.has("replicas")) {
    s.replicas = static_cast<int>(f.integer("replicas", 1, k_max_replicas));
  }
  s.metrics = metrics_at(f, "metrics", model::default_metrics());
  s.gate = metrics_at(f, "gate", model::default_gate());
  s.threshold = f.number("threshold", 1.0, 1e9, model::k_default_threshold);
  s.alpha = f.number("alpha", 0.0, 1.0, analysis::k_default_alpha);
  s.precision = f.optional_number("precision", 0.0, 1e9);
  const auto interval = f.string("interval", "signed-rank");
  const auto method = analysis::parse_interval(interval);
  if (!method) {
    f.fail(fmt::format("{} must be \"signed-rank\" or \"bootstrap\", got \"{}\"", f.name("interval"), interval));
  }
  s.interval = *method;
  if (f.has("counters")) {
    s.counters = f.string("counters");
  }
  if (f.has("explain")) {
    s.explain = f.string("explain");
  }
  if (f.has("better")) {
    const auto better = f.string("better");
    if (better != "lower" && better != "higher") {
      f.fail(fmt::format("{} must be \"lower\" or \"higher\", got \"{}\"", f.name("better"), better));
    }
    s.better = better == "higher" ? analysis::Direction::higher_is_better : analysis::Direction::lower_is_better;
  }
  return s;
}

json to_json(const ArmInfo& arm) {
  json j = json::object();
  const std::pair<const char*, const std::string*> strings[] = {
      {"ref", &arm.ref}, {"name", &arm.name}, {"sha", &arm.sha}, {"dir", &arm.dir}, {"command", &arm.command}};
  for (const auto& [key, value] : strings) {
    if (!value->empty()) {
      j[key] = *value;
    }
  }
  if (arm.build_seconds) {
    j["build_seconds"] = *arm.build_seconds;
  }
  if (!arm.env.empty()) {
    j["env"] = arm.env;
  }
  if (!arm.args.empty()) {
    j["args"] = arm.args;
  }
  return j;
}

// One arm's object, its strings checked.
ArmInfo arm_of(const Fields& f) {
  ArmInfo arm{f.string("ref", ""), f.string("name", ""),    f.string("sha", ""),
              f.string("dir", ""), f.string("command", ""), f.optional_number("build_seconds", 0.0, 1e9)};
  for (auto [key, list] : {std::pair{"env", &arm.env}, std::pair{"args", &arm.args}}) {
    for (const auto& word : f.part(key, true, false)) {
      if (!word.is_string()) {
        f.fail(fmt::format("{} must hold only strings", f.name(key)));
      }
      list->push_back(word.get<std::string>());
    }
  }
  return arm;
}

std::optional<ArmInfo> arm_from(const Fields& arms, const char* key) {
  if (!arms.has(key)) {
    return std::nullopt;
  }
  const auto object = arms.part(key, false, false);
  return arm_of(arms.inner(object, arms.name(key)));
}

json to_json(const IsolationInfo& isolation) {
  json splits = json::array();
  for (const auto& split : isolation.splits) {
    json groups = json::object();
    for (const auto& [name, cpus] : split.groups) {
      groups[name] = cpus;
    }
    splits.push_back({{"cell", split.cell}, {"groups", std::move(groups)}, {"unassigned", split.unassigned}});
  }
  return {{"mode", isolation.mode},
          {"pinned", isolation.pinned},
          {"usable_cpus", isolation.usable_cpus},
          {"refbench_cpus", isolation.refbench_cpus},
          {"benchmark_cpus", isolation.benchmark_cpus},
          {"splits", std::move(splits)},
          {"warning", isolation.warning.empty() ? json(nullptr) : json(isolation.warning)}};
}

IsolationInfo isolation_from(const Fields& f) {
  IsolationInfo info{f.string("mode", ""),          f.boolean("pinned", false),     f.string("usable_cpus", ""),
                     f.string("refbench_cpus", ""), f.string("benchmark_cpus", ""), {},
                     f.string("warning", "")};
  info.splits = f.each("splits", [](const Fields& split) {
    IsolationInfo::Split s{split.string("cell", ""), {}, split.string("unassigned", "")};
    const auto groups = split.part("groups", false, false);
    const Fields g = split.inner(groups, split.name("groups"));
    for (const auto& [name, cpus] : groups.items()) {
      s.groups.emplace(name, g.string(name));
    }
    return s;
  });
  return info;
}

json to_json(const EnvironmentInfo& env) {
  json j{{"kernel", env.kernel}, {"machine", env.machine}, {"cpu_model", env.cpu_model}, {"governor", env.governor}};
  const std::pair<const char*, std::optional<int>> counts[] = {
      {"cpus", env.cpus}, {"cores", env.cores}, {"threads_per_core", env.threads_per_core}};
  for (const auto& [key, value] : counts) {
    if (value) {
      j[key] = *value;
    }
  }
  if (env.isolation) {
    j["isolation"] = to_json(*env.isolation);
  }
  if (env.counters) {
    j["counters"] = {
        {"source", env.counters->source}, {"probe", env.counters->probe}, {"version", env.counters->version}};
    if (!env.counters->allocations.empty()) {
      j["counters"]["allocations"] = env.counters->allocations;
    }
  }
  if (env.sandbox) {
    j["sandbox"] = json::object({{"mode", env.sandbox->mode}});
    if (!env.sandbox->reason.empty()) {
      j["sandbox"]["reason"] = env.sandbox->reason;
    }
  }
  return j;
}

std::optional<EnvironmentInfo> environment_from(const Fields& document) {
  const auto object = document.part("environment", false, false);
  if (object.empty()) {
    return std::nullopt;
  }
  const Fields f = document.inner(object, document.name("environment"));
  auto count = [&](const char* key) {
    return f.has(key) ? std::optional<int>(static_cast<int>(f.integer(key, 0, 1 << 24))) : std::nullopt;
  };
  EnvironmentInfo env{f.string("kernel", ""), f.string("machine", ""),   f.string("cpu_model", ""), count("cpus"),
                      count("cores"),         count("threads_per_core"), f.string("governor", ""),  std::nullopt};
  if (f.has("isolation")) {
    env.isolation = isolation_from(f.inner(f.part("isolation", false, true), f.name("isolation")));
  }
  if (f.has("counters")) {
    const auto counters = f.part("counters", false, true); // Fields refer to it
    const Fields c = f.inner(counters, f.name("counters"));
    env.counters =
        CounterInfo{c.string("source"), c.string("probe", ""), c.string("version", ""), c.string("allocations", "")};
  }
  if (f.has("sandbox")) {
    const auto sandbox = f.part("sandbox", false, true); // Fields refer to it
    const Fields b = f.inner(sandbox, f.name("sandbox"));
    env.sandbox = SandboxInfo{b.string("mode"), b.string("reason", "")};
  }
  return env;
}

std::optional<model::RssProbe> rss_from(const Fields& document) {
  if (!document.has("rss")) {
    return std::nullopt;
  }
  const auto object = document.part("rss", false, true);
  const Fields f = document.inner(object, document.name("rss"));
  return model::RssProbe{f.string("method"), f.integer("floor_bytes", 0, INT64_MAX),
                         f.seconds("spawn_resolution_seconds", 0.0)};
}

void check_schema_version(const Fields& document) {
  if (!document.has("schema_version")) {
    document.fail("schema_version is missing: this is no results.json or journal written by refbench");
  }
  const auto version = document.integer("schema_version", 1, INT64_MAX);
  if (version > k_schema_version) {
    document.fail(fmt::format("schema_version {} is newer than this refbench reads ({}): update refbench to read it",
                              version, k_schema_version));
  }
}

} // namespace

json to_json(const RunHeader& h) {
  json j{{"schema_version", k_schema_version},
         {"tool", {{"name", "refbench"}, {"version", h.tool_version.empty() ? k_version : h.tool_version}}},
         {"command", h.command},
         {"seed", h.seed},
         {"settings", to_json(h.settings, h.command != "analyze")},
         {"reproduce", h.reproduce}};
  if (h.baseline || h.candidate) {
    j["arms"] = {{"baseline", to_json(h.baseline.value_or(ArmInfo{}))},
                 {"candidate", to_json(h.candidate.value_or(ArmInfo{}))}};
    if (h.candidates.size() > 1) {
      j["arms"]["candidates"] = json::array();
      for (const auto& arm : h.candidates) {
        j["arms"]["candidates"].push_back(to_json(arm));
      }
    }
  }
  if (h.environment) {
    j["environment"] = to_json(*h.environment);
  }
  if (h.rss) {
    j["rss"] = {{"method", h.rss->method},
                {"floor_bytes", h.rss->floor_bytes},
                {"spawn_resolution_seconds", h.rss->spawn_resolution_seconds}};
  }
  if (h.shard) {
    j["shard"] = model::to_json(*h.shard);
  }
  if (!h.removed_cells.empty()) {
    j["removed_cells"] = h.removed_cells;
  }
  return j;
}

RunHeader header_from_json(const Fields& f) {
  check_schema_version(f);
  RunHeader h;
  const auto tool = f.part("tool", false, false);
  h.tool_version = f.inner(tool, "tool").string("version", "");
  h.command = f.string("command", "");
  h.seed = f.take(util::unsigned_member(f.object(), "seed", 0));
  h.reproduce = f.string("reproduce", "");
  h.settings = settings_from(f);
  const auto arms = f.part("arms", false, false);
  const Fields a = f.inner(arms, "arms");
  h.baseline = arm_from(a, "baseline");
  h.candidate = arm_from(a, "candidate");
  const auto candidates = a.part("candidates", true, false);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    h.candidates.push_back(arm_of(a.inner(candidates[i], fmt::format("{}[{}]", a.name("candidates"), i))));
  }
  h.environment = environment_from(f);
  h.rss = rss_from(f);
  if (f.has("shard")) {
    h.shard = model::shard_identity_from_json(f.part("shard", false, true), f.where());
  }
  for (const auto& name : f.part("removed_cells", true, false)) {
    if (!name.is_string()) {
      f.fail(f.name("removed_cells") + " must hold only cell names");
    }
    h.removed_cells.push_back(name.get<std::string>());
  }
  return h;
}

json journal_header(const RunHeader& header, const std::vector<model::CellSpec>& cells) {
  json cell_list = json::array();
  for (const auto& cell : cells) {
    cell_list.push_back({{"name", cell.name}, {"control", cell.control}, {"meta", formats::to_json(cell.meta)}});
  }
  json j = to_json(header);
  j["type"] = "header";
  j["cells"] = std::move(cell_list);
  return j;
}

} // namespace refbench::formats
