#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/config/config.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/pipeline/analyze.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
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

namespace refbench::pipeline {
namespace {

namespace fs = std::filesystem;

// One input file: its cells and, for a refbench run, its document.
struct Loaded {
  std::vector<analysis::CellSamples> cells;
  std::optional<report::RunDocument> run; // a refbench journal or results.json
};

Loaded from_run(report::RunDocument run) {
  const auto& settings = run.header.settings;
  Loaded loaded{analysis::cell_samples(run.record, settings.metrics, settings.gate), std::nullopt};
  loaded.run = std::move(run);
  return loaded;
}

// Reads one FILE by its kind: a refbench journal or results.json, a
// hyperfine export, or a CSV of pairs.
Loaded load(const std::string& path, analysis::Direction direction) {
  const std::string text = read_input_file(path);
  const std::string stem = fs::path(path).stem().string();
  if (formats::looks_like_journal(path, text)) {
    return from_run(formats::read_document(path, text));
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
    return from_run(formats::document_from_json(*document, path));
  }
  loaded.cells = analysis::parse_pairs_csv(text, path, stem, direction);
  return loaded;
}

// The analysis settings of `o` through config::resolve: the flags over
// what `first_run` recorded over the defaults.
config::MeasurementSettings analysis_settings(const AnalyzeOptions& o, const report::RunDocument* first_run) {
  const std::string recorded_origin = "the analysed run";
  config::MeasurementFlags flags;
  flags.threshold = o.threshold;
  flags.alpha = o.alpha;
  flags.interval = o.interval;
  config::RunConfig recorded; // the analysed run's settings, as a layer under the flags
  if (first_run != nullptr) {
    recorded.threshold = first_run->header.settings.threshold;
    recorded.alpha = first_run->header.settings.alpha;
    recorded.source = recorded_origin;
  }
  auto settings = config::resolve(flags, first_run != nullptr ? &recorded : nullptr, config::k_compare_defaults);
  if (!o.interval && first_run != nullptr) {
    settings.interval = {first_run->header.settings.interval, recorded_origin};
  }
  return settings;
}

// The header of the analysis of `files`: the flags over what the first
// refbench run among them recorded over the defaults; its arms and machine.
report::RunHeader analysis_header(const AnalyzeOptions& o, const report::RunDocument* first_run, std::size_t min_rounds,
                                  std::optional<std::uint64_t> seed) {
  report::RunHeader header;
  header.command = "analyze";
  const auto settings = analysis_settings(o, first_run);
  auto& s = header.settings;
  s.threshold = settings.threshold.value;
  s.alpha = settings.alpha.value;
  s.interval = settings.interval.value;
  s.min_rounds = static_cast<int>(min_rounds);
  s.better = o.better;
  header.seed = seed.value_or(0);
  if (first_run) {
    header.baseline = first_run->header.baseline;
    header.candidate = first_run->header.candidate;
    header.environment = first_run->header.environment;
  }
  return header;
}

} // namespace

int run_analyze(const AnalyzeOptions& o, const CommonOptions& common) {
  const auto direction = o.better;
  std::vector<analysis::CellSamples> cells;
  std::unordered_set<std::string> names;
  std::size_t min_rounds = 2;
  std::optional<std::uint64_t> seed = o.seed;
  bool partial = false;
  std::optional<report::RunDocument> first_run;
  model::RunRecord runs; // the cells and samples of every refbench run given
  for (std::size_t group = 0; group < o.files.size(); ++group) {
    auto loaded = load(o.files[group], direction);
    if (loaded.run) {
      min_rounds = std::max(min_rounds, static_cast<std::size_t>(loaded.run->header.settings.min_rounds));
      seed = seed ? seed : loaded.run->header.seed;
      partial = partial || loaded.run->partial;
      model::append_record(runs, loaded.run->record);
      if (!first_run) {
        first_run = std::move(loaded.run);
      }
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
  const auto header = analysis_header(o, first_run ? &*first_run : nullptr, min_rounds, seed);
  const auto settings = report::analysis_settings(header);
  report::RunDocument document;
  document.header = header;
  document.results = analysis::analyze(cells, settings);
  document.verdict = analysis::overall_verdict(document.results);
  document.partial = partial;
  document.inputs = o.files;
  if (first_run) {
    document.record = std::move(runs);
  }
  print_document(document, o.format, common);
  return exit_code_for(document.verdict, o.fail_on);
}

} // namespace refbench::pipeline
