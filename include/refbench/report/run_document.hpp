#pragma once
// The run document: everything results.json holds (docs/manual/output-files.md),
// typed — how the run was asked for, the machine, every cell and sample,
// the analysis and its warnings. Built by `make_document` from a measured
// record or read back by `document_from_json`, and written only by
// `to_json(RunDocument)` (both in results_json.hpp). The reports render it.

#include <refbench/analysis/analysis.hpp>
#include <refbench/model/explanation.hpp>
#include <refbench/model/isolation.hpp>
#include <refbench/model/machine_facts.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/model/record.hpp>
#include <refbench/model/rss_probe.hpp>
#include <refbench/model/shard.hpp>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::process {
struct IsolationPlan;
}

namespace refbench::report {

// The version of results.json and of the journal header this refbench
// writes; a reader refuses a newer one.
inline constexpr int k_schema_version = 1;

// One side of the comparison: a git ref and its commit (run) or a command (compare).
struct ArmInfo {
  std::string ref;  // the ref as given ("latest-release", "main")
  std::string name; // what a keyword named (the tag of latest-release); "" otherwise
  std::string sha;
  std::string dir; // its worktree
  std::string command;
  std::optional<double> build_seconds;
  // [arms.NAME] of refbench.toml (docs/manual/config.md#arm-settings): "NAME=value" and the
  // words every cell's command gets; empty: none
  std::vector<std::string> env;
  std::vector<std::string> args;
  // What the report calls it: the keyword's tag, else the ref, else the command.
  const std::string& label() const { return !name.empty() ? name : !ref.empty() ? ref : command; }
};

// How the run's processes were placed on CPUs (docs/manual/measurement.md).
struct IsolationInfo {
  struct Split {
    std::string cell;
    std::map<std::string, std::string> groups; // name → CPU list, by name (as results.json orders them)
    std::string unassigned;
  };
  std::string mode; // auto, off, list
  bool pinned = false;
  std::string usable_cpus;
  std::string refbench_cpus;  // "" when refbench was not pinned
  std::string benchmark_cpus; // "" when unpinned
  std::vector<Split> splits;
  std::string warning; // "" when none
};

// The machine the run was measured on.
// The counter a run's counted metrics came from (docs/manual/counters.md):
// "valgrind", what the perf probe answered, the tool's version.
// What counted (environment.counters): `source` the instruction counter
// ("valgrind"), or "interposer" when only allocations were counted;
// `allocations` "interposer" when they were, else "".
inline constexpr std::string_view k_allocation_counter_source = "interposer";
struct CounterInfo {
  std::string source;
  std::string probe;
  std::string version;
  std::string allocations;
};

// The box the benchmarked commands ran in (docs/manual/security.md):
// `mode` "namespaces", "user+namespaces" or "none"; `reason` why none.
struct SandboxInfo {
  std::string mode;
  std::string reason;
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
  std::optional<CounterInfo> counters; // a run with a counted metric
  std::optional<SandboxInfo> sandbox;  // a run that measured through the launcher
};

// The settings a document records. The round settings are absent from an
// `analyze` document; `better` is only in one.
struct RecordedSettings {
  std::optional<double> budget_seconds;
  std::optional<int> max_rounds;
  int min_rounds = model::k_default_min_rounds;
  std::optional<int> warmup;
  std::optional<int> replicas;
  std::vector<model::Metric> metrics = model::default_metrics(); // shown
  std::vector<model::Metric> gate = model::default_gate();       // can fail the run
  double threshold = model::k_default_threshold;
  double alpha = analysis::k_default_alpha;
  std::optional<double> precision;
  analysis::IntervalMethod interval = analysis::IntervalMethod::signed_rank;
  std::optional<analysis::Direction> better; // analyze: the direction of outside values
  std::optional<std::string> counters;       // a measured run: run.counters as asked ("auto", "perf", "valgrind")
  std::optional<std::string> explain;        // a measured run: run.explain ("regressions", "all", "off")
};

// How the run was asked for: what a journal's first line and results.json share.
struct RunHeader {
  std::string command; // "run", "compare" or "analyze"
  std::string tool_version;
  std::uint64_t seed = 0;
  std::string reproduce; // the command line that reproduces the run, seed included
  RecordedSettings settings;
  std::optional<ArmInfo> baseline;
  std::optional<ArmInfo> candidate; // the first candidate when there are several
  // docs/manual/commands.md#more-candidates: every candidate in order, when there are
  // several (a cell's meta.candidate is its label()); empty: one
  std::vector<ArmInfo> candidates;
  std::optional<EnvironmentInfo> environment;
  std::optional<model::RssProbe> rss;        // none: not measured here (analyze of outside data)
  std::optional<model::ShardIdentity> shard; // a `run --shard` (docs/manual/commands.md#shards)
  // docs/manual/config.md#new-and-removed-cells: the baseline config's cells that this
  // run's config lacks (expanded names)
  std::vector<std::string> removed_cells;
};

// A warning of the run, already worded; `facts` holds the numbers behind it
// (a sensitivity warning's family and ratios, a placement warning's replica).
struct DocumentWarning {
  std::string cell;
  std::string message;
  nlohmann::json facts = nlohmann::json::object();
};

// One replica's wall median of one arm of a cell.
struct ReplicaInfo {
  std::string cell;
  std::string arm;
  int replica = 0;
  std::size_t n = 0;
  double median_wall = 0;
};

// One file of a merge of several (`refbench report a.json b.json`).
struct MergedFile {
  std::string file;
  std::optional<model::Shard> shard; // when the files are shards of one run
};

struct RunDocument {
  RunHeader header;
  analysis::RunVerdict verdict = analysis::RunVerdict::inconclusive;
  bool partial = false;                  // interrupted, or a killed run's journal
  std::optional<double> elapsed_seconds; // warm-up + rounds
  std::optional<double> total_seconds;   // the whole command
  std::optional<std::int64_t> harness_peak_rss_bytes;
  model::RunRecord record; // cells and samples; empty for outside data
  std::vector<analysis::MetricResult> results;
  std::vector<DocumentWarning> warnings;
  std::vector<ReplicaInfo> replicas;            // empty: one replica per arm
  std::vector<MergedFile> merged;               // empty: one file
  std::vector<std::string> inputs;              // analyze: the files analysed
  std::string config;                           // run: the config file
  nlohmann::json payloads;                      // run: the payload files made (null: none)
  bool from_journal = false;                    // read back from a journal: not analysed
  std::vector<model::Explanation> explanations; // where the changes came from (docs/manual/explanations.md)
};

// Which shards a document covers: the one shard's index, or the merged
// shards' indices ascending, with the count N.
struct ShardsInfo {
  std::vector<std::size_t> indices;
  std::size_t count = 0;
  bool merged = false;
};

// The shards `document` covers; nullopt when it is not sharded.
std::optional<ShardsInfo> shards_of(const RunDocument& document);

// The shards 1..N a merge of shards lacks; empty when complete or unsharded.
std::vector<std::size_t> missing_shards(const RunDocument& document);

// The analysis settings `header` records: its threshold, alpha, min rounds,
// interval and seed, with 95 % intervals.
analysis::Settings analysis_settings(const RunHeader& header);

// Why the verdicts stored in `document` (read from a file) do not follow
// from the rows it holds, or nullopt when they do: a row whose verdict the
// rules (analysis::decide_result) do not give for its own interval, p
// values, floor and n, or a run verdict other than the rows' — where only
// the more cautious answer is accepted when the file cannot tell (an
// INCONCLUSIVE row of unknown interval confidence; an inconclusive run that
// its rows alone would pass, as a merge with a shard missing is).
std::optional<std::string> verdict_disagreement(const RunDocument& document);

// The document of `record` measured as `header` says, with its analysis
// `results`: the run verdict, the sensitivity, RSS-floor and placement
// warnings, and the replicas' medians.
RunDocument make_document(const RunHeader& header, model::RunRecord record,
                          std::vector<analysis::MetricResult> results);

// What a run records of its machine: `facts` (kernel, CPU model, CPUs,
// threads per core, governor, which the caller read with
// process::machine_facts) and, when given, the run's CPU `isolation`.
EnvironmentInfo environment_info(const model::MachineFacts& facts, const model::IsolationPlan* isolation = nullptr);

// Whether `result` is a gated metric, or the A/A control's row of a metric
// that is gated in another cell of `results` (the floor of that metric).
bool gated_row(const analysis::MetricResult& result, const std::vector<analysis::MetricResult>& results);

} // namespace refbench::report
