#pragma once
// results.json and the journal's header line (docs/manual/output-files.md): the
// one writer and the one reader of each. Readers check every member they
// use and name it in errors ("results.json: settings.alpha must be …"),
// refuse a newer schema_version, and ignore members they do not know.
// The members that say how a run was asked for (report::RunHeader) are read and
// written in run_header_json.cpp, the rest in results_json.cpp.

#include <refbench/formats/records.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/util/json_fields.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refbench::formats {

// One `analysis` entry of results.json; NaN becomes null.
nlohmann::json to_json(const analysis::MetricResult& result);

// The inverse of `to_json(MetricResult)`: null numbers become NaN (or
// nullopt), a missing "unit" follows from the metric's name.
analysis::MetricResult metric_result_from_json(const util::JsonFields& entry);

// The members of results.json that describe how the run was asked for
// (schema_version, tool, command, seed, arms, settings, rss, environment,
// reproduce, shard); also the journal header's.
nlohmann::json to_json(const report::RunHeader& header);

// The inverse of `to_json(report::RunHeader)`, from a results.json or a journal header.
report::RunHeader header_from_json(const util::JsonFields& document);

// The journal's first line for a run asked for as `header` with `cells`
// (their names, which is the A/A control, their meta), so a killed run reads back.
nlohmann::json journal_header(const report::RunHeader& header, const std::vector<model::CellSpec>& cells);

// results.json.
nlohmann::json to_json(const report::RunDocument& document);

// The inverse of `to_json(report::RunDocument)`; throws UsageError naming `source`
// and the member when something is missing, mistyped or out of range.
report::RunDocument document_from_json(const nlohmann::json& json, const std::string& source);

// A killed or finished run's journal as a document without analysis:
// the header's facts, the cells and samples, partial when a cell never stopped.
report::RunDocument document_from_journal(const ReadJournal& journal, const std::string& source);

// The run in the text of `path`: a journal or a results.json; throws
// UsageError naming `path` for anything else.
report::RunDocument read_document(const std::string& path, const std::string& text);

} // namespace refbench::formats
