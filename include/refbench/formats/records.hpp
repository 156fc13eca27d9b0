#pragma once
// A run's cells and samples as JSON, written and read: every line of
// journal.jsonl (header, sample, hook, stop, cell, tree_changed; docs/manual/output-files.md) and the `cells` of a
// results.json. The rest of a results.json (how the run was asked for, its analysis) is results_json.hpp's.

#include <refbench/formats/journal.hpp>
#include <refbench/model/record.hpp>
#include <refbench/model/round_log.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/util/json_fields.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refbench::formats {

// What to do about a file that is no run refbench wrote.
inline constexpr const char* k_run_file_hint = "pass a results.json or journal.jsonl written by refbench";

// A journal read back: its samples and cells, and its header line as written.
struct ReadJournal {
  model::RunRecord record; // cells, samples; seed and rss are the header's to read
  nlohmann::json header;   // the journal's first line
  bool partial = false;    // some cell has no stop line: the run was killed
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
void read_cells(const util::JsonFields& document, model::RunRecord& record);

// JSON forms shared by the journal and results.json.
nlohmann::json to_json(const model::Sample& sample, const std::vector<model::CellRecord>& cells);
nlohmann::json to_json(const model::CellRecord& cell);
nlohmann::json to_json(const model::CellMeta& meta);
// Names `cell` in a journal line about it: "cell" and, in a run of several
// candidates (docs/manual/commands.md#more-candidates), "candidate" — together they tell
// the cells apart.
void name_cell(nlohmann::json& line, const model::CellRecord& cell);
// The inverse of to_json(CellMeta); missing keys keep their defaults.
model::CellMeta cell_meta_from_json(const nlohmann::json& meta);

// The journal.jsonl of a run: what the rounds log (model::RoundLog) as
// lines of formats::Journal, appended and synced as they are taken.
class JournalWriter final : public model::RoundLog {
public:
  // A journal that records nothing (for tests that do not need one).
  JournalWriter() = default;
  // Creates (truncates) `path`; throws RefusedError when it cannot.
  explicit JournalWriter(const std::string& path) : m_journal(path) {}

  // The first line: the run asked for as `header` with `cells`.
  void header(const report::RunHeader& header, const std::vector<model::CellSpec>& cells);
  void sample(const model::Sample& sample, const std::vector<model::CellRecord>& cells) override;
  void hook(const model::HookRun& run, const model::CellRecord& cell) override;
  void control_added(const model::CellRecord& control, const std::string& of) override;
  void stopped(const model::CellRecord& cell) override;
  void tree_changed(int round, const std::string& change) override;
  // Forces the lines written to stable storage.
  void sync() { m_journal.sync(); }

private:
  formats::Journal m_journal;
};

} // namespace refbench::formats
