#pragma once
// Helpers shared by the subcommands: flag values, the environment handed to
// commands, failure messages, and the exit code of a verdict.

#include <refbench/analysis/analysis.hpp>
#include <refbench/cli/compare_command.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/runner/record.hpp>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refbench::cli {

// Adds `--fail-on regression|inconclusive|never` to `command`, bound to `fail_on`.
void add_fail_on_option(CLI::App& command, std::string& fail_on);

// Adds `--format markdown|json|csv` to `command`, bound to `format`.
void add_format_option(CLI::App& command, std::string& format);

// CLI11 check of a --seed value: "" when `text` is a seed, else why not
// (CLI11 alone reads "-1" and values past 2^64-1 as 2^64-1).
std::string check_seed(const std::string& text);

// Parses the duration `text` of `flag`; throws UsageError naming the flag
// when it is malformed or not above zero.
std::chrono::nanoseconds duration_flag(const std::string& flag, const std::string& text);

// The content of the input file `path`; throws UsageError when it cannot
// be read.
std::string read_input_file(const std::string& path);

// Writes `document` into `out` as results.json, report.md and report.csv,
// each atomically; throws MeasurementError naming the file (and saying so
// when the disk is full) when one cannot be written.
void write_outputs(const std::filesystem::path& out, const nlohmann::json& document);

// Prints the Markdown report of `document` to stdout; with -q only its
// verdict table (coloured on a terminal, as `--color` says).
void print_markdown(const nlohmann::json& document, const CommonOptions& common);

// `csv` as it may be printed to a terminal or a CI log: control characters
// of names shown as text, no line read as a workflow command.
std::string printable_csv(const std::string& csv);

// Prints the sensitivity warnings of `document` to stderr, one
// "refbench: warning: …" line each.
void print_warnings(const nlohmann::json& document);

// Pins `launcher` (so every benchmarked process) to `plan`'s benchmark CPUs
// and refbench to its own, just before measuring, and prints the plan's
// warning once (unless `quiet`). When the kernel refuses, `plan` becomes
// unpinned with a warning saying so.
void apply_isolation(process::IsolationPlan& plan, process::Launcher& launcher, bool quiet);

// Checks the `--scrub-env` / run.scrub_env entries `names`; throws a
// UsageError naming `flag` for an empty entry or one with '=' or a NUL.
void validate_scrub_names(const std::string& flag, const std::vector<std::string>& names);

// Prints one "refbench: error: cell …" line per failed cell of `record`,
// followed by the last lines of its stderr.
void print_failures(const runner::RunRecord& record);

// The shortest measurement budget accepted: a round of whole-process
// invocations on both arms and the control does not fit in less.
inline constexpr double k_min_budget_seconds = 1.0;

// Checks the measurement settings shared by `compare` and `run`; throws a
// UsageError naming the flag for the first bad value.
void validate_settings(const runner::RoundSettings& rounds, double threshold, double alpha, double precision);

// The analysis settings of a run: 95 % intervals of `interval`
// ("signed-rank" or "bootstrap") seeded by `seed`.
analysis::Settings analysis_settings(double threshold, double alpha, int min_rounds, const std::string& interval,
                                     std::uint64_t seed);

// README: Exit codes for a run's `verdict` word under `--fail-on` `fail_on`:
// error → 4, regression → 1 (unless never), inconclusive → 1 only with
// `inconclusive`, else 0.
int exit_code_for(const std::string& verdict, const std::string& fail_on);

} // namespace refbench::cli
