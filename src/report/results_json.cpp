#include <refbench/report/results_json.hpp>
#include <refbench/runner/journal.hpp>
#include <refbench/version.hpp>

#include <cmath>
#include <fstream>
#include <sys/utsname.h>
#include <thread>

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
  return {{"budget_seconds", s.budget_seconds}, {"max_rounds", s.max_rounds},
          {"min_rounds", s.min_rounds},         {"warmup", s.warmup},
          {"metrics", names(context.metrics)},  {"gate", names(context.gated)},
          {"threshold", context.threshold},     {"alpha", context.alpha},
          {"precision", context.precision},     {"interval", context.interval}};
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
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
                   {"better", r.direction == analysis::Direction::higher_is_better ? "higher" : "lower"}};
  if (r.error) {
    j["error"] = *r.error;
  }
  return j;
}

nlohmann::json environment_json() {
  utsname names{};
  ::uname(&names);
  return {{"kernel", std::string(names.sysname) + " " + names.release},
          {"machine", names.machine},
          {"cpu_model", cpu_model()},
          {"cpus", std::thread::hardware_concurrency()}};
}

nlohmann::json journal_header(const RunContext& context, const std::vector<runner::CellSpec>& cells,
                              const process::RssProbe& rss, std::uint64_t seed) {
  nlohmann::json cell_list = nlohmann::json::array();
  for (const auto& cell : cells) {
    cell_list.push_back({{"name", cell.name}, {"control", cell.control}});
  }
  return {{"type", "header"},
          {"cells", std::move(cell_list)},
          {"schema_version", 1},
          {"tool", {{"name", "refbench"}, {"version", k_version}}},
          {"command", context.command},
          {"seed", seed},
          {"baseline", context.baseline_label},
          {"candidate", context.candidate_label},
          {"settings", settings_json(context)},
          {"rss",
           {{"method", rss.method},
            {"floor_bytes", rss.floor_bytes},
            {"spawn_resolution_seconds", rss.spawn_resolution_seconds}}},
          {"environment", context.environment},
          {"reproduce", context.reproduce}};
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
  return {
      {"schema_version", 1},
      {"tool", {{"name", "refbench"}, {"version", k_version}}},
      {"command", context.command},
      {"seed", record.seed},
      {"verdict", analysis::overall_verdict(results)},
      {"partial", record.interrupted_by != 0},
      {"arms",
       {{"baseline", {{"command", context.baseline_label}}}, {"candidate", {{"command", context.candidate_label}}}}},
      {"settings", settings_json(context)},
      {"environment", context.environment},
      {"rss",
       {{"method", record.rss.method},
        {"floor_bytes", record.rss.floor_bytes},
        {"spawn_resolution_seconds", record.rss.spawn_resolution_seconds}}},
      {"elapsed_seconds", record.elapsed_seconds},
      {"reproduce", context.reproduce},
      {"cells", std::move(cells)},
      {"analysis", std::move(analysis)}};
}

} // namespace refbench::report
