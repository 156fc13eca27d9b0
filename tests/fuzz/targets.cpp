#include "targets.hpp"

#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/config/config.hpp>
#include <refbench/github/comment.hpp>
#include <refbench/github/event.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/runner/record_reader.hpp>
#include <refbench/util/error.hpp>

#include <array>
#include <exception>

namespace refbench::fuzz {
namespace {

// What `analyze` does with the cells it read: the analysis with the
// defaults of the command line.
void analyze(const std::vector<analysis::CellSamples>& cells) {
  analysis::Settings settings; // the defaults, with analyze's fewest pairs
  settings.min_rounds = 2;
  analysis::analyze(cells, settings);
}

// What `analyze` and `report` do with a run read back: its context, the
// analysis of its samples and, for a results.json, the Markdown report.
void reanalyze(const report::RunDocument& run) {
  auto cells = analysis::cell_samples(run.record, run.header.settings.metrics, run.header.settings.gate);
  analysis::analyze(cells, report::analysis_settings(run.header));
  report::render_markdown(run);
  report::to_json(run).dump();
}

void read_config(std::string_view input) { config::parse_config(std::string(input), "refbench.toml"); }

void read_csv(std::string_view input) {
  analyze(analysis::parse_pairs_csv(std::string(input), "pairs.csv", "pairs", analysis::Direction::lower_is_better));
}

void read_hyperfine(std::string_view input) {
  analyze(analysis::parse_hyperfine_json(std::string(input), "hyperfine.json", "hyperfine",
                                         analysis::Direction::lower_is_better));
}

void read_results(std::string_view input) { reanalyze(report::read_document("results.json", std::string(input))); }

void read_journal(std::string_view input) { reanalyze(report::read_document("journal.jsonl", std::string(input))); }

void read_comment(std::string_view input) { github::parse_comment_artifact(std::string(input), "comment.json"); }

// As `run --github` does for each kind of event it knows; refused unless
// one kind takes the payload.
void read_event(std::string_view input) {
  bool taken = false;
  for (const char* name : {"pull_request", "issue_comment", "workflow_dispatch"}) {
    try {
      github::plan_for_event(name, std::string(input), "event.json", "0123abcd");
      taken = true;
    } catch (const UsageError&) {
    } catch (const RefusedError&) {
    }
  }
  if (!taken) {
    throw UsageError("event.json: no kind of event takes it");
  }
}

constexpr std::array k_targets{
    Target{"config", read_config},   Target{"csv", read_csv},         Target{"hyperfine", read_hyperfine},
    Target{"results", read_results}, Target{"journal", read_journal}, Target{"comment", read_comment},
    Target{"event", read_event},
};

} // namespace

std::span<const Target> targets() { return k_targets; }

const Target* find_target(std::string_view name) {
  for (const auto& target : k_targets) {
    if (name == target.name) {
      return &target;
    }
  }
  return nullptr;
}

Outcome run(const Target& target, std::string_view input, std::string& what) {
  try {
    target.read(input);
  } catch (const UsageError&) {
    return Outcome::refused;
  } catch (const RefusedError&) {
    return Outcome::refused;
  } catch (const std::exception& error) {
    what = error.what();
    return Outcome::internal_error;
  } catch (...) {
    what = "an exception that is no std::exception";
    return Outcome::internal_error;
  }
  return Outcome::read;
}

} // namespace refbench::fuzz
