#include <refbench/analysis/from_record.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/model/shard.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/pipeline/report.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <set>

namespace refbench::pipeline {
namespace {

// Appends `run`'s cells and samples to `merged`, refusing a cell name that
// is already there.
void append_run(model::RunRecord& merged, const model::RunRecord& run, const std::string& file) {
  for (const auto& cell : run.cells) {
    if (std::any_of(merged.cells.begin(), merged.cells.end(),
                    [&](const auto& c) { return model::cell_title(c) == model::cell_title(cell); })) {
      throw UsageError(fmt::format("{}: cell '{}' is also in an earlier file", file, model::cell_title(cell)),
                       "pass each shard's results once; shards must run disjoint cells");
    }
  }
  model::append_record(merged, run);
}

// Refuses to merge `runs` (from `files`) when they are not all shards, or
// when files that are no shards measured other commits.
void check_same_kind(const std::vector<report::RunDocument>& runs, const std::vector<std::string>& files,
                     std::size_t i) {
  const bool is_shard = runs[i].header.shard.has_value();
  if (is_shard != runs[0].header.shard.has_value()) {
    const std::size_t shard = is_shard ? i : 0;
    throw UsageError(fmt::format("cannot merge {} with {}: {} is not from a `run --shard`", files[shard],
                                 files[shard == 0 ? i : 0], files[shard == 0 ? i : 0]),
                     "merge only the results.json (or journal.jsonl) files of the shards of one run");
  }
  if (is_shard) {
    return;
  }
  for (const auto& [name, arm] :
       {std::pair{"baseline", &report::RunHeader::baseline}, std::pair{"candidate", &report::RunHeader::candidate}}) {
    const auto sha = [&](const report::RunDocument& run) {
      const auto& info = run.header.*arm;
      return info ? info->sha : std::string();
    };
    if (sha(runs[i]) != sha(runs[0])) {
      throw UsageError(fmt::format("cannot merge {} with {}: different {} commits: {} vs {}", files[i], files[0], name,
                                   sha(runs[i]).substr(0, 12), sha(runs[0]).substr(0, 12)),
                       "merge only results of the same two commits, or report each file on its own");
    }
  }
}

// docs/manual/commands.md#shards: the `shard` records of `runs` (read from `files`), refused
// unless they are distinct shards of one run; empty when none is a shard.
std::vector<model::ShardIdentity> checked_shards(const std::vector<report::RunDocument>& runs,
                                                 const std::vector<std::string>& files) {
  std::vector<model::ShardIdentity> shards;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    check_same_kind(runs, files, i);
    if (!runs[i].header.shard) {
      continue;
    }
    shards.push_back(*runs[i].header.shard);
    for (std::size_t earlier = 0; earlier + 1 < shards.size(); ++earlier) {
      if (auto difference = model::shard_mismatch(shards[earlier], shards.back())) {
        const bool twice = shards[earlier].shard == shards.back().shard;
        throw UsageError(fmt::format("cannot merge {} with {}: {}", files[i], files[earlier], *difference),
                         twice ? "pass each shard's results once"
                               : "merge the shards of one run: every job of the matrix needs the same refs, "
                                 "config, settings, seed and shard count N (see docs/manual/commands.md#shards)");
      }
    }
  }
  return shards;
}

} // namespace

report::RunDocument analysed_document(const std::vector<report::RunDocument>& runs,
                                      const std::vector<std::string>& files) {
  const auto shards = checked_shards(runs, files);
  auto header = runs.front().header;
  model::RunRecord merged;
  merged.seed = runs.front().record.seed;
  merged.rss = runs.front().record.rss;
  std::vector<analysis::CellSamples> cells;
  bool partial = false;
  for (std::size_t group = 0; group < runs.size(); ++group) {
    const auto& run = runs[group];
    if (run.header.settings.threshold != header.settings.threshold ||
        run.header.settings.alpha != header.settings.alpha) {
      throw UsageError(fmt::format("{} was run with another threshold or alpha than {}", files[group], files[0]),
                       "merge only shards of one run");
    }
    append_run(merged, run.record, files[group]);
    for (const auto& removed : run.header.removed_cells) { // a suite's removed benchmarks: on one shard each
      if (std::find(header.removed_cells.begin(), header.removed_cells.end(), removed) == header.removed_cells.end()) {
        header.removed_cells.push_back(removed);
      }
    }
    for (auto& cell : analysis::cell_samples(run.record, header.settings.metrics, header.settings.gate)) {
      cell.group = group;
      cells.push_back(std::move(cell));
    }
    partial = partial || run.partial;
  }
  if (runs.size() > 1 && !shards.empty()) { // one run's command line, every shard's
    const auto& first = shards.front().shard;
    header.reproduce = util::replace_all(header.reproduce, fmt::format(" --shard {}/{}", first.index, first.count),
                                         fmt::format(" --shard K/{} (K = 1..{})", first.count, first.count));
  }
  if (runs.size() > 1) {
    header.shard.reset(); // the merged document lists its shards instead
  }
  auto results = analysis::analyze(cells, report::analysis_settings(header));
  auto document = report::make_document(header, std::move(merged), std::move(results));
  document.partial = partial;
  if (runs.size() > 1) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      document.merged.push_back({files[i], shards.empty() ? std::nullopt : std::optional(shards[i].shard)});
    }
    // cells nobody measured cannot pass: a runner that vanished must not
    // turn into a green merge
    if (!report::missing_shards(document).empty() && document.verdict == analysis::RunVerdict::pass) {
      document.verdict = analysis::RunVerdict::inconclusive;
    }
  }
  return document;
}

int run_report(const ReportOptions& o, const CommonOptions& common) {
  std::vector<report::RunDocument> runs;
  for (const auto& file : o.files) {
    runs.push_back(formats::read_document(file, read_input_file(file)));
  }
  const bool one_results_file = runs.size() == 1 && !runs[0].from_journal;
  const auto document = one_results_file ? runs[0] : analysed_document(runs, o.files);
  if (const auto missing = report::missing_shards(document); !missing.empty() && !common.quiet) {
    std::string list;
    for (std::size_t index : missing) {
      list += (list.empty() ? "" : ", ") + std::to_string(index);
    }
    std::cerr << fmt::format("refbench: warning: shard{} {} of {} missing: the report covers only the cells of the "
                             "shards given, and it cannot pass\n",
                             missing.size() == 1 ? "" : "s", list, report::shards_of(document)->count);
  }
  print_document(document, o.format, common);
  return exit_code_for(document.verdict, o.fail_on);
}

} // namespace refbench::pipeline
