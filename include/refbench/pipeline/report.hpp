#pragma once
// `refbench report FILE...` (docs/manual/commands.md, docs/manual/output-files.md): re-renders a results.json, or the
// journal.jsonl of a killed run (marked partial), as Markdown, JSON or CSV;
// several files are shards of one run, merged with BH across all cells.

#include <refbench/pipeline/options.hpp>

#include <refbench/report/run_document.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refbench::pipeline {

// The document of `runs` (read from `files`) analysed again
// with the first run's settings: one journal (a killed run) or several
// shards, whose cells keep their own A/A control (one analysis group per
// file) and share one Benjamini–Hochberg family. Shards of different
// runs (docs/manual/commands.md#shards: refs, config, seed, shard count), the same shard or cell
// twice, or another threshold/alpha are a UsageError naming both files.
report::RunDocument analysed_document(const std::vector<report::RunDocument>& runs,
                                      const std::vector<std::string>& files);

// Renders the files of `options` to stdout; returns the exit code of the
// verdict (docs/manual/commands.md#exit-codes) under `--fail-on`.
int run_report(const ReportOptions& options, const CommonOptions& common);

} // namespace refbench::pipeline
