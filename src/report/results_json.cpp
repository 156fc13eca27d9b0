#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/placement.hpp>
#include <refbench/process/machine.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/report/units.hpp>
#include <refbench/runner/journal.hpp>
#include <refbench/version.hpp>

#include <cmath>
#include <fmt/format.h>
#include <fstream>

namespace refbench::report {
namespace {

nlohmann::json settings_json(const RunContext& context) {
  auto names = [](const std::vector<runner::Metric>& metrics) {
    nlohmann::json list = nlohmann::json::array();
    for (auto m : metrics) {
      list.push_back(runner::metric_name(m));
    }
    return list;
  };
  const auto& s = context.settings;
  return {{"budget_seconds", s.budget_seconds},
          {"max_rounds", s.max_rounds},
          {"min_rounds", s.min_rounds},
          {"warmup", s.warmup},
          {"replicas", s.replicas},
          {"metrics", names(context.metrics)},
          {"gate", names(context.gated)},
          {"threshold", context.threshold},
          {"alpha", context.alpha},
          {"precision", context.precision},
          {"interval", context.interval}};
}

// A number, or null when it is not finite (JSON has no NaN).
nlohmann::json number(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? number(*value) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json to_json(const analysis::MetricResult& r) {
  nlohmann::json j{{"cell", r.cell},
                   {"metric", r.metric},
                   {"unit", r.unit == analysis::Unit::seconds ? "seconds"
                            : r.unit == analysis::Unit::bytes ? "bytes"
                                                              : "plain"},
                   {"control", r.control},
                   {"gated", r.gated},
                   {"paired", r.paired},
                   {"n", r.n},
                   {"baseline_median", number(r.baseline_median)},
                   {"candidate_median", number(r.candidate_median)},
                   {"ratio", number(r.ratio)},
                   {"ci_low", number(r.ci_low)},
                   {"ci_high", number(r.ci_high)},
                   {"p", optional_number(r.p)},
                   {"p_bh", optional_number(r.p_bh)},
                   {"threshold", r.threshold},
                   {"verdict", stats::verdict_name(r.verdict)},
                   {"censored", r.censored},
                   {"min_detectable_ratio", number(r.min_detectable_ratio)},
                   {"noise_floor", optional_number(r.noise_floor)},
                   {"better", r.direction == analysis::Direction::higher_is_better ? "higher" : "lower"},
                   {"unit_label", r.unit_label}};
  if (r.error) {
    j["error"] = *r.error;
  }
  return j;
}

nlohmann::json isolation_json(const process::IsolationPlan& plan) {
  nlohmann::json splits = nlohmann::json::array();
  for (const auto& split : plan.splits) {
    nlohmann::json groups = nlohmann::json::object();
    for (const auto& [name, cpus] : split.groups) {
      groups[name] = process::format_cpu_list(cpus);
    }
    splits.push_back({{"cell", split.owner},
                      {"groups", std::move(groups)},
                      {"unassigned", process::format_cpu_list(split.unassigned)}});
  }
  return {{"mode", process::isolation_mode_name(plan.mode)},
          {"pinned", plan.pinned},
          {"usable_cpus", process::format_cpu_list(plan.usable)},
          {"refbench_cpus", process::format_cpu_list(plan.refbench)},
          {"benchmark_cpus", process::format_cpu_list(plan.benchmark)},
          {"splits", std::move(splits)},
          {"warning", plan.warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(plan.warning)}};
}

nlohmann::json environment_json(const process::IsolationPlan* isolation) {
  auto facts = process::machine_facts();
  nlohmann::json j{{"kernel", facts.kernel},
                   {"machine", facts.machine},
                   {"cpu_model", facts.cpu_model},
                   {"cpus", facts.cpus},
                   {"governor", facts.governor}};
  if (facts.threads_per_core > 0) {
    j["threads_per_core"] = facts.threads_per_core;
    j["cores"] = facts.cpus / facts.threads_per_core;
  }
  if (isolation != nullptr) {
    j["isolation"] = isolation_json(*isolation);
  }
  return j;
}

nlohmann::json warnings_json(const std::vector<analysis::SensitivityWarning>& warnings) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& w : warnings) {
    list.push_back({{"cell", w.cell},
                    {"family", w.family},
                    {"fixed_share", w.fixed_share},
                    {"max_ratio", w.max_ratio},
                    {"threshold", w.threshold},
                    {"message", w.message}});
  }
  return list;
}

namespace {

// A warning when the launcher's RSS floor, read after each invocation, rose
// during the run beyond the censoring margin: the rss readings from then on
// include it (and sit at it, censored).
std::optional<nlohmann::json> floor_warning(const runner::RunRecord& record) {
  std::int64_t lowest = 0;
  for (const auto& sample : record.samples) {
    const std::int64_t floor = sample.outcome.rss_floor_bytes;
    if (floor > 0 && (lowest == 0 || floor < lowest)) {
      lowest = floor;
    } else if (lowest > 0 && floor > lowest + process::k_rss_censor_margin) {
      const auto& cell = record.cells.at(sample.cell);
      return nlohmann::json{
          {"cell", cell.name},
          {"message", fmt::format("the launcher's RSS floor rose from {} to {} while running the {} command of {} "
                                  "in round {}: rss readings from then on include it",
                                  format_bytes(static_cast<double>(lowest)), format_bytes(static_cast<double>(floor)),
                                  runner::arm_label(cell, sample.arm), cell.name, sample.round)}};
    }
  }
  return std::nullopt;
}

nlohmann::json arms_json(const RunContext& context) {
  if (!context.arms.is_null()) {
    return context.arms;
  }
  return {{"baseline", {{"command", context.baseline_label}}}, {"candidate", {{"command", context.candidate_label}}}};
}

} // namespace

RunContext context_from_json(const nlohmann::json& header) {
  RunContext context;
  const auto settings = header.value("settings", nlohmann::json::object());
  auto metrics = [&](const char* key, std::vector<runner::Metric> fallback) {
    std::optional<std::vector<std::string>> names;
    if (settings.contains(key)) {
      names = settings.at(key).get<std::vector<std::string>>();
    }
    return analysis::metrics_named(names, fallback);
  };
  context.command = header.value("command", std::string("run"));
  context.reproduce = header.value("reproduce", std::string());
  context.arms = header.value("arms", nlohmann::json());
  auto label = [&](const char* arm) {
    if (header.contains(arm) && header.at(arm).is_string()) { // the journal header's labels
      return header.at(arm).get<std::string>();
    }
    const auto& a = context.arms.is_object() ? context.arms.value(arm, nlohmann::json::object()) : nlohmann::json();
    return a.is_object() ? a.value("ref", a.value("command", std::string())) : std::string();
  };
  context.baseline_label = label("baseline");
  context.candidate_label = label("candidate");
  context.settings.budget_seconds = settings.value("budget_seconds", 0.0);
  context.settings.max_rounds = settings.value("max_rounds", 0);
  context.settings.min_rounds = settings.value("min_rounds", 10);
  context.settings.warmup = settings.value("warmup", 0);
  context.settings.replicas = settings.value("replicas", 1);
  context.settings.seed = header.value("seed", std::uint64_t{0});
  context.metrics = metrics("metrics", {runner::Metric::wall});
  context.gated = metrics("gate", {runner::Metric::wall});
  context.threshold = settings.value("threshold", analysis::k_default_threshold);
  context.alpha = settings.value("alpha", 0.05);
  context.precision = settings.value("precision", 0.02);
  context.interval = settings.value("interval", std::string("signed-rank"));
  context.environment = header.value("environment", nlohmann::json::object());
  context.shard = header.value("shard", nlohmann::json());
  return context;
}

analysis::Settings analysis_settings(const RunContext& context) {
  analysis::Settings settings;
  settings.threshold = context.threshold;
  settings.alpha = context.alpha;
  settings.min_rounds = static_cast<std::size_t>(context.settings.min_rounds);
  settings.interval = analysis::parse_interval(context.interval).value_or(analysis::IntervalMethod::signed_rank);
  settings.seed = context.settings.seed;
  return settings;
}

nlohmann::json journal_header(const RunContext& context, const std::vector<runner::CellSpec>& cells,
                              const process::RssProbe& rss, std::uint64_t seed) {
  nlohmann::json cell_list = nlohmann::json::array();
  for (const auto& cell : cells) {
    cell_list.push_back({{"name", cell.name}, {"control", cell.control}, {"meta", runner::to_json(cell.meta)}});
  }
  nlohmann::json header{{"type", "header"},
                        {"cells", std::move(cell_list)},
                        {"schema_version", 1},
                        {"tool", {{"name", "refbench"}, {"version", k_version}}},
                        {"command", context.command},
                        {"seed", seed},
                        {"baseline", context.baseline_label},
                        {"candidate", context.candidate_label},
                        {"arms", arms_json(context)},
                        {"settings", settings_json(context)},
                        {"rss",
                         {{"method", rss.method},
                          {"floor_bytes", rss.floor_bytes},
                          {"spawn_resolution_seconds", rss.spawn_resolution_seconds}}},
                        {"environment", context.environment},
                        {"reproduce", context.reproduce}};
  if (!context.shard.is_null()) {
    header["shard"] = context.shard;
  }
  return header;
}

nlohmann::json cells_json(const runner::RunRecord& record) {
  nlohmann::json cells = nlohmann::json::array();
  for (std::size_t cell = 0; cell < record.cells.size(); ++cell) {
    auto j = runner::to_json(record.cells[cell]);
    j["samples"] = nlohmann::json::array();
    for (const auto& sample : record.samples) {
      if (sample.cell == cell) {
        auto s = runner::to_json(sample, record.cells);
        s.erase("type");
        s.erase("cell");
        j["samples"].push_back(std::move(s));
      }
    }
    cells.push_back(std::move(j));
  }
  return cells;
}

nlohmann::json results_json(const runner::RunRecord& record, const RunContext& context,
                            const std::vector<analysis::MetricResult>& results) {
  nlohmann::json cells = cells_json(record);
  nlohmann::json analysis = nlohmann::json::array();
  for (const auto& r : results) {
    analysis.push_back(to_json(r));
  }
  nlohmann::json document{
      {"schema_version", 1},
      {"tool", {{"name", "refbench"}, {"version", k_version}}},
      {"command", context.command},
      {"seed", record.seed},
      {"verdict", analysis::run_verdict_name(analysis::overall_verdict(results))},
      {"partial", record.interrupted_by != 0},
      {"arms", arms_json(context)},
      {"settings", settings_json(context)},
      {"environment", context.environment},
      {"rss",
       {{"method", record.rss.method},
        {"floor_bytes", record.rss.floor_bytes},
        {"spawn_resolution_seconds", record.rss.spawn_resolution_seconds}}},
      {"elapsed_seconds", record.elapsed_seconds},
      {"reproduce", context.reproduce},
      {"cells", std::move(cells)},
      {"analysis", std::move(analysis)},
      {"warnings", warnings_json(analysis::sensitivity_warnings(analysis::family_points(record, results)))}};
  if (!context.shard.is_null()) {
    document["shard"] = context.shard;
  }
  if (auto warning = floor_warning(record)) {
    document["warnings"].push_back(std::move(*warning));
  }
  for (const auto& m : analysis::replica_medians(record)) {
    document["replicas"].push_back(
        {{"cell", m.cell}, {"arm", m.arm}, {"replica", m.replica}, {"n", m.n}, {"median_wall", m.median_seconds}});
  }
  for (const auto& w : analysis::placement_warnings(record, results)) {
    document["warnings"].push_back({{"cell", w.cell},
                                    {"arm", w.arm},
                                    {"replica", w.replica},
                                    {"ratio", w.ratio},
                                    {"noise_floor", w.noise_floor},
                                    {"message", w.message}});
  }
  return document;
}

} // namespace refbench::report
