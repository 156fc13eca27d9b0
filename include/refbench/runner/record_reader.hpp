#pragma once
// Reading samples back: the journal.jsonl of a finished or a killed run, and
// the `cells` of a results.json, into the RunRecord they were written from.
// The rest of a results.json (how the run was asked for, its analysis) is
// read by report::document_from_json.

#include <refbench/runner/record.hpp>
#include <refbench/util/json_fields.hpp>

#include <nlohmann/json.hpp>
#include <string>

namespace refbench::runner {

// What to do about a file that is no run refbench wrote.
inline constexpr const char* k_run_file_hint = "pass a results.json or journal.jsonl written by refbench";

// A journal read back: its samples and cells, and its header line as written.
struct ReadJournal {
  RunRecord record;      // cells, samples; seed and rss are the header's to read
  nlohmann::json header; // the journal's first line
  bool partial = false;  // some cell has no stop line: the run was killed
};

// Parses the text of a journal.jsonl; a torn last line (a run killed
// mid-write) is ignored, any other bad line is a UsageError naming
// `source`:line.
ReadJournal read_journal(const std::string& text, const std::string& source);

// Whether `text` (read from `path`) is a journal: a .jsonl file, or one
// whose first JSON object starts with a "type" key.
bool looks_like_journal(const std::string& path, const std::string& text);

// Appends the `cells` array of the results.json `document` (each cell with
// its samples) to `record`; throws UsageError naming the member.
void read_cells(const util::JsonFields& document, RunRecord& record);

} // namespace refbench::runner
