#pragma once
// report.md (docs/manual/output-files.md), rendered from a results.json document: a hidden
// marker, the headline, the verdict table, a summary line, the forest plot
// and a <details> block, kept under a size limit so it fits a GitHub comment.

#include <refbench/report/run_document.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace refbench::report {

// GitHub's comment limit is 65 536 characters; this leaves room for a footer.
inline constexpr std::size_t k_markdown_limit = 60000;

// An arm as "`main` (1a2b3c4)" for a ref and its commit, or the command in
// a code span; with its [arms.NAME] settings after " with ", e.g.
// "`main` (1a2b3c4) with `MODE=fast --cache`".
std::string render_arm(const ArmInfo& arm);

// `text` as prose, with every mention of `name` (bare or already in a code
// span) as a code span and Markdown in the rest escaped.
std::string prose_naming(std::string_view text, std::string_view name);

// The headline: verdict icon and words, the two arms, and whether the run
// was interrupted; no trailing newline.
std::string render_headline(const RunDocument& document);

// The line under the table: noise floor, threshold, rounds, budget used of
// the budget, wall time and whether the run is partial; no trailing newline.
std::string render_run_summary(const RunDocument& document);

// The whole report.md for `document` in at most `limit` bytes: details trimmed
// first, then the plot left out, then table rows (PASS first), each noted
// in italics; never cut inside a UTF-8 sequence.
std::string render_markdown(const RunDocument& document, std::size_t limit = k_markdown_limit);

} // namespace refbench::report
