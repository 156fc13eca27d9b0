#pragma once
// Reading a run back: a results.json document or a journal.jsonl (of a
// finished or a killed run) into the RunRecord it was written from.

#include <refbench/runner/record.hpp>

#include <nlohmann/json.hpp>
#include <string>

namespace refbench::runner {

// A run read back, with the header facts analysis needs.
struct ReadRun {
  RunRecord record;
  nlohmann::json settings;    // the "settings" object as written
  nlohmann::json arms;        // what the arms ran ({} when unknown)
  nlohmann::json environment; // the machine it ran on ({} when unknown)
  nlohmann::json header;      // the journal's header line, or the results.json document
  bool partial = false;       // a journal without the end of the run
};

// Parses a results.json document; throws UsageError naming `source` and the
// missing or malformed key.
ReadRun read_results(const nlohmann::json& document, const std::string& source);

// Parses the text of a journal.jsonl; a torn last line (a run killed
// mid-write) is ignored, any other bad line is a UsageError naming
// `source`:line.
ReadRun read_journal(const std::string& text, const std::string& source);

// Whether `text` (read from `path`) is a journal: a .jsonl file, or one
// whose first JSON object starts with a "type" key.
bool looks_like_journal(const std::string& path, const std::string& text);

// The run in the text of `path`: a journal or a results.json; throws
// UsageError naming `path` for anything else.
ReadRun read_run(const std::string& path, const std::string& text);

} // namespace refbench::runner
