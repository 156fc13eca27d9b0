#include <refbench/formats/output_formats.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/model/invocation.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/pipeline/terminal.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <iostream>

namespace refbench::pipeline {

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  auto text = util::read_file(path, max_bytes);
  if (!text) {
    throw UsageError(fmt::format("cannot read {}: {}", path, text.error()), "check the path");
  }
  return *text;
}

namespace {

// What a failed invocation's user fixes: the command, the named hook, or the
// command's run under a counter (whose metrics can also be dropped).
std::string what_to_fix(const model::CellFailure& failure) {
  if (failure.hook.empty()) {
    return "fix the command";
  }
  if (failure.hook == model::k_counted_run) {
    return "make the command run under valgrind or measure without the counted metric";
  }
  if (failure.hook == model::k_benchmark_count) {
    return "count only the benchmarks refbench can attribute (--cells SUITE/PATTERN), or leave instructions and "
           "allocations out of the suite's metrics";
  }
  if (failure.hook == model::k_allocation_run) {
    return "link the program dynamically against libc or measure without allocations and allocated_bytes";
  }
  return "fix the " + failure.hook + " hook";
}

} // namespace

void write_outputs(const std::filesystem::path& out, const report::RunDocument& document) {
  const std::vector<std::pair<std::string, std::string>> files{{"results.json", formats::results_text(document)},
                                                               {"report.md", report::render_markdown(document)},
                                                               {"report.csv", report::render_csv(document.results)}};
  for (const auto& [name, text] : files) {
    if (!util::write_file_atomically(out / name, text)) {
      const int saved = errno;
      throw MeasurementError("cannot write " + (out / name).string() + ": " + std::strerror(saved),
                             util::out_of_space(saved) || runner::low_on_disk(out.string())
                                 ? "out of disk space: free some space; the journal has every sample"
                                 : "check the --out directory; the journal has every sample");
    }
  }
}

void print_document(const report::RunDocument& document, formats::OutputFormat format, const CommonOptions& common) {
  const std::string text = formats::output_format_info(format).render(
      document, {.quiet = common.quiet, .colour = stdout_table_colour(common.color)});
  // text from outside stays text on a terminal and in a workflow's log
  std::cout << (format == formats::OutputFormat::csv        ? printable_csv(text)
                : format == formats::OutputFormat::markdown ? util::without_workflow_commands(text)
                                                            : text);
}

std::string printable_csv(const std::string& csv) {
  return util::without_workflow_commands(util::printable(csv, "\r\n"));
}

void print_warnings(const report::RunDocument& document, std::ostream& err) {
  for (const auto& warning : document.warnings) {
    err << "refbench: warning: " << util::printable(warning.message) << "\n";
  }
}

void print_failures(const model::RunRecord& record, std::ostream& err) {
  bool tree_told = false;
  for (const auto& cell : record.cells) {
    if (!cell.failure) {
      continue;
    }
    const auto& f = *cell.failure;
    if (f.hook == model::k_tree_check) { // one change, every cell's: said once
      if (!tree_told) {
        err << fmt::format("refbench: error: {} {} {} — a benchmarked command wrote into an arm's tree, so no "
                           "verdict is evidence; make it write under {{output}} or $TMPDIR (or list the path "
                           "in run.writable) and rerun\n",
                           model::failure_subject(cell, f), util::printable(f.description), model::failure_when(f));
      }
      tree_told = true;
      continue;
    }
    err << fmt::format("refbench: error: cell {}: {} {} {} — {} (its stderr ends below) and rerun\n",
                       util::printable(model::cell_title(cell)), model::failure_subject(cell, f),
                       util::printable(f.description), model::failure_when(f), what_to_fix(f));
    std::string tail = util::printable(model::last_lines(f.stderr_tail, 10), "\n\t");
    std::size_t start = 0;
    while (!tail.empty() && start <= tail.size()) {
      std::size_t end = std::min(tail.find('\n', start), tail.size());
      err << "  | " << tail.substr(start, end - start) << "\n";
      start = end + 1;
    }
  }
}

int exit_code_for(analysis::RunVerdict verdict, config::FailOn fail_on) {
  using analysis::RunVerdict;
  if (verdict == RunVerdict::error) {
    return static_cast<int>(ExitCode::measurement);
  }
  if ((verdict == RunVerdict::regression && fail_on != config::FailOn::never) ||
      (verdict == RunVerdict::inconclusive && fail_on == config::FailOn::inconclusive)) {
    return static_cast<int>(ExitCode::regression);
  }
  return static_cast<int>(ExitCode::ok);
}

} // namespace refbench::pipeline
