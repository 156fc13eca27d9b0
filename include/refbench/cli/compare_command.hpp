#pragma once
// `refbench compare BASELINE_CMD CANDIDATE_CMD...` (README: the commands): options as parsed
// from the command line, validated into a run, and the run itself.

#include <refbench/cli/options.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/runner/metrics.hpp>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refbench::cli {

// The flags exactly as given; the measurement flags resolve over the
// defaults of config/settings (k_compare_defaults).
struct CompareOptions {
  std::string baseline;
  std::vector<std::string> candidates; // one or more (README: More candidates)
  // -n/--command-name, as hyperfine's: one per command, baseline first; empty: the commands name themselves
  std::vector<std::string> command_names;
  config::MeasurementFlags measure;
  std::string out = "refbench-out";
  std::string name = "compare";
  bool shell = false;
  std::string metrics = runner::metric_list_text(runner::k_default_metrics);
  std::string gate = runner::metric_list_text(runner::k_default_gate);
  std::vector<std::string> scrub_env; // kept from the commands besides the credential variables
  // README: Hooks, as hyperfine's: run like the commands (words, or /bin/sh -c with --shell); "": none
  std::string setup;
  std::string prepare;
  std::string cleanup;
};

// Registers the `compare` subcommand and its flags on `app`, bound to `options`.
CLI::App* add_compare_command(CLI::App& app, CompareOptions& options);

// Runs the comparison described by `options`; returns the exit code or
// throws a refbench::Error.
int run_compare(const CompareOptions& options, const CommonOptions& common);

} // namespace refbench::cli
