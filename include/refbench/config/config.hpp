#pragma once
// refbench.toml (docs/manual/config.md) read with toml++ into plain settings. Unknown keys
// and wrong types are UsageErrors naming file:line:column; values are
// validated here (durations, sizes, ranges), flags are merged by the caller.

#include <refbench/config/settings.hpp>
#include <refbench/model/record.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/process/sandbox.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace refbench::config {

// A command as written: a string runs with /bin/sh -c, an array is the argv.
struct Command {
  std::string shell;             // set when written as a string
  std::vector<std::string> argv; // set when written as an array
  bool is_shell() const { return argv.empty(); }
};

struct BuildConfig {
  std::optional<Command> command; // none: nothing to build
  std::vector<std::string> env;   // "NAME=value", added to the environment
  std::optional<std::chrono::nanoseconds> timeout;
  bool parallel = false;
  std::optional<std::uint64_t> disk; // bytes a build may need (preflight)
};

// [run]: the same names as the run flags; unset values take the defaults
// of settings.hpp, and `resolve` merges the flags over them.
struct RunConfig {
  std::optional<std::chrono::nanoseconds> budget;
  std::optional<int> max_rounds;
  std::optional<int> min_rounds;
  std::optional<double> precision;
  std::optional<double> threshold;
  std::optional<double> alpha;
  std::optional<int> warmup;
  std::optional<std::chrono::nanoseconds> timeout;
  std::optional<std::uint64_t> seed;
  std::optional<bool> control;
  std::optional<std::string> control_cell;
  std::optional<std::string> isolate;
  std::optional<model::CounterSource> counters; // where instruction counts come from (docs/manual/counters.md)
  std::optional<model::ExplainMode> explain;    // which cells are explained (docs/manual/explanations.md)
  std::vector<std::string> scrub_env;           // more variables (names or globs) kept from commands
  std::optional<int> replicas;                  // byte-identical copies of each arm (default 3)
  std::vector<std::string> replicate;           // globs of the files the copies hold; empty: all
  std::vector<std::string> writable;            // globs of the arms' files the trees' check leaves out
  std::optional<model::SandboxMode> sandbox;    // the commands' box (docs/manual/security.md); default auto
  std::vector<std::string>
      candidates;     // refs of the candidates (docs/manual/commands.md#more-candidates); empty: --candidate
  std::string source; // the file, for messages
  std::map<std::string, std::string> where; // key → "file:line:column" of each key given
};

struct PayloadSize {
  std::string label; // as written, e.g. "32MiB"
  std::uint64_t bytes = 0;
};

struct CellConfig {
  std::string name;
  Command command;
  std::vector<std::string> env;
  std::vector<std::string> metrics;        // default: wall, cpu, rss
  std::vector<std::string> gate;           // default: wall
  std::map<std::string, double> threshold; // per-metric overrides
  bool check_output = false;
  std::vector<model::CustomMetric>
      custom;                      // [[cell.metric]] (docs/manual/config.md#custom-metrics-windows-and-requirements)
  double min_duration_seconds = 0; // 0: no minimum window
  std::string window_key;          // reported window length; "": the wall time
  std::vector<model::Requirement> require; // conditions on reported values
  // cpus = { service = 3, client = "rest" }: a split of the benchmark CPUs,
  // groups in the order written; their lists fill {cpus.NAME} (docs/manual/measurement.md)
  std::vector<process::CpuGroup> cpus;
  std::string where; // "file:line:column" of the [[cell]]
  // docs/manual/config.md#parameter-sweeps: a [[cell]] with params is one CellConfig per
  // combination, named with the values filled in; `sweep` is the name as
  // written, `params` this combination's values ({NAME} in the command and
  // env is filled in by plan_cells)
  std::string sweep;
  std::vector<std::pair<std::string, std::string>> params;
  // docs/manual/config.md#hooks: commands around the measurements, run in each arm's
  // directory with the command's placeholders and environment
  std::optional<Command> setup;
  std::optional<Command> prepare;
  std::optional<Command> cleanup;
  // docs/manual/suites.md: suite = "google-benchmark" and the like, and where its
  // harness writes (from = "file": {output}); its metrics, gate and
  // thresholds name the harness's measures
  std::optional<model::SuiteSpec> suite;
};

// [arms.baseline] / [arms.candidate] (docs/manual/config.md#arm-settings): what one arm adds to
// every cell, so one build can be A/B'd on a flag or a setting.
struct ArmSettings {
  std::vector<std::string> env;  // "NAME=value", over the cell's env (hooks get it too)
  std::vector<std::string> args; // appended to every cell's command (not to hooks)
  bool empty() const { return env.empty() && args.empty(); }
};

struct Config {
  std::string path;
  BuildConfig build;
  RunConfig run;
  std::optional<std::string> history_dir;    // [history] dir (docs/manual/history.md); --history wins
  std::optional<std::size_t> history_window; // [history] window: the creep window's links; 0: the whole chain
  ArmSettings baseline_arm;                  // the A/A control runs this on both of its arms
  ArmSettings candidate_arm;                 // every candidate's
  std::vector<PayloadSize> payload_sizes;
  std::vector<CellConfig> cells;
};

// Reads and validates `path`; throws UsageError "path:line:column: problem".
Config load_config(const std::string& path);

// Parses TOML `text` that came from `source` (a name for messages).
Config parse_config(const std::string& text, const std::string& source);

} // namespace refbench::config
