#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/placement_effects.hpp>
#include <refbench/analysis/sensitivity.hpp>
#include <refbench/model/isolation.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/report/units.hpp>
#include <refbench/util/strings.hpp>
#include <refbench/version.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string_view>

namespace refbench::report {
namespace {

// A warning when the launcher's RSS floor, read with each invocation, rose
// during the run beyond its drift (twice the censoring margin) above the
// lowest of the same cell and arm (the code a spawn pages back in differs
// between commands, a captured stdout's from a plain one): the rss readings
// from then on include it (and sit at it, censored).
std::optional<DocumentWarning> floor_warning(const model::RunRecord& record) {
  std::map<std::pair<std::size_t, model::Arm>, std::int64_t> lowest_of;
  for (const auto& sample : record.samples) {
    const std::int64_t floor = sample.outcome.rss_floor_bytes;
    std::int64_t& lowest = lowest_of[{sample.cell, sample.arm}];
    if (floor > 0 && (lowest == 0 || floor < lowest)) {
      lowest = floor;
    } else if (lowest > 0 && floor > lowest + model::k_rss_floor_drift) {
      const auto& cell = record.cells.at(sample.cell);
      return DocumentWarning{
          cell.name, fmt::format("the launcher's RSS floor rose from {} to {} while running the {} command of {} "
                                 "in round {}: rss readings from then on include it",
                                 format_bytes(static_cast<double>(lowest)), format_bytes(static_cast<double>(floor)),
                                 model::arm_label(cell, sample.arm), cell.name, sample.round)};
    }
  }
  return std::nullopt;
}

// A warning when cells stopped at max_rounds with an INCONCLUSIVE gated
// metric while more than half the budget was left: more rounds would have
// fitted. It names the max_rounds the budget allows at this run's pace.
std::optional<DocumentWarning> max_rounds_warning(const RecordedSettings& settings, const model::RunRecord& record,
                                                  const std::vector<analysis::MetricResult>& results) {
  if (!settings.budget_seconds || !settings.max_rounds || *settings.max_rounds <= 0 || !(record.elapsed_seconds > 0) ||
      record.elapsed_seconds * 2 >= *settings.budget_seconds) {
    return std::nullopt;
  }
  std::set<std::pair<std::string_view, std::string_view>> inconclusive; // cell, candidate: one look per cell
  for (const auto& r : results) {
    if (r.gated && r.verdict == stats::Verdict::inconclusive) {
      inconclusive.emplace(r.cell, r.candidate);
    }
  }
  std::string names;
  for (const auto& cell : record.cells) {
    if (!cell.control && cell.stop == model::StopReason::max_rounds &&
        inconclusive.contains({cell.name, cell.meta.candidate})) {
      names += (names.empty() ? "" : ", ") + model::cell_title(cell);
    }
  }
  if (names.empty()) {
    return std::nullopt;
  }
  const int max_rounds = *settings.max_rounds;
  const auto allowed = static_cast<int>(std::min(1e6, max_rounds * *settings.budget_seconds / record.elapsed_seconds));
  return DocumentWarning{"",
                         fmt::format("max_rounds = {} stopped {} with INCONCLUSIVE gated metrics after {} of the {} "
                                     "budget: at this pace the budget allows max_rounds = {}",
                                     max_rounds, names, format_duration(record.elapsed_seconds),
                                     format_duration(*settings.budget_seconds), allowed),
                         {{"max_rounds", max_rounds},
                          {"allowed_max_rounds", allowed},
                          {"elapsed_seconds", record.elapsed_seconds},
                          {"budget_seconds", *settings.budget_seconds}}};
}

// The run's warnings: payload-family sensitivity, the RSS floor, placement,
// rounds the budget had room for.
// When every cell is NEW (docs/manual/config.md#new-and-removed-cells):
// nothing was compared, and the usual cause and way out.
std::optional<DocumentWarning> nothing_compared_warning(const std::vector<analysis::MetricResult>& results) {
  if (!analysis::every_cell_new(results)) {
    return std::nullopt;
  }
  return DocumentWarning{"",
                         "every cell is NEW, so nothing was compared: the baseline commit's copy of the config names "
                         "none of these cells (it has no copy, or the cells were renamed); to compare every cell, "
                         "pass -c with a copy of the config outside the repository",
                         {}};
}

std::vector<DocumentWarning> run_warnings(const RecordedSettings& settings, const model::RunRecord& record,
                                          const std::vector<analysis::MetricResult>& results) {
  std::vector<DocumentWarning> warnings;
  for (const auto& w : analysis::sensitivity_warnings(analysis::family_points(record, results))) {
    warnings.push_back({w.cell,
                        w.message,
                        {{"family", w.family},
                         {"fixed_share", w.fixed_share},
                         {"max_ratio", w.max_ratio},
                         {"threshold", w.threshold}}});
  }
  if (auto warning = floor_warning(record)) {
    warnings.push_back(std::move(*warning));
  }
  for (const auto& w : analysis::placement_warnings(record, results)) {
    warnings.push_back({w.cell,
                        w.message,
                        {{"arm", w.arm}, {"replica", w.replica}, {"ratio", w.ratio}, {"noise_floor", w.noise_floor}}});
  }
  if (auto warning = max_rounds_warning(settings, record, results)) {
    warnings.push_back(std::move(*warning));
  }
  if (auto warning = nothing_compared_warning(results)) {
    warnings.push_back(std::move(*warning));
  }
  return warnings;
}

IsolationInfo isolation_info(const model::IsolationPlan& plan) {
  IsolationInfo info{std::string(model::isolation_mode_name(plan.mode)),
                     plan.pinned,
                     model::format_cpu_list(plan.usable),
                     model::format_cpu_list(plan.refbench),
                     model::format_cpu_list(plan.benchmark),
                     {},
                     plan.warning};
  for (const auto& split : plan.splits) {
    IsolationInfo::Split s{split.owner, {}, model::format_cpu_list(split.unassigned)};
    for (const auto& [name, cpus] : split.groups) {
      s.groups.emplace(name, model::format_cpu_list(cpus));
    }
    info.splits.push_back(std::move(s));
  }
  return info;
}

} // namespace

std::optional<ShardsInfo> shards_of(const RunDocument& document) {
  ShardsInfo info;
  if (document.header.shard && document.merged.empty()) {
    info.indices = {document.header.shard->shard.index};
    info.count = document.header.shard->shard.count;
    return info;
  }
  info.merged = true;
  for (const auto& file : document.merged) {
    if (!file.shard) {
      return std::nullopt;
    }
    info.indices.push_back(file.shard->index);
    info.count = file.shard->count;
  }
  if (info.indices.empty()) {
    return std::nullopt;
  }
  std::sort(info.indices.begin(), info.indices.end());
  return info;
}

std::vector<std::size_t> missing_shards(const RunDocument& document) {
  std::vector<std::size_t> missing;
  const auto shards = shards_of(document);
  if (!shards || !shards->merged) {
    return missing;
  }
  for (std::size_t index = 1; index <= shards->count; ++index) {
    if (!std::binary_search(shards->indices.begin(), shards->indices.end(), index)) {
      missing.push_back(index);
    }
  }
  return missing;
}

analysis::Settings analysis_settings(const RunHeader& header) {
  const auto& s = header.settings;
  return analysis::settings_for(s.threshold, s.alpha, s.min_rounds, s.interval, header.seed);
}

std::optional<std::string> verdict_disagreement(const RunDocument& document) {
  const auto settings = analysis_settings(document.header);
  for (const auto& r : document.results) {
    auto computed = analysis::decide_result(r, settings);
    if (computed != r.verdict && r.verdict == stats::Verdict::inconclusive) {
      auto unsure = r; // files of older versions do not say whether the interval reached its confidence
      unsure.interval_reaches_confidence = !r.interval_reaches_confidence;
      computed = analysis::decide_result(unsure, settings) == r.verdict ? r.verdict : computed;
    }
    if (computed != r.verdict) {
      return fmt::format("{} {} is stored as {}, but its interval [{}, {}] and p give {}",
                         util::printable(model::cell_title(r.cell, r.candidate)), util::printable(r.metric),
                         stats::verdict_name(r.verdict), r.ci_low, r.ci_high, stats::verdict_name(computed));
    }
  }
  const auto rows = analysis::overall_verdict(document.results);
  const bool cautious = rows == analysis::RunVerdict::pass && document.verdict == analysis::RunVerdict::inconclusive;
  if (rows != document.verdict && !cautious) {
    return fmt::format("the run's verdict is stored as \"{}\", but its rows give \"{}\"",
                       analysis::run_verdict_name(document.verdict), analysis::run_verdict_name(rows));
  }
  return std::nullopt;
}

RunDocument make_document(const RunHeader& header, model::RunRecord record,
                          std::vector<analysis::MetricResult> results) {
  RunDocument d;
  d.header = header;
  d.header.seed = record.seed;
  d.header.rss = record.rss;
  if (d.header.tool_version.empty()) {
    d.header.tool_version = k_version;
  }
  d.verdict = analysis::overall_verdict(results);
  d.partial = record.interrupted_by != 0;
  d.elapsed_seconds = record.elapsed_seconds;
  d.warnings = run_warnings(header.settings, record, results);
  for (const auto& m : analysis::replica_medians(record)) {
    d.replicas.push_back({m.cell, m.arm, m.replica, m.n, m.median_seconds});
  }
  d.record = std::move(record);
  d.results = std::move(results);
  return d;
}

EnvironmentInfo environment_info(const model::MachineFacts& facts, const model::IsolationPlan* isolation) {
  EnvironmentInfo env{facts.kernel, facts.machine, facts.cpu_model, static_cast<int>(facts.cpus),
                      std::nullopt, std::nullopt,  facts.governor,  std::nullopt};
  if (facts.threads_per_core > 0) {
    env.threads_per_core = static_cast<int>(facts.threads_per_core);
    env.cores = static_cast<int>(facts.cpus / facts.threads_per_core);
  }
  if (isolation != nullptr) {
    env.isolation = isolation_info(*isolation);
  }
  return env;
}

bool gated_row(const analysis::MetricResult& result, const std::vector<analysis::MetricResult>& results) {
  return result.gated ||
         (result.control && std::any_of(results.begin(), results.end(), [&](const analysis::MetricResult& other) {
            return other.gated && !other.control && other.metric == result.metric;
          }));
}

} // namespace refbench::report
