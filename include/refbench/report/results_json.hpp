#pragma once
// results.json (SPEC §5): everything about a run, every sample included.

#include <refbench/analysis/analysis.hpp>
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
  double threshold = 1.15;
  double alpha = 0.05;
  double precision = 0.02;
  std::string interval = "signed-rank"; // or "bootstrap"
  nlohmann::json environment;           // machine facts
};

// One `analysis` entry of results.json (SPEC §5); NaN becomes null.
nlohmann::json to_json(const analysis::MetricResult& result);

// The `cells` array of results.json: every cell with its stop reason,
// failure and every sample.
nlohmann::json cells_json(const runner::RunRecord& record);

// The results.json document for `record` and its analysis `results`.
nlohmann::json results_json(const runner::RunRecord& record, const RunContext& context,
                            const std::vector<analysis::MetricResult>& results);

// The journal's first line for a run described by `context`.
// The journal's first line for a run described by `context` with `cells`
// (their names and which is the A/A control, so a killed run reads back).
nlohmann::json journal_header(const RunContext& context, const std::vector<runner::CellSpec>& cells,
                              const process::RssProbe& rss, std::uint64_t seed);

// Machine facts recorded with every run: kernel, CPU model, cores.
nlohmann::json environment_json();

} // namespace refbench::report
