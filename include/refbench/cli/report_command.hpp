#pragma once
// `refbench report FILE...` (SPEC §1, §5): re-renders a results.json, or the
// journal.jsonl of a killed run (marked partial), as Markdown, JSON or CSV;
// several files are shards of one run, merged with BH across all cells.

#include <refbench/cli/compare_command.hpp>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace refbench::cli {

struct ReportOptions {
  std::vector<std::string> files;
  std::string format = "markdown";
  std::string fail_on = "regression";
};

// Registers `report` and its flags on `app`, bound to `options`.
CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

// Renders the files of `options` to stdout; returns the exit code of the
// verdict (SPEC §5.2) under `--fail-on`.
int run_report(const ReportOptions& options, const CommonOptions& common);

} // namespace refbench::cli
