#pragma once
// The nightly history (docs/manual/history.md): one JSON line per
// (cell, metric) of a run in DIR/history.jsonl, appended atomically under a
// lock, read back line by line (a bad line is skipped with a warning).

#include <refbench/report/run_document.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace refbench::history {

// The version of a history line this refbench writes; a reader refuses others.
inline constexpr int k_history_version = 1;

// The file in a history directory.
inline constexpr const char* k_history_file = "history.jsonl";

struct ArmRef {
  std::string ref;
  std::string sha;
};

// One line of history.jsonl: one (cell, metric) of one run.
struct Record {
  std::string time;       // UTC ISO 8601, when the run ended
  std::string run_id;     // the same run's lines share it; never appended twice
  std::string repository; // the repository's root commit: lines of another are refused
  ArmRef baseline;
  ArmRef candidate;
  std::string cell;
  std::string metric;
  bool gated = false;
  bool higher_is_better = false; // "better": "higher" (throughput); a lower ratio is then worse
  std::string unit;              // "seconds", "bytes", "plain" or the metric's own label
  std::optional<double> ratio;   // none: no ratio (an ERROR cell, a count metric)
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  std::string verdict;
  std::optional<double> baseline_median;
  std::optional<double> candidate_median;
  std::size_t n = 0;
  // the row's own threshold in its run, when it is not the run's (a counted
  // metric's 1.01 — instructions, a suite's counts such as go's
  // bytes_per_op — or a cell's `threshold` override); history judges the
  // series at it
  std::optional<double> threshold;
  std::string cpu_model;
  std::optional<int> cpus;
  std::string kernel;
  std::size_t line = 0; // where it was read (1-based); 0 when not read
};

// The records of `document`: its analysis rows but the A/A control's and
// NEW cells', stamped with `time`, `repository` and a run_id that is a hash
// of the document (so appending the same document twice is noticed).
std::vector<Record> records_of(const report::RunDocument& document, const std::string& time,
                               const std::string& repository);

// The current UTC time as "2026-12-02T08:00:00Z".
std::string utc_now();

// Appends `records` to DIR/history.jsonl (DIR created when missing) in one
// write under an exclusive lock, unless a line of the same run_id is there
// already; returns whether it appended. A symlink at the file is refused
// and a short write is cut back to the last whole line: RefusedError (exit
// 3) or MeasurementError, naming the file.
bool append(const std::filesystem::path& dir, const std::vector<Record>& records);

// What DIR/history.jsonl holds: its records in file order, and one warning
// per line skipped (not JSON, a torn last line, a member missing), each
// naming the line. A missing file is an empty history. Throws UsageError
// naming the line for a line of another schema version, or of another
// repository than `repository` (when given) or than the first record's.
struct History {
  std::vector<Record> records;
  std::vector<std::string> warnings;
};
History read_history(const std::filesystem::path& dir, const std::optional<std::string>& repository = std::nullopt);

// JSON line of `record` and back (nullopt, with `problem` set, when a member is missing or wrong).
nlohmann::json to_json(const Record& record);
std::optional<Record> record_from_json(const nlohmann::json& line, std::string& problem);

} // namespace refbench::history
