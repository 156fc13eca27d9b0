#include <refbench/report/results_json.hpp>
#include <refbench/runner/journal.hpp>
#include <refbench/version.hpp>

#include <algorithm>
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
          {"metrics", names(context.metrics)},  {"gate", names(context.gated)}};
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

} // namespace

std::string overall_verdict(const runner::RunRecord& record) {
  bool failed =
      std::any_of(record.cells.begin(), record.cells.end(), [](const auto& cell) { return cell.failure.has_value(); });
  // Until the statistics decide per cell, a run without errors is not a pass.
  return failed ? "error" : "inconclusive";
}

nlohmann::json environment_json() {
  utsname names{};
  ::uname(&names);
  return {{"kernel", std::string(names.sysname) + " " + names.release},
          {"machine", names.machine},
          {"cpu_model", cpu_model()},
          {"cpus", std::thread::hardware_concurrency()}};
}

nlohmann::json journal_header(const RunContext& context, const process::RssProbe& rss, std::uint64_t seed) {
  return {{"type", "header"},
          {"schema_version", 1},
          {"tool", {{"name", "refbench"}, {"version", k_version}}},
          {"command", context.command},
          {"seed", seed},
          {"baseline", context.baseline_label},
          {"candidate", context.candidate_label},
          {"settings", settings_json(context)},
          {"rss", {{"method", rss.method}, {"floor_bytes", rss.floor_bytes}}},
          {"environment", context.environment},
          {"reproduce", context.reproduce}};
}

nlohmann::json results_json(const runner::RunRecord& record, const RunContext& context,
                            const std::vector<MedianRow>& rows) {
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
  nlohmann::json medians = nlohmann::json::array();
  for (const auto& row : rows) {
    medians.push_back({{"cell", row.cell},
                       {"metric", runner::metric_name(row.metric)},
                       {"n", row.pairs},
                       {"baseline_median", row.baseline_median},
                       {"candidate_median", row.candidate_median},
                       {"ratio_of_medians", row.pairs > 0 ? nlohmann::json(row.ratio) : nlohmann::json(nullptr)},
                       {"censored", row.censored}});
  }
  return {
      {"schema_version", 1},
      {"tool", {{"name", "refbench"}, {"version", k_version}}},
      {"command", context.command},
      {"seed", record.seed},
      {"verdict", overall_verdict(record)},
      {"partial", record.interrupted_by != 0},
      {"arms",
       {{"baseline", {{"command", context.baseline_label}}}, {"candidate", {{"command", context.candidate_label}}}}},
      {"settings", settings_json(context)},
      {"environment", context.environment},
      {"rss", {{"method", record.rss.method}, {"floor_bytes", record.rss.floor_bytes}}},
      {"elapsed_seconds", record.elapsed_seconds},
      {"reproduce", context.reproduce},
      {"cells", std::move(cells)},
      {"medians", std::move(medians)}};
}

} // namespace refbench::report
