#pragma once
// GitHub Actions' side channels (docs/manual/github-actions.md): workflow commands on stdout
// (`::error`, `::notice`), step outputs in $GITHUB_OUTPUT and the job
// summary in $GITHUB_STEP_SUMMARY.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::github {

// Most `::error` annotations one run emits.
inline constexpr std::size_t k_annotation_limit = 10;

// Largest step summary GitHub accepts (1 MiB); refbench stays below it.
inline constexpr std::size_t k_summary_limit = 1 << 20;

// `text` with every control character (C0, DEL, C1 such as CSI) shown as
// `\n`, `\xNN` or `\uNNNN` text, line breaks included: fit for one line.
std::string one_line(std::string_view text);

// A regression to annotate: cell × metric with its ratio and interval, and
// the threshold it passed (NaN: not known).
struct Regression {
  std::string cell;
  std::string metric;
  double ratio = 0;
  double ci_low = 0;
  double ci_high = 0;
  double threshold = 0;
  // Said instead of the ratio when not empty: a count's difference or a
  // broken SLO ("SLO `<= 5000` broken: …").
  std::string reason;
};

// One `::error title=…::…` line per regression, worst (largest |log ratio|;
// those with a `reason` first) first, at most `limit`; cell and metric names
// are made one_line first.
std::vector<std::string> regression_annotations(std::vector<Regression> regressions,
                                                std::size_t limit = k_annotation_limit);

// `key`=`value` in $GITHUB_OUTPUT syntax, control characters but LF and TAB
// shown as `\xNN`; multi-line values use the `key<<DELIMITER` form with
// `delimiter`; throws std::invalid_argument when a line of `value` is it.
std::string output_entry(const std::string& key, const std::string& value, const std::string& delimiter);

// Appends `entries` (see output_entry) to the file `path`; throws
// UsageError naming the file when it cannot be written.
void append_to_file(const std::string& path, const std::string& entries);

// The job-summary text for the report `markdown` (control characters but
// LF and TAB shown as `\xNN`): the report plus a blank line, cut (at a line end, with a note) so that `already` bytes
// in the summary file plus this stay under `limit`.
std::string summary_text(const std::string& markdown, std::size_t already, std::size_t limit = k_summary_limit);

} // namespace refbench::github
