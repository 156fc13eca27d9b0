#pragma once
// results.json (README: Output files): everything about a run, every sample included.

#include <refbench/analysis/analysis.hpp>
#include <refbench/analysis/sensitivity.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/runner/pairs.hpp>
#include <refbench/runner/record.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refbench::report {

// What the record does not know: how the run was asked for.
struct RunContext {
  std::string command;        // "compare" or "run"
  std::string reproduce;      // the command line that reproduces the run, seed included
  std::string baseline_label; // the baseline command or ref
  std::string candidate_label;
  runner::RoundSettings settings;
  std::vector<runner::Metric> metrics; // shown metrics
  std::vector<runner::Metric> gated;   // metrics that can fail the run
  double threshold = analysis::k_default_threshold;
  double alpha = 0.05;
  double precision = 0.02;
  std::string interval = "signed-rank"; // or "bootstrap"
  nlohmann::json environment;           // machine facts
  // {"baseline": {...}, "candidate": {...}}: {"ref", "sha", "dir",
  // "build_seconds"} for run; null: {"command": label} for each arm
  nlohmann::json arms;
  // `runner::to_json(ShardIdentity)` of a `run --shard` (README: run --shard); null: not a shard
  nlohmann::json shard;
};

// The context a journal header or a results.json document records (the
// inverse of what journal_header / results_json write).
RunContext context_from_json(const nlohmann::json& header);

// The analysis settings `context` records: its threshold, alpha, min rounds,
// interval and seed, with 95 % intervals.
analysis::Settings analysis_settings(const RunContext& context);

// One `analysis` entry of results.json (README: Output files); NaN becomes null.
nlohmann::json to_json(const analysis::MetricResult& result);

// The `cells` array of results.json: every cell with its stop reason,
// failure and every sample.
nlohmann::json cells_json(const runner::RunRecord& record);

// The results.json document for `record` and its analysis `results`,
// with the sensitivity warnings of its payload families (README: Statistics).
nlohmann::json results_json(const runner::RunRecord& record, const RunContext& context,
                            const std::vector<analysis::MetricResult>& results);

// The journal's first line for a run described by `context` with `cells`
// (their names and which is the A/A control, so a killed run reads back).
nlohmann::json journal_header(const RunContext& context, const std::vector<runner::CellSpec>& cells,
                              const process::RssProbe& rss, std::uint64_t seed);

// Machine facts recorded with every run: kernel, CPU model, CPUs, threads
// per core, governor; and, when given, the run's CPU `isolation` under "isolation".
nlohmann::json environment_json(const process::IsolationPlan* isolation = nullptr);

// environment.isolation of results.json: {mode, pinned, usable_cpus,
// refbench_cpus, benchmark_cpus, splits [{cell, groups {name: list},
// unassigned}], warning (null when none)}; CPU lists as text like "2-15".
nlohmann::json isolation_json(const process::IsolationPlan& plan);

// The `warnings` array of results.json.
nlohmann::json warnings_json(const std::vector<analysis::SensitivityWarning>& warnings);

} // namespace refbench::report
