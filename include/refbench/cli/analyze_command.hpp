#pragma once
// `refbench analyze FILE...` (README: the commands, Output files): statistics and the verdict table
// from samples made elsewhere or by an earlier run.

#include <refbench/cli/options.hpp>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace refbench::cli {

struct AnalyzeOptions {
  std::vector<std::string> files;
  std::optional<double> threshold; // default: the analysed run's, else config::k_default_threshold
  std::optional<double> alpha;     // default: the analysed run's, else config::k_default_alpha
  std::string better = "lower";
  OutputFormat format = OutputFormat::markdown;
  std::optional<analysis::IntervalMethod> interval; // default: the analysed run's, else signed-rank
  config::FailOn fail_on = config::k_default_fail_on;
  std::optional<std::uint64_t> seed; // bootstrap seed (default: the run's, else 0)
};

// Registers `analyze` and its flags on `app`, bound to `options`.
CLI::App* add_analyze_command(CLI::App& app, AnalyzeOptions& options);

// Analyses the files of `options` and prints the result; returns the exit code.
int run_analyze(const AnalyzeOptions& options, const CommonOptions& common);

} // namespace refbench::cli
