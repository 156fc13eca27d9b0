#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/cli/analyze_command.hpp>
#include <refbench/cli/common.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/report_model.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/runner/record_reader.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>
#include <refbench/version.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>

namespace refbench::cli {
namespace {

namespace fs = std::filesystem;

std::vector<runner::Metric> metric_names(const nlohmann::json& settings, const char* key,
                                         std::vector<runner::Metric> fallback) {
  if (!settings.contains(key)) {
    return fallback;
  }
  std::vector<runner::Metric> metrics;
  for (const auto& name : settings[key]) { // strings: the reader checked them
    if (auto parsed = runner::parse_metric_list(name.get<std::string>())) {
      metrics.insert(metrics.end(), parsed->begin(), parsed->end());
    }
  }
  return metrics;
}

struct Loaded {
  std::vector<analysis::CellSamples> cells;
  std::size_t min_rounds = 2;
  std::optional<std::uint64_t> seed;
  bool partial = false;
  nlohmann::json settings;   // a refbench run's recorded settings ({} otherwise)
  nlohmann::json cells_json; // a refbench run's cells with samples (null otherwise)
  nlohmann::json arms;
  nlohmann::json environment;
};

Loaded from_run(const runner::ReadRun& run) {
  Loaded loaded;
  loaded.partial = run.partial;
  loaded.seed = run.record.seed;
  loaded.settings = run.settings;
  loaded.min_rounds = static_cast<std::size_t>(run.settings.value("min_rounds", 10));
  loaded.cells = analysis::cell_samples(run.record, metric_names(run.settings, "metrics", {runner::Metric::wall}),
                                        metric_names(run.settings, "gate", {runner::Metric::wall}));
  loaded.cells_json = report::cells_json(run.record);
  loaded.arms = run.arms;
  loaded.environment = run.environment;
  return loaded;
}

// Reads one FILE by its kind: a refbench journal or results.json, a
// hyperfine export, or a CSV of pairs.
Loaded load(const std::string& path, analysis::Direction direction) {
  const std::string text = read_input_file(path);
  const std::string stem = fs::path(path).stem().string();
  if (runner::looks_like_journal(path, text)) {
    return from_run(runner::read_journal(text, path));
  }
  Loaded loaded;
  const std::string_view body = util::without_bom(text);
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] == '{') {
    auto document = util::parse_json(body);
    if (!document) {
      throw UsageError(fmt::format("{}: {}", path, document.error()),
                       "pass a refbench results.json, a hyperfine --export-json file or a CSV");
    }
    if (document->contains("results")) {
      loaded.cells = analysis::parse_hyperfine_json(text, path, stem, direction);
      return loaded;
    }
    return from_run(runner::read_results(*document, path));
  }
  loaded.cells = analysis::parse_pairs_csv(text, path, stem, direction);
  return loaded;
}

} // namespace

CLI::App* add_analyze_command(CLI::App& app, AnalyzeOptions& o) {
  CLI::App* cmd = app.add_subcommand("analyze", "Statistics and verdicts from samples made elsewhere");
  cmd->add_option("files", o.files, "results.json, journal.jsonl, hyperfine --export-json or CSV files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--threshold", o.threshold,
                  "Ratio beyond which a change is a regression (default: the run's, else 1.15)");
  cmd->add_option("--alpha", o.alpha, "False discovery rate for regressions (default: the run's, else 0.05)");
  cmd->add_option("--better", o.better, "Direction of CSV/hyperfine values: lower or higher")
      ->check(CLI::IsMember({"lower", "higher"}))
      ->capture_default_str();
  add_format_option(*cmd, o.format);
  cmd->add_option("--interval", o.interval, "Interval: signed-rank or bootstrap (default: the run's, else signed-rank)")
      ->check(CLI::IsMember({"signed-rank", "bootstrap"}));
  add_fail_on_option(*cmd, o.fail_on);
  cmd->add_option("--seed", o.seed, "Seed of the bootstrap (default: the run's seed, else 0)")->check(check_seed);
  return cmd;
}

int run_analyze(const AnalyzeOptions& o, const CommonOptions& common) {
  const auto direction =
      o.better == "higher" ? analysis::Direction::higher_is_better : analysis::Direction::lower_is_better;
  std::vector<analysis::CellSamples> cells;
  std::size_t min_rounds = 2;
  std::optional<std::uint64_t> seed = o.seed;
  bool partial = false;
  nlohmann::json recorded = nlohmann::json::object(); // the first refbench run's settings
  nlohmann::json run_cells = nlohmann::json::array();
  nlohmann::json arms;
  nlohmann::json environment;
  for (std::size_t group = 0; group < o.files.size(); ++group) {
    auto loaded = load(o.files[group], direction);
    min_rounds = std::max(min_rounds, loaded.min_rounds);
    seed = seed ? seed : loaded.seed;
    partial = partial || loaded.partial;
    if (!loaded.settings.is_null() && recorded.empty()) {
      recorded = loaded.settings;
      arms = loaded.arms;
      environment = loaded.environment;
    }
    if (loaded.cells_json.is_array()) {
      run_cells.insert(run_cells.end(), loaded.cells_json.begin(), loaded.cells_json.end());
    }
    for (auto& cell : loaded.cells) {
      if (std::any_of(cells.begin(), cells.end(), [&](const auto& c) { return c.name == cell.name; })) {
        throw UsageError(fmt::format("cell '{}' appears in more than one input", cell.name),
                         "give each file's cells distinct names (CSV: a `cell` column)");
      }
      cell.group = group;
      cells.push_back(std::move(cell));
    }
  }
  // a flag wins; else what the (first) refbench run recorded; else the default
  const double threshold = o.threshold.value_or(recorded.value("threshold", 1.15));
  const double alpha = o.alpha.value_or(recorded.value("alpha", 0.05));
  const std::string interval = o.interval.value_or(recorded.value("interval", std::string("signed-rank")));
  if (!(std::isfinite(threshold) && threshold > 1.0)) {
    throw UsageError(fmt::format("--threshold must be a finite ratio above 1 (e.g. 1.15), got {}", threshold));
  }
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw UsageError(fmt::format("--alpha must be between 0 and 1, got {}", alpha));
  }
  const auto settings = analysis_settings(threshold, alpha, static_cast<int>(min_rounds), interval, seed.value_or(0));
  auto results = analysis::analyze(cells, settings);
  const std::string verdict = analysis::overall_verdict(results);

  nlohmann::json analysis_json = nlohmann::json::array();
  for (const auto& r : results) {
    analysis_json.push_back(report::to_json(r));
  }
  nlohmann::json document{{"schema_version", 1},
                          {"tool", {{"name", "refbench"}, {"version", k_version}}},
                          {"command", "analyze"},
                          {"inputs", o.files},
                          {"seed", settings.seed},
                          {"verdict", verdict},
                          {"partial", partial},
                          {"settings",
                           {{"threshold", threshold},
                            {"alpha", alpha},
                            {"min_rounds", min_rounds},
                            {"interval", interval},
                            {"better", o.better}}},
                          {"analysis", std::move(analysis_json)}};
  if (!arms.is_null()) {
    document["arms"] = arms;
    document["environment"] = environment;
    document["cells"] = run_cells;
  }
  if (o.format == "json") {
    std::cout << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (o.format == "csv") {
    std::cout << printable_csv(report::render_csv(results));
  } else {
    print_markdown(document, common);
  }
  return exit_code_for(verdict, o.fail_on);
}

} // namespace refbench::cli
