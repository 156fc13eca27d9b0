#pragma once
// A typed view of a results.json document (README: Output files), for the reports that
// are rendered from it. Every key is optional: a document from `analyze` of
// a CSV has no arms, environment or cells.

#include <refbench/analysis/analysis.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace refbench::report {

// One side of the comparison: a git ref and its commit (run) or a command (compare).
struct ArmInfo {
  std::string ref;
  std::string sha;
  std::string command;
  std::optional<double> build_seconds;
};

// The machine the run was measured on.
// How the run's processes were placed on CPUs (README: What is measured isolate).
struct IsolationInfo {
  struct Split {
    std::string cell;
    std::vector<std::pair<std::string, std::string>> groups; // name, CPU list
    std::string unassigned;
  };
  std::string mode; // auto, off, list
  bool pinned = false;
  std::string refbench_cpus;  // "" when refbench was not pinned
  std::string benchmark_cpus; // "" when unpinned
  std::vector<Split> splits;
  std::string warning; // "" when none
};

struct EnvironmentInfo {
  std::string kernel;
  std::string machine;
  std::string cpu_model;
  std::optional<int> cpus; // logical CPUs
  std::optional<int> cores;
  std::optional<int> threads_per_core;
  std::string governor; // empty when not recorded
  std::optional<IsolationInfo> isolation;
};

// How peak RSS was measured and the floor every reading includes.
struct RssInfo {
  std::string method;
  std::optional<double> floor_bytes;
  std::optional<double> spawn_resolution_seconds;
};

// The first failed invocation of a cell; `round` 0 is the warm-up.
struct FailureInfo {
  std::string arm;
  int round = 0;
  std::string description;
  std::string stderr_tail;
};

struct CellInfo {
  std::string name;
  bool control = false;
  std::string stop_reason; // as written: "precision", "max-rounds", "budget", …
  int rounds = 0;
  std::optional<FailureInfo> failure;
};

struct SettingsInfo {
  std::optional<double> budget_seconds;
  std::optional<int> max_rounds;
  std::optional<int> min_rounds;
  double threshold = analysis::k_default_threshold;
  std::optional<double> alpha;
  std::optional<double> precision;
  std::string interval;
  std::vector<std::string> metrics;
  std::vector<std::string> gate;
};

// A sensitivity warning of README: Statistics, already worded.
struct SensitivityWarning {
  std::string cell;
  std::string message;
};

// Which shards of a `run --shard` (README: run --shard) a document covers.
struct ShardsInfo {
  std::vector<std::size_t> indices; // 1-based, ascending
  std::size_t count = 0;            // N of K/N
  bool merged = false;              // several shards merged by `refbench report`
};

// One replica's wall median of one arm of a cell (results.json `replicas`).
struct ReplicaInfo {
  std::string cell;
  std::string arm;
  int replica = 0;
  std::size_t n = 0;
  double median_wall = 0;
};

struct ReportModel {
  std::string command; // "run", "compare", "analyze" or empty
  analysis::RunVerdict verdict = analysis::RunVerdict::inconclusive;
  bool partial = false;
  std::optional<std::uint64_t> seed;
  std::string reproduce;
  std::optional<double> elapsed_seconds; // warm-up + rounds
  std::optional<double> total_seconds;   // the whole command
  SettingsInfo settings;
  std::optional<ArmInfo> baseline;
  std::optional<ArmInfo> candidate;
  std::optional<EnvironmentInfo> environment;
  std::optional<RssInfo> rss;
  std::vector<CellInfo> cells;
  std::vector<analysis::MetricResult> results;
  std::vector<SensitivityWarning> warnings;
  std::vector<ReplicaInfo> replicas; // empty: one replica per arm
  std::optional<ShardsInfo> shards;  // none: not sharded
};

// The inverse of `to_json(MetricResult)`: null numbers become NaN (or
// nullopt), a missing "unit" falls back on the metric name, an unknown
// verdict reads as INCONCLUSIVE.
analysis::MetricResult metric_result_from_json(const nlohmann::json& entry);

// Whether `result` is a gated metric, or the A/A control's row of a metric
// that is gated in another cell of `results` (the floor of that metric).
bool gated_row(const analysis::MetricResult& result, const std::vector<analysis::MetricResult>& results);

// Reads `document` (a results.json); missing or mistyped keys are left at
// their defaults, and a missing verdict is derived from the analysis.
ReportModel read_model(const nlohmann::json& document);

} // namespace refbench::report
