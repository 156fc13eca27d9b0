#pragma once
// `refbench report FILE...` (README: the commands, Output files): re-renders a results.json, or the
// journal.jsonl of a killed run (marked partial), as Markdown, JSON or CSV;
// several files are shards of one run, merged with BH across all cells.

#include <refbench/cli/options.hpp>

#include <refbench/report/run_document.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refbench::cli {

struct ReportOptions {
  std::vector<std::string> files;
  OutputFormat format = OutputFormat::markdown;
  config::FailOn fail_on = config::k_default_fail_on;
};

// The document of `runs` (read from `files`) analysed again
// with the first run's settings: one journal (a killed run) or several
// shards, whose cells keep their own A/A control (one analysis group per
// file) and share one Benjamini–Hochberg family. Shards of different
// runs (README: run --shard: refs, config, seed, shard count), the same shard or cell
// twice, or another threshold/alpha are a UsageError naming both files.
report::RunDocument analysed_document(const std::vector<report::RunDocument>& runs,
                                      const std::vector<std::string>& files);

// Registers `report` and its flags on `app`, bound to `options`.
CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

// Renders the files of `options` to stdout; returns the exit code of the
// verdict (README: Exit codes) under `--fail-on`.
int run_report(const ReportOptions& options, const CommonOptions& common);

} // namespace refbench::cli
