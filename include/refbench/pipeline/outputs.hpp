#pragma once
// What a command leaves behind and prints at its end: input files read
// with a clear error, results.json + report.md + report.csv written, the
// report, warnings and failures printed, and the exit code of a verdict.

#include <refbench/analysis/analysis.hpp>
#include <refbench/model/record.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/util/files.hpp>

#include <filesystem>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

namespace refbench::pipeline {

// The content of the input file `path` (a regular file or a pipe, at most
// `max_bytes`); throws UsageError naming it when it cannot be read.
std::string read_input_file(const std::string& path, std::size_t max_bytes = util::k_max_read_bytes);

// The largest event payload (GITHUB_EVENT_PATH) read: GitHub's are a few MiB.
inline constexpr std::size_t k_max_event_bytes = std::size_t{64} << 20;

// Writes `document` into `out` as results.json, report.md and report.csv,
// each atomically; throws MeasurementError naming the file (and saying so
// when the disk is full) when one cannot be written.
void write_outputs(const std::filesystem::path& out, const report::RunDocument& document);

// `csv` as it may be printed to a terminal or a CI log: control characters
// of names shown as text, no line read as a workflow command.
std::string printable_csv(const std::string& csv);

// Prints `document` to stdout in `format` (its row of formats::output_formats;
// markdown with -q: the verdict table alone, coloured on a terminal as
// `--color` says).
void print_document(const report::RunDocument& document, formats::OutputFormat format, const CommonOptions& common);

// Prints the warnings of `document` to `err`, one "refbench: warning: …"
// line each.
void print_warnings(const report::RunDocument& document, std::ostream& err);

// Prints to `err` one "refbench: error: cell …" line per failed cell of
// `record`, followed by the last lines of its stderr.
void print_failures(const model::RunRecord& record, std::ostream& err);

// The exit code (docs/manual/commands.md#exit-codes) of a run whose verdict is `verdict`
// under `fail_on`: error → 4, regression → 1 (unless never), inconclusive →
// 1 only with `inconclusive`, else 0.
int exit_code_for(analysis::RunVerdict verdict, config::FailOn fail_on);

} // namespace refbench::pipeline
