#pragma once
// `refbench history DIR` (docs/manual/history.md) and what `run --history`
// does with a history: append a run's records, resolve `history-last`.

#include <refbench/history/series.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/report/run_document.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// Prints the history of `options.dir`; exit 1 when a gated series' window
// verdict is a REGRESSION (creep included), else 0.
int run_history(const HistoryOptions& options, const CommonOptions& common);

// The repository's identity in a history: its (first) root commit, as
// reached from `sha`.
std::string repository_id(const std::string& repo, const std::string& sha);

// The commit `history-last` names: the candidate of the history's last
// record (file order). RefusedError (exit 3) when the history is empty or
// that commit is not in `repo`; UsageError without a history directory.
std::string history_last(const std::optional<std::filesystem::path>& dir, const std::string& repo);

// Appends `document`'s records to `dir`'s history unless it is partial;
// says what it did on stderr unless `quiet`.
void append_to_history(const std::filesystem::path& dir, const report::RunDocument& document, const std::string& repo,
                       bool quiet);

// docs/manual/history.md: for a pull request's run, per gated result of
// `document`, where its ratio sits in the band of the history's series of
// the same cell and metric — its last `window` ratios (0: all) — as notes
// for the report ("history" facts). Nothing when the history is missing or
// empty.
std::vector<report::DocumentWarning> band_notes(const std::filesystem::path& dir, const report::RunDocument& document,
                                                std::size_t window = history::k_default_window);

// Wires the history in `dir` into `sinks`: a pull request's run notes in its
// report where it sits in the history's band; any other run appends its
// records once its files are written, before anything is published. No
// `dir`: nothing. `window`: the band's ratios, as for band_notes.
void add_history(Sinks& sinks, const std::optional<std::filesystem::path>& dir, bool pull_request,
                 const std::string& repo, bool quiet, std::size_t window);

} // namespace refbench::pipeline
