#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/cli/analyze_command.hpp>
#include <refbench/cli/outputs.hpp>
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
#include <string>
#include <unordered_set>

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

// The flag `key`'s value, checked by the setting's rule; else the analysed
// run's `recorded` value (checked when it was read); else `fallback`.
double flag_value(std::string_view key, const std::optional<double>& flag, const nlohmann::json& recorded,
                  double fallback) {
  if (!flag) {
    return recorded.value(std::string(key), fallback);
  }
  if (auto problem = config::number_problem(key, *flag)) {
    throw UsageError(config::problem_message(key, config::flag_of(key), *problem));
  }
  return *flag;
}

} // namespace

CLI::App* add_analyze_command(CLI::App& app, AnalyzeOptions& o) {
  CLI::App* cmd = app.add_subcommand("analyze", "Statistics and verdicts from samples made elsewhere");
  cmd->add_option("files", o.files, "results.json, journal.jsonl, hyperfine --export-json or CSV files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--threshold", o.threshold,
                  fmt::format("Ratio beyond which a change is a regression (default: the run's, else {})",
                              config::k_default_threshold));
  cmd->add_option(
      "--alpha", o.alpha,
      fmt::format("False discovery rate for regressions (default: the run's, else {})", config::k_default_alpha));
  cmd->add_option("--better", o.better, "Direction of CSV/hyperfine values: lower or higher")
      ->check(CLI::IsMember({"lower", "higher"}))
      ->capture_default_str();
  add_format_option(*cmd, o.format);
  add_interval_option(*cmd, o.interval, "Interval: signed-rank or bootstrap (default: the run's, else signed-rank)");
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
  std::unordered_set<std::string> names; // of the cells so far: a scan per cell would be quadratic
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
      if (!names.insert(cell.name).second) {
        throw UsageError(fmt::format("cell '{}' appears in more than one input", cell.name),
                         "give each file's cells distinct names (CSV: a `cell` column)");
      }
      cell.group = group;
      cells.push_back(std::move(cell));
    }
  }
  // a flag wins; else what the (first) refbench run recorded; else the default
  const double threshold = flag_value("threshold", o.threshold, recorded, config::k_default_threshold);
  const double alpha = flag_value("alpha", o.alpha, recorded, config::k_default_alpha);
  const auto interval =
      o.interval
          ? *o.interval
          : analysis::parse_interval(recorded.value("interval", "")).value_or(analysis::IntervalMethod::signed_rank);
  analysis::Settings settings;
  settings.threshold = threshold;
  settings.alpha = alpha;
  settings.confidence = config::k_confidence;
  settings.min_rounds = min_rounds;
  settings.interval = interval;
  settings.seed = seed.value_or(0);
  auto results = analysis::analyze(cells, settings);
  const auto verdict = analysis::overall_verdict(results);

  nlohmann::json analysis_json = nlohmann::json::array();
  for (const auto& r : results) {
    analysis_json.push_back(report::to_json(r));
  }
  nlohmann::json document{{"schema_version", 1},
                          {"tool", {{"name", "refbench"}, {"version", k_version}}},
                          {"command", "analyze"},
                          {"inputs", o.files},
                          {"seed", settings.seed},
                          {"verdict", analysis::run_verdict_name(verdict)},
                          {"partial", partial},
                          {"settings",
                           {{"threshold", threshold},
                            {"alpha", alpha},
                            {"min_rounds", min_rounds},
                            {"interval", analysis::interval_name(interval)},
                            {"better", o.better}}},
                          {"analysis", std::move(analysis_json)}};
  if (!arms.is_null()) {
    document["arms"] = arms;
    document["environment"] = environment;
    document["cells"] = run_cells;
  }
  if (o.format == OutputFormat::json) {
    std::cout << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (o.format == OutputFormat::csv) {
    std::cout << printable_csv(report::render_csv(results));
  } else {
    print_markdown(document, common);
  }
  return exit_code_for(verdict, o.fail_on);
}

} // namespace refbench::cli
