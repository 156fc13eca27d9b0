#pragma once
// Samples made elsewhere, for `refbench analyze` (docs/manual/output-files.md): a CSV of pairs
// and hyperfine's --export-json. Malformed input is a UsageError naming the
// file, the line and the problem.

#include <refbench/analysis/analysis.hpp>

#include <string>
#include <vector>

namespace refbench::analysis {

// CSV with a header and the columns `baseline`, `candidate` (one pair a
// row) and optionally `cell` (default: `default_cell`), `metric` (default
// "value") and `round`. Values must be positive numbers. Cells and metrics
// keep their order of first appearance.
std::vector<CellSamples> parse_pairs_csv(const std::string& text, const std::string& source,
                                         const std::string& default_cell, Direction direction);

// hyperfine --export-json: results[0] is the baseline, results[1] the
// candidate; their `times` are unpaired wall samples of one cell named
// `cell`.
std::vector<CellSamples> parse_hyperfine_json(const std::string& text, const std::string& source,
                                              const std::string& cell, Direction direction);

// Splits one CSV record into fields (RFC 4180 quotes; no embedded newlines).
// Returns false for an unterminated quote.
bool split_csv_line(const std::string& line, std::vector<std::string>& fields);

} // namespace refbench::analysis
