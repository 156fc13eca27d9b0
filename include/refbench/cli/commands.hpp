#pragma once
// The subcommands, from one table: each one's flags (CLI11) bound to its
// pipeline options, and the pipeline call that runs it.

#include <refbench/pipeline/options.hpp>

#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

namespace refbench::cli {

// What a subcommand reads, which decides what a JSON error means (app.cpp).
enum class Reads {
  documents, // report, analyze, comment: refbench's files; a JSON error is bad input (exit 2)
  commands,  // run, compare, bisect: benchmarked commands, which write a journal; a JSON error is internal
  refs,      // resolve, history
};

// The options every subcommand's flags fill, kept alive while it runs.
struct SubcommandOptions {
  pipeline::CompareOptions compare;
  pipeline::AnalyzeOptions analyze;
  pipeline::RunOptions run;
  pipeline::ReportOptions report;
  pipeline::CommentOptions comment;
  pipeline::ResolveOptions resolve;
  pipeline::HistoryOptions history;
  pipeline::BisectOptions bisect;
};

// One subcommand: its CLI11 app and the call that runs it once parsed.
struct Subcommand {
  CLI::App* command;
  std::function<int(const pipeline::CommonOptions&)> run;
  Reads reads;
};

// Registers every subcommand and its flags on `app`, bound to `options`;
// the table, in the order --help lists them.
std::vector<Subcommand> add_subcommands(CLI::App& app, SubcommandOptions& options);

} // namespace refbench::cli
