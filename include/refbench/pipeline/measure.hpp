#pragma once
// The one pipeline behind `run` and `compare`, from planned cells to the
// exit code: journal header → interleaved rounds through an injected
// executor → analysis → results.json, report.md, report.csv → the verdict
// table and summary on stdout → the exit code (docs/manual/commands.md#exit-codes). The
// commands only plan (refs, builds, replicas, cells) and say where things go.

#include <refbench/config/settings.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/process/counters.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/process/executor.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/sandbox.hpp>
#include <refbench/runner/rounds.hpp>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// What to measure and how, as `run` or `compare` planned it.
struct MeasurementPlan {
  std::vector<model::CellSpec> cells; // the A/A control included when it is a named cell's
  // The one copy of the settings: the rounds', the analysis', --fail-on's
  // and what results.json records of them (recorded_settings).
  config::MeasurementSettings settings;
  std::vector<model::Metric> metrics = model::default_metrics(); // shown
  std::vector<model::Metric> gate = model::default_gate();       // can fail the run
  std::string output_dir;                                        // where the cells' {output} files go; "": none
  int replicas = 1;                                              // the copies of each arm the rounds draw from
  bool auto_control = false; // the runner picks the A/A control cell (none of the cells is it)
  // How the run was asked for: command, reproduce line, arms, environment,
  // shard; measure_and_report fills in its settings from the above.
  report::RunHeader header;
  std::filesystem::path out;        // results.json, report.md, report.csv go here
  std::string could_not_start_hint; // what to check when a command cannot be started (exit 3)
  bool cell_in_refusal = true;      // that message names the cell (`compare` has only the one)
  std::string config;               // run: the config file, recorded in results.json
  nlohmann::json payloads;          // run: the payload files made, recorded in results.json
  // The confidence of the intervals precision stopping looks at; none: the
  // analysis' (95 %). A bisect step stops on its own, higher confidence.
  std::optional<double> stop_confidence;
  // The counter of the cells that show a counted metric (plan_counts); none: no cell does.
  std::optional<model::CounterTool> counter;
  // What explanations count under (plan_explanations); none: `explain_missing` says why.
  std::optional<model::CounterTool> explain_tool;
  std::string explain_missing;
  // Counts reused across runs of the same builds (RoundHooks::count_memo): bisect's steps.
  runner::CountMemo* count_memo = nullptr;
  std::function<std::string(const model::CellSpec& cell, model::Arm arm)> count_key;

  // settings.rounds() with the output directory, replicas, auto control
  // and the counter (its counts under out/counts).
  model::RoundSettings rounds() const;
};

// Marks the cells of `plan` that show a counted metric (docs/manual/counters.md)
// and finds the counter settings.counters asks for, recording it in the
// header's environment; throws UsageError saying what to install when
// there is none. Nothing changes when no cell shows a counted metric.
void plan_counts(MeasurementPlan& plan, const std::function<process::PerfProbe()>& probe, std::string_view path);
// plan_counts with this machine's perf probe and refbench's PATH.
void plan_counts(MeasurementPlan& plan);

// The counter `settings.counters` asks for on this machine, or UsageError
// (what to install) naming where the setting came from: what plan_counts
// finds, asked before anything is built.
model::CounterTool counter_here(const config::MeasurementSettings& settings,
                                const std::function<process::PerfProbe()>& probe = process::perf_probe,
                                std::string_view path = {});

// What results.json records of `plan`'s settings, metrics and gate.
report::RecordedSettings recorded_settings(const MeasurementPlan& plan);

// Where the run's side effects go besides --out.
struct Sinks {
  CommonOptions common;
  std::ostream* out = nullptr;        // the verdict table and summary
  std::ostream* err = nullptr;        // progress, warnings, failures
  int err_fd = -1;                    // for the progress mode (a terminal or not); -1: plain
  runner::PlacementHook place;        // moves the replicas' links before each round; empty: none
  runner::TreeCheck check_trees;      // what changed in the arms' trees after each round; empty: not checked
  runner::LinkCheck check_links;      // whether the {arm} links moved, before each invocation; empty: not checked
  std::function<void()> after_rounds; // cleanup once the rounds are over; empty: none
  // Adds to the run's document before its files are written (a pull
  // request's place in the history); empty: nothing.
  std::function<void(report::RunDocument&)> amend;
  // Called with the run's document once its files are written (--github); empty: none.
  std::function<void(const report::RunDocument&)> publish;
  runner::Clock clock = runner::monotonic_now;
  double started = 0; // when the command started, on `clock`
};

// Journals, measures, analyses, writes and prints `plan` with `executor`,
// whose RSS probe goes into `journal`'s header; returns the exit code.
// Throws InterruptedError after writing the partial results of an
// interrupted run, RefusedError (with the plan's hint) when a command could
// not be started.
int measure_and_report(const MeasurementPlan& plan, process::Executor& executor, formats::JournalWriter& journal,
                       const Sinks& sinks);

// What `run` and `bisect` measure on and print to: the launcher and this
// process's stdout and stderr (launcher_bench), or in tests an executor
// that never spawns and streams of their own.
struct Bench {
  process::Executor& executor;
  pid_t keep = -1; // the process the builds' leftovers are not reaped from (the launcher); -1: none
  std::function<bool(const model::CpuList&)> pin; // pins every benchmarked process; empty: it cannot
  // puts every benchmarked process from now on in the box (docs/manual/security.md); empty: there is none
  std::function<process::SandboxState(const process::BoxPaths&)> box;
  std::ostream* out = &std::cout; // the verdict table and summary
  std::ostream* err = &std::cerr; // progress of the rounds
  int err_fd = 2;                 // -1: plain progress
};

// The bench of `launcher`: it runs, and is pinned, in its own process.
Bench launcher_bench(process::Launcher& launcher);

// The sinks of a measurement on `bench` under `common`.
Sinks sinks_of(const Bench& bench, const CommonOptions& common);

// Pins `bench` (so every benchmarked process) to `plan`'s benchmark CPUs
// and refbench to its own, just before measuring, and prints the plan's
// warning once (unless `quiet`). When the kernel refuses, `plan` becomes
// unpinned with a warning saying so.
void apply_isolation(model::IsolationPlan& plan, const Bench& bench, bool quiet);

// Checks the `--scrub-env` / run.scrub_env entries `names`; throws a
// UsageError naming `flag` for an empty entry or one with '=' or a NUL.
void validate_scrub_names(const std::string& flag, const std::vector<std::string>& names);

} // namespace refbench::pipeline
