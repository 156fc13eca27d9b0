#pragma once
// The <details> block of report.md (docs/manual/output-files.md): environment, build times,
// cells with their stop reasons and minimum detectable ratios, sensitivity
// warnings, censored metrics, failures with stderr tails, the command line
// that reproduces the run — and what was left out to fit the size limit.

#include <refbench/report/run_document.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace refbench::report {

// What the report shows; trim_details takes it apart step by step.
struct DetailsPlan {
  bool plot = true;          // the forest plot, above the details
  bool short_stderr = false; // stderr tails cut to their last k_short_tail_lines lines
  bool stderr = true;
  bool cell_table = true;
  bool warnings = true;
  bool censored = true;
  bool environment = true; // and build times
  bool failures = true;
};

// A shortened stderr tail keeps this many lines, and at most this many bytes.
inline constexpr std::size_t k_short_tail_lines = 5;
inline constexpr std::size_t k_short_tail_bytes = 1000;

// What `plan` leaves out, in words ("the per-cell table", …).
std::vector<std::string> left_out(const DetailsPlan& plan);

// The note in italics that `items` were left out to stay under `limit`
// bytes and that results.json has everything; ends in '\n'.
std::string trim_note(const std::vector<std::string>& items, std::size_t limit);

// The <details> block of `document` as `plan` shows it, opening with the note
// of what is left out (if anything); ends in '\n'.
std::string render_details(const RunDocument& document, const DetailsPlan& plan, std::size_t limit);

// Takes the next step that removes something from `document`'s details:
// stderr tails shortened, then the per-cell table, the stderr tails, the
// warnings, the censored metrics, the environment, the failures; false when
// nothing is left to remove.
bool trim_details(DetailsPlan& plan, const RunDocument& document);

} // namespace refbench::report
