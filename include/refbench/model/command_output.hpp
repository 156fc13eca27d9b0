#pragma once
// What a cell's command reports about itself (docs/manual/config.md#custom-metrics-windows-and-requirements):
// custom metric values, the length of its measurement window and the
// values its requirements test, read from the last line of its stdout or
// from its {output} file (text that runner reads and hands over). A value
// that is missing, not a number, or not positive (for a count metric:
// negative) is an error naming the metric and what was found — never a zero.

#include <refbench/model/record.hpp>

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace refbench::model {

struct ReportedValues {
  std::map<std::string, double> metrics; // by metric name (positive, finite)
  std::map<std::string, double> keys;    // the window and requirement keys, by key
};

// True when the cell's command reports anything refbench must read: custom
// metrics, a window key or requirements.
bool reads_report(const CellMeta& meta);

// True when `meta`'s values are read from its {output} file (from = "file").
bool reads_output_file(const CellMeta& meta);

// The longest {output} file a cell's metrics are read from (64 MiB); a
// longer one, a link or anything but a regular file is the cell's ERROR.
inline constexpr std::size_t k_max_output_report_bytes = std::size_t{64} << 20;

// Where `meta`'s values come from, for messages: "the last line of its
// stdout" or "its {output} file".
std::string report_source(const CellMeta& meta);

// Reads `meta`'s custom metrics, window key and requirement keys from `text`
// — for from = "stdout" the last non-empty line (or, when that is not a JSON
// object, the whole text: a pretty-printed document), for "file" the whole
// file. `cut`: `text` is only the last k_stdout_tail_bytes of a
// longer stdout, so a last line or a document that does not fit in it is an
// error naming that bound. The error is a phrase for "the candidate command
// ... in round 3", e.g. "reported no number for metric `throughput`:
// `throughput` is "N/A" in the last line of its stdout".
std::expected<ReportedValues, std::string> read_reported(const CellMeta& meta, std::string_view text, bool cut = false);

// Why an invocation's window or requirements disqualify it, if they do:
// the window (the reported `window_key`, else `wall_seconds`) must be at
// least `meta.min_duration_seconds`, and every requirement must hold.
std::optional<std::string> window_problem(const CellMeta& meta, const ReportedValues& reported, double wall_seconds);

// Fills `sample`'s custom metric values — a suite cell's benchmarks
// (docs/manual/suites.md) — from what its command reported, `text` (its captured
// stdout, `cut` when that was longer than was kept, or its {output} file,
// which runner reads), or sets its problem when the report is unusable or
// its window or requirements fail.
void read_sample_report(const CellMeta& meta, Sample& sample, std::string_view text, bool cut);

// Parses a requirement like "errors == 0" or "p99_ms<=250".
std::expected<Requirement, std::string> parse_requirement(std::string_view text);

// "errors == 0".
std::string requirement_text(const Requirement& requirement);

// Whether `value op limit` holds, op one of == != < <= > >=.
bool condition_holds(double value, std::string_view op, double limit);

// Parses an SLO like "<= 5000" or ">=2" (OP NUMBER).
std::expected<Slo, std::string> parse_slo(std::string_view text);

// "<= 5000".
std::string slo_text(const Slo& slo);

} // namespace refbench::model
