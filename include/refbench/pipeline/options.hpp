#pragma once
// What each subcommand is asked to do, as plain values: cli/ fills them from
// the flags, the pipeline takes them. Unset measurement settings fall back
// to refbench.toml's, then to the defaults of config/settings.

#include <refbench/config/settings.hpp>
#include <refbench/formats/output_formats.hpp>
#include <refbench/history/series.hpp>
#include <refbench/model/metrics.hpp>
#include <refbench/process/sandbox.hpp>
#include <refbench/util/enum_names.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// `--color`: when the terminal table is coloured.
enum class ColorMode { automatic, always, never };
inline constexpr auto k_color_mode_names = util::enum_names<ColorMode>(
    {{ColorMode::automatic, "auto"}, {ColorMode::always, "always"}, {ColorMode::never, "never"}});

// What every subcommand takes.
struct CommonOptions {
  bool quiet = false;
  bool verbose = false;
  ColorMode color = ColorMode::automatic;
};

// `refbench run` (docs/manual/commands.md, docs/manual/commands.md#refbench-run): unset measurement
// settings fall back to refbench.toml's [run], then to k_run_defaults.
struct RunOptions {
  std::optional<std::string> config;
  std::string repo = ".";
  std::optional<std::string> baseline;
  std::vector<std::string> candidates; // --candidate, repeatable (docs/manual/commands.md#more-candidates)
  config::MeasurementFlags measure;
  std::string out = "refbench-out";
  std::optional<std::string> workdir;
  bool keep_worktrees = false;
  bool allow_same_commit = false;
  bool github = false;
  bool allow_pull_request_target = false;    // --github on a pull_request_target event
  std::optional<std::string> shard;          // "K/N" (docs/manual/commands.md#shards)
  std::vector<std::string> cells;            // --cells GLOB[,GLOB…]: only the cells matching one
  std::vector<std::string> scrub_env;        // added to run.scrub_env and the credential variables
  std::optional<std::string> history;        // --history DIR (docs/manual/history.md)
  std::optional<model::SandboxMode> sandbox; // --sandbox, over run.sandbox (docs/manual/security.md)
};

// `refbench resolve REF...`.
struct ResolveOptions {
  std::string repo = ".";
  std::vector<std::string> refs;
};

// The most commits a bisect's range may have without --max-commits.
inline constexpr std::size_t k_default_max_commits = 10000;

// `refbench bisect` (docs/manual/bisect.md).
struct BisectOptions {
  RunOptions run = {.out = "refbench-bisect"}; // repo, config, measurement flags, out, workdir, cells, scrub-env
  std::string good;
  std::string bad;
  std::string metric{model::metric_name(model::k_default_gate.front())};
  bool improvement = false;       // bisect an improvement instead of a regression
  bool first_parent_only = false; // stop at the first merge named
  std::optional<std::size_t> max_commits;
  bool github = false; // the job summary and the `culprit` output
};

// `refbench compare BASELINE_CMD CANDIDATE_CMD...`: the measurement
// settings resolve over k_compare_defaults.
struct CompareOptions {
  std::string baseline;
  std::vector<std::string> candidates; // one or more (docs/manual/commands.md#more-candidates)
  // -n/--command-name, as hyperfine's: one per command, baseline first; empty: the commands name themselves
  std::vector<std::string> command_names;
  config::MeasurementFlags measure;
  std::string out = "refbench-out";
  std::string name = "compare";
  bool shell = false;
  std::string metrics = model::metric_list_text(model::k_default_metrics);
  std::string gate = model::metric_list_text(model::k_default_gate);
  std::vector<std::string> scrub_env;        // kept from the commands besides the credential variables
  std::optional<model::SandboxMode> sandbox; // --sandbox (docs/manual/security.md); default auto
  // docs/manual/config.md#hooks, as hyperfine's: run like the commands (words, or /bin/sh -c with --shell); "": none
  std::string setup;
  std::string prepare;
  std::string cleanup;
};

// `analyze --better`: which way the values of CSV and hyperfine files are better.
inline constexpr auto k_better_names = util::enum_names<model::Direction>(
    {{model::Direction::lower_is_better, "lower"}, {model::Direction::higher_is_better, "higher"}});

// `refbench analyze FILE...`: unset settings are the analysed run's, else
// the defaults of config/settings (through config::resolve).
struct AnalyzeOptions {
  std::vector<std::string> files;
  std::optional<double> threshold;
  std::optional<double> alpha;
  model::Direction better = model::Direction::lower_is_better; // of CSV and hyperfine values
  formats::OutputFormat format = formats::OutputFormat::markdown;
  std::optional<analysis::IntervalMethod> interval; // default: the analysed run's, else signed-rank
  config::FailOn fail_on = config::k_default_fail_on;
  std::optional<std::uint64_t> seed; // bootstrap seed (default: the run's, else 0)
};

// `refbench report FILE...`.
struct ReportOptions {
  std::vector<std::string> files;
  formats::OutputFormat format = formats::OutputFormat::markdown;
  config::FailOn fail_on = config::k_default_fail_on;
};

// `refbench comment` (docs/manual/github-actions.md).
struct CommentOptions {
  std::optional<std::uint64_t> pr;
  std::optional<std::string> repo;
  std::string file = "refbench-out/report.md";
  std::string marker;
  std::optional<std::string> cacert;
  std::chrono::nanoseconds max_wait = std::chrono::seconds(120);
  std::optional<std::string> from_artifact;
};

// `refbench history DIR --format`.
enum class HistoryFormat { markdown, json, html };
inline constexpr auto k_history_format_names = util::enum_names<HistoryFormat>(
    {{HistoryFormat::markdown, "markdown"}, {HistoryFormat::json, "json"}, {HistoryFormat::html, "html"}});

// `refbench history DIR` (docs/manual/history.md); the defaults are
// history::SeriesSettings'.
struct HistoryOptions {
  std::string dir;
  HistoryFormat format = HistoryFormat::markdown;
  std::string config;                // empty: none; its [history] window when --window is not given
  std::optional<std::size_t> window; // none: [history] window, else the default
  history::SeriesSettings settings;  // threshold, alpha, permutations, cells, seed
};

} // namespace refbench::pipeline
