#include <refbench/analysis/from_record.hpp>
#include <refbench/cli/outputs.hpp>
#include <refbench/cli/report_command.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/report_model.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/runner/record_reader.hpp>
#include <refbench/runner/shard.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

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

// README: run --shard: the `shard` records of `runs` (read from `files`), refused
// unless they are distinct shards of one run; empty when none is a shard.
std::vector<runner::ShardIdentity> checked_shards(const std::vector<runner::ReadRun>& runs,
                                                  const std::vector<std::string>& files) {
  std::vector<runner::ShardIdentity> shards;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const bool is_shard = runs[i].header.contains("shard");
    if (is_shard != runs[0].header.contains("shard")) {
      const std::size_t shard = is_shard ? i : 0;
      throw UsageError(fmt::format("cannot merge {} with {}: {} is not from a `run --shard`", files[shard],
                                   files[shard == 0 ? i : 0], files[shard == 0 ? i : 0]),
                       "merge only the results.json (or journal.jsonl) files of the shards of one run");
    }
    if (!is_shard) {
      for (const char* arm : {"baseline", "candidate"}) {
        const auto sha = [&](const nlohmann::json& header) {
          const auto& arms = header.value("arms", nlohmann::json::object());
          return arms.value(arm, nlohmann::json::object()).value("sha", std::string());
        };
        if (sha(runs[i].header) != sha(runs[0].header)) {
          throw UsageError(fmt::format("cannot merge {} with {}: different {} commits: {} vs {}", files[i], files[0],
                                       arm, sha(runs[i].header).substr(0, 12), sha(runs[0].header).substr(0, 12)),
                           "merge only results of the same two commits, or report each file on its own");
        }
      }
      continue;
    }
    shards.push_back(runner::shard_identity_from_json(runs[i].header.at("shard"), files[i]));
    for (std::size_t earlier = 0; earlier + 1 < shards.size(); ++earlier) {
      if (auto difference = runner::shard_mismatch(shards[earlier], shards.back())) {
        const bool twice = shards[earlier].shard == shards.back().shard;
        throw UsageError(fmt::format("cannot merge {} with {}: {}", files[i], files[earlier], *difference),
                         twice ? "pass each shard's results once"
                               : "merge the shards of one run: every job of the matrix needs the same refs, "
                                 "config, settings, seed and shard count N (see the README's sharded workflow)");
      }
    }
  }
  return shards;
}

} // namespace

std::vector<std::size_t> missing_shards(const nlohmann::json& document) {
  std::vector<std::size_t> missing;
  const auto shards = document.value("shards", nlohmann::json::array());
  if (shards.empty() || !shards.front().contains("count")) {
    return missing;
  }
  const auto count = shards.front().at("count").get<std::size_t>();
  for (std::size_t index = 1; index <= count; ++index) {
    if (std::none_of(shards.begin(), shards.end(),
                     [&](const auto& s) { return s.value("index", std::size_t{0}) == index; })) {
      missing.push_back(index);
    }
  }
  return missing;
}

nlohmann::json analysed_document(const std::vector<runner::ReadRun>& runs, const std::vector<std::string>& files) {
  const auto shards = checked_shards(runs, files);
  auto context = report::context_from_json(runs.front().header);
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
  if (runs.size() > 1 && !shards.empty()) { // one run's command line, every shard's
    const auto& first = shards.front().shard;
    context.reproduce = util::replace_all(context.reproduce, fmt::format(" --shard {}/{}", first.index, first.count),
                                          fmt::format(" --shard K/{} (K = 1..{})", first.count, first.count));
  }
  if (runs.size() > 1) {
    context.shard = nullptr; // the merged document lists its shards instead
  }
  const auto settings = report::analysis_settings(context);
  auto document = report::results_json(merged, context, analysis::analyze(cells, settings));
  document["partial"] = partial;
  if (runs.size() > 1) {
    document["shards"] = nlohmann::json::array();
    for (std::size_t i = 0; i < files.size(); ++i) {
      nlohmann::json entry{{"file", files[i]}};
      if (!shards.empty()) {
        entry["index"] = shards[i].shard.index;
        entry["count"] = shards[i].shard.count;
      }
      document["shards"].push_back(std::move(entry));
    }
    // cells nobody measured cannot pass: a runner that vanished must not
    // turn into a green merge
    if (!missing_shards(document).empty() && document.value("verdict", std::string()) == "pass") {
      document["verdict"] = "inconclusive";
    }
  }
  return document;
}

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
  if (const auto missing = missing_shards(document); !missing.empty() && !common.quiet) {
    std::string list;
    for (std::size_t index : missing) {
      list += (list.empty() ? "" : ", ") + std::to_string(index);
    }
    std::cerr << fmt::format("refbench: warning: shard{} {} of {} missing: the report covers only the cells of the "
                             "shards given, and it cannot pass\n",
                             missing.size() == 1 ? "" : "s", list,
                             document["shards"].front()["count"].get<std::size_t>());
  }
  const auto model = report::read_model(document);
  if (o.format == OutputFormat::json) {
    std::cout << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (o.format == OutputFormat::csv) {
    std::cout << printable_csv(report::render_csv(model.results));
  } else {
    print_markdown(document, common);
  }
  return exit_code_for(document.value("verdict", std::string("inconclusive")), o.fail_on);
}

} // namespace refbench::cli
