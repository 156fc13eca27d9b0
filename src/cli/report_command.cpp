#include <refbench/analysis/from_record.hpp>
#include <refbench/cli/common.hpp>
#include <refbench/cli/report_command.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/report_model.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/runner/record_reader.hpp>
#include <refbench/util/error.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <set>

namespace refbench::cli {
namespace {

// Appends `run`'s cells and samples to `merged`, refusing a cell name that
// is already there.
void append_run(runner::RunRecord& merged, const runner::ReadRun& run, const std::string& file) {
  const std::size_t offset = merged.cells.size();
  for (const auto& cell : run.record.cells) {
    if (std::any_of(merged.cells.begin(), merged.cells.end(), [&](const auto& c) { return c.name == cell.name; })) {
      throw UsageError(fmt::format("{}: cell '{}' is also in an earlier file", file, cell.name),
                       "pass each shard's results once; shards must run disjoint cells");
    }
    merged.cells.push_back(cell);
  }
  for (auto sample : run.record.samples) {
    sample.cell += offset;
    merged.samples.push_back(std::move(sample));
  }
  merged.elapsed_seconds = std::max(merged.elapsed_seconds, run.record.elapsed_seconds);
}

// The results.json document of `runs` analysed again with the first run's
// settings: one journal (a killed run) or several shards, whose cells keep
// their own A/A control (one analysis group per file) and share BH.
nlohmann::json analysed_document(const std::vector<runner::ReadRun>& runs, const std::vector<std::string>& files) {
  const auto context = report::context_from_json(runs.front().header);
  runner::RunRecord merged;
  merged.seed = runs.front().record.seed;
  merged.rss = runs.front().record.rss;
  std::vector<analysis::CellSamples> cells;
  bool partial = false;
  for (std::size_t group = 0; group < runs.size(); ++group) {
    const auto& run = runs[group];
    const auto settings = run.header.value("settings", nlohmann::json::object());
    if (settings.value("threshold", context.threshold) != context.threshold ||
        settings.value("alpha", context.alpha) != context.alpha) {
      throw UsageError(fmt::format("{} was run with another threshold or alpha than {}", files[group], files[0]),
                       "merge only shards of one run");
    }
    append_run(merged, run, files[group]);
    for (auto& cell : analysis::cell_samples(run.record, context.metrics, context.gated)) {
      cell.group = group;
      cells.push_back(std::move(cell));
    }
    partial = partial || run.partial;
  }
  const auto settings = analysis_settings(context.threshold, context.alpha, context.settings.min_rounds,
                                          context.interval, context.settings.seed);
  auto document = report::results_json(merged, context, analysis::analyze(cells, settings));
  document["partial"] = partial;
  if (runs.size() > 1) {
    document["shards"] = files;
  }
  return document;
}

} // namespace

CLI::App* add_report_command(CLI::App& app, ReportOptions& o) {
  CLI::App* cmd = app.add_subcommand("report", "Re-render a results.json or a killed run's journal.jsonl");
  cmd->add_option("files", o.files, "results.json or journal.jsonl; several files = shards of one run")
      ->required()
      ->check(CLI::ExistingFile);
  add_format_option(*cmd, o.format);
  add_fail_on_option(*cmd, o.fail_on);
  return cmd;
}

int run_report(const ReportOptions& o, const CommonOptions& common) {
  std::vector<runner::ReadRun> runs;
  for (const auto& file : o.files) {
    runs.push_back(runner::read_run(file, read_input_file(file)));
  }
  const bool one_results_file = runs.size() == 1 && runs[0].header.value("type", std::string()) != "header";
  nlohmann::json document = one_results_file ? runs[0].header : analysed_document(runs, o.files);
  const auto model = report::read_model(document);
  if (o.format == "json") {
    std::cout << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (o.format == "csv") {
    std::cout << report::render_csv(model.results);
  } else {
    print_markdown(document, common);
  }
  return exit_code_for(document.value("verdict", std::string("inconclusive")), o.fail_on);
}

} // namespace refbench::cli
