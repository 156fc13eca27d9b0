#include "targets.hpp"

#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/config/config.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/github/api.hpp>
#include <refbench/github/comment.hpp>
#include <refbench/github/event.hpp>
#include <refbench/history/history.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/runner/command_output.hpp>
#include <refbench/runner/suite_rows.hpp>
#include <refbench/suites/suite.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>

#include <array>
#include <exception>
#include <stdexcept>

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
  formats::to_json(run).dump();
}

void read_config(std::string_view input) { config::parse_config(std::string(input), "refbench.toml"); }

void read_csv(std::string_view input) {
  analyze(analysis::parse_pairs_csv(std::string(input), "pairs.csv", "pairs", analysis::Direction::lower_is_better));
}

void read_hyperfine(std::string_view input) {
  analyze(analysis::parse_hyperfine_json(std::string(input), "hyperfine.json", "hyperfine",
                                         analysis::Direction::lower_is_better));
}

void read_results(std::string_view input) { reanalyze(formats::read_document("results.json", std::string(input))); }

void read_journal(std::string_view input) { reanalyze(formats::read_document("journal.jsonl", std::string(input))); }

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

// What a cell prints last (or leaves at {output}), as every metric format
// and a requirement read it. A cell that reports garbage is an ERROR of its
// own; only an exception out of the reader would be refbench's fault.
void read_reported(std::string_view input) {
  runner::CellMeta meta;
  runner::CustomMetric json{"m", runner::ReportSource::stdout_line, runner::ReportFormat::json, "m.p99"};
  runner::CustomMetric bmf{"b", runner::ReportSource::stdout_line, runner::ReportFormat::bmf, "bench/latency"};
  meta.custom = {json};
  meta.require = {runner::Requirement{"errors", "==", 0}};
  (void)runner::read_reported(meta, input);
  (void)runner::read_reported(meta, input, true);
  meta.custom = {bmf};
  meta.require.clear();
  (void)runner::read_reported(meta, input);
}

// A suite's harness output as each harness's reader takes it, and the
// rows made of it (README: Suites): garbage is the suite's ERROR, never an
// exception out of refbench.
void read_suite_outputs(std::string_view input) {
  for (const auto& [harness, name] : suites::k_harness_names.entries()) {
    runner::CellMeta meta;
    meta.suite = runner::SuiteSpec{harness, runner::ReportSource::stdout_line};
    runner::RunRecord record;
    record.cells.push_back({"s", false, runner::StopReason::max_rounds, 1, std::nullopt, meta});
    for (const auto arm : {runner::Arm::baseline, runner::Arm::candidate}) {
      runner::Sample sample;
      sample.arm = arm;
      sample.round = 1;
      sample.outcome.stdout_text = std::string(input);
      runner::read_sample_report(meta, sample, "");
      record.samples.push_back(std::move(sample));
    }
    auto rows = runner::suite_rows(record).record;
    analyze(analysis::cell_samples(rows, {}, {}));
  }
}

// Each line of a history.jsonl as read_history takes it: parsed with the
// limits, then checked field by field; a bad line is skipped.
void read_history_lines(std::string_view input) {
  std::size_t begin = 0;
  while (begin < input.size()) {
    const auto end = std::min(input.find('\n', begin), input.size());
    if (auto line = util::parse_json(input.substr(begin, end - begin))) {
      std::string problem;
      (void)history::record_from_json(*line, problem);
    }
    begin = end + 1;
  }
}

// A transport that answers every request with the fuzzed body (and, on a
// listing, a Link to a next page that is the same page).
class FuzzedTransport : public github::Transport {
public:
  explicit FuzzedTransport(std::string_view body) : m_body(body) {}
  github::HttpOutcome perform(const github::HttpRequest& request) override {
    if (++m_requests > 8) {
      throw std::logic_error("more than 8 requests for one comment");
    }
    std::map<std::string, std::string> headers;
    if (request.method == "GET" && m_requests == 1) {
      headers["link"] = "<" + request.url + ">; rel=\"next\"";
    }
    return github::HttpResponse{request.method == "POST" ? 201L : 200L, headers, m_body};
  }

private:
  std::string m_body;
  int m_requests = 0;
};

// `comment` over an API whose every answer is the input: the listing, the
// created or updated comment.
void read_api(std::string_view input) {
  FuzzedTransport transport(input);
  github::ApiSettings settings;
  settings.token = "ghp_fuzz";
  settings.retry.max_wait_seconds = 60;
  github::Api api(
      settings, transport, [](double) {}, [] { return 1'700'000'000.0; });
  github::upsert_comment(api, "o/r", 7, "<!-- refbench -->", "<!-- refbench -->\nreport");
}

constexpr std::array k_targets{
    Target{"config", read_config},         Target{"csv", read_csv},
    Target{"hyperfine", read_hyperfine},   Target{"results", read_results},
    Target{"journal", read_journal},       Target{"comment", read_comment},
    Target{"event", read_event},           Target{"reported", read_reported},
    Target{"history", read_history_lines}, Target{"api", read_api},
    Target{"suite", read_suite_outputs},
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
