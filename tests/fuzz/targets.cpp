#include "targets.hpp"

#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/config/config.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/github/actions.hpp>
#include <refbench/github/api.hpp>
#include <refbench/github/comment.hpp>
#include <refbench/github/event.hpp>
#include <refbench/history/history.hpp>
#include <refbench/model/command_output.hpp>
#include <refbench/model/suite_rows.hpp>
#include <refbench/profile/callgrind.hpp>
#include <refbench/profile/diff.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/suites/suite.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/outside_text.hpp>
#include <refbench/util/strings.hpp>

#include <array>
#include <cctype>
#include <exception>
#include <fmt/format.h>
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
  model::CellMeta meta;
  model::CustomMetric json{"m", model::ReportSource::stdout_line, model::ReportFormat::json, "m.p99"};
  model::CustomMetric bmf{"b", model::ReportSource::stdout_line, model::ReportFormat::bmf, "bench/latency"};
  meta.custom = {json};
  meta.require = {model::Requirement{"errors", "==", 0}};
  (void)model::read_reported(meta, input);
  (void)model::read_reported(meta, input, true);
  meta.custom = {bmf};
  meta.require.clear();
  (void)model::read_reported(meta, input);
}

// A suite's harness output as each harness's reader takes it, and the
// rows made of it (docs/manual/suites.md): garbage is the suite's ERROR, never an
// exception out of refbench.
void read_suite_outputs(std::string_view input) {
  for (const auto& [harness, name] : suites::k_harness_names.entries()) {
    model::CellMeta meta;
    meta.suite = model::SuiteSpec{harness, model::ReportSource::stdout_line};
    model::RunRecord record;
    record.cells.push_back({"s", false, model::StopReason::max_rounds, 1, std::nullopt, meta});
    for (const auto arm : {model::Arm::baseline, model::Arm::candidate}) {
      model::Sample sample;
      sample.arm = arm;
      sample.round = 1;
      sample.outcome.stdout_text = std::string(input);
      model::read_sample_report(meta, sample, sample.outcome.stdout_text,
                                sample.outcome.stdout_bytes > sample.outcome.stdout_text.size());
      record.samples.push_back(std::move(sample));
    }
    auto rows = model::suite_rows(record).record;
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

// A callgrind out file as an explanation reads it (one per process of a
// counted invocation), then what moved between it and itself read twice and
// the call tree of both: a file refbench cannot read is refused.
void read_callgrind_file(std::string_view input) {
  profile::Profile once;
  profile::Profile twice;
  for (auto* profile : {&once, &twice, &twice}) {
    if (auto read = profile::read_callgrind(*profile, input); !read) {
      throw UsageError("callgrind.out: " + read.error());
    }
  }
  (void)profile::moved_functions(once, twice, 20);
  (void)profile::moved_allocation_sites(once, twice, 20);
  (void)profile::call_tree(once, twice);
}

// ---- names through the renderers -------------------------------------------
// What a harness names (benchmarks, measures, units) must stay text in every
// output (docs/manual/security.md). A rendering that breaks it throws
// std::logic_error: an internal error of the driver.

[[noreturn]] void broken(std::string_view what, std::string_view line) {
  throw std::logic_error(fmt::format("rendered: {}: {}", what, util::printable(util::utf8_prefix(line, 200))));
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// `line` without its code spans, where nothing is markup: a run of backticks
// to the next run of exactly as many (an escaped backtick opens none).
std::string outside_code_spans(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      out += line.substr(i, 2);
      ++i;
      continue;
    }
    if (line[i] != '`') {
      out += line[i];
      continue;
    }
    const std::size_t run = std::min(line.find_first_not_of('`', i), line.size()) - i;
    std::size_t end = i + run;
    while ((end = line.find(std::string(run, '`'), end)) != std::string_view::npos && end + run < line.size() &&
           line[end + run] == '`') {
      end = line.find_first_not_of('`', end);
    }
    if (end == std::string_view::npos) {
      out += line.substr(i, run); // no closing run: literal backticks
      i += run - 1;
    } else {
      i = end + run - 1;
    }
  }
  return out;
}

// Whether `text` (without code spans) holds an '@' GitHub would mention
// someone at: before a login, not after a word character.
bool live_mention(std::string_view text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '@' && std::isalnum(static_cast<unsigned char>(text[i + 1])) != 0 &&
        (i == 0 || !word_char(text[i - 1]))) {
      return true;
    }
  }
  return false;
}

// The '|' of `line` that end table cells: those no backslash escapes.
std::size_t cell_bars(std::string_view line) {
  std::size_t bars = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '|') {
      ++bars;
    }
  }
  return bars;
}

// The fence `text` opens a code block with (3 or more backticks or tildes), or "".
std::string_view opening_fence(std::string_view text) {
  if (!text.starts_with("```") && !text.starts_with("~~~")) {
    return {};
  }
  return text.substr(0, std::min(text.find_first_not_of(text[0]), text.size()));
}

// report.md as a CommonMark reader sees its lines: outside code blocks, one
// ATX heading and no setext one, no line a log reads as a workflow command,
// every table row as wide as its header; outside code spans too, no comment
// but refbench's marker, no <script>, no live mention.
void check_markdown(const std::string& markdown) {
  std::size_t headings = 0;
  std::string fence;
  std::size_t columns = 0;
  std::string_view previous;
  for (const auto line : util::split(markdown, '\n')) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::string_view text = line.substr(indent);
    if (!fence.empty()) {
      if (indent <= 3 && text.starts_with(fence) &&
          util::trim_right(text, " ").find_first_not_of(fence[0]) == std::string_view::npos) {
        fence.clear();
      }
      previous = {};
      continue;
    }
    if (indent <= 3 && !opening_fence(text).empty()) {
      fence = opening_fence(text);
      continue;
    }
    if (text.starts_with("::")) {
      broken("a workflow command line", line);
    }
    const std::string markup = outside_code_spans(line);
    if (markup.find("<!--") != std::string::npos && line != "<!-- refbench -->") {
      broken("an HTML comment", line);
    }
    if (util::ascii_lower(markup).find("<script") != std::string::npos) {
      broken("a <script> tag", line);
    }
    const std::size_t hashes = std::min(text.find_first_not_of('#'), text.size());
    if (indent <= 3 && hashes >= 1 && hashes <= 6 && (hashes == text.size() || text[hashes] == ' ')) {
      ++headings;
    }
    const auto underline = util::trim_right(text, " ");
    if (indent <= 3 && !util::trim(previous).empty() && !underline.empty() &&
        (underline.find_first_not_of('=') == std::string_view::npos ||
         underline.find_first_not_of('-') == std::string_view::npos)) {
      broken("a setext heading", line);
    }
    if (line.starts_with('|')) {
      const std::size_t bars = cell_bars(line);
      if (columns == 0) {
        columns = bars;
      } else if (bars != columns) {
        broken(fmt::format("a table row of {} bars in a table of {}", bars, columns), line);
      }
    } else {
      columns = 0;
    }
    if (live_mention(markup)) {
      broken("a live mention", line);
    }
    previous = line;
  }
  if (headings != 1) {
    broken(fmt::format("{} headings", headings), markdown);
  }
}

// `name` through each output's writer (util/outside_text.hpp).
void check_name(std::string_view name) {
  const std::string markdown = util::markdown_text(name);
  if (markdown.find_first_of("\n\r<>") != std::string::npos || live_mention(markdown) || cell_bars(markdown) != 0 ||
      util::trim_left(markdown, " ").starts_with("::") || util::trim_left(markdown, " ").starts_with('#')) {
    broken("markdown_text", markdown);
  }
  if (util::markdown_code(name).find_first_of("\n\r") != std::string::npos) {
    broken("markdown_code", name);
  }
  if (util::html_text(name).find_first_of("<>\"'\n\r") != std::string::npos) {
    broken("html_text", name);
  }
  if (util::workflow_data(name).find_first_of("\n\r") != std::string::npos ||
      util::workflow_property(name).find_first_of("\n\r:,") != std::string::npos) {
    broken("workflow_data or workflow_property", name);
  }
}

// Names a harness chose through the renderers: the input read as each
// harness's output (three rounds of it per arm), its rows analyzed and
// rendered as report.md, the terminal's table and the annotations; and
// each line of the input as a name through each output's writer.
void render_suite_names(std::string_view input) {
  for (const auto& [harness, name] : suites::k_harness_names.entries()) {
    model::CellMeta meta;
    meta.suite = model::SuiteSpec{harness, model::ReportSource::stdout_line};
    model::RunRecord record;
    record.cells.push_back({"s", false, model::StopReason::max_rounds, 3, std::nullopt, meta});
    for (int round = 1; round <= 3; ++round) {
      for (const auto arm : {model::Arm::baseline, model::Arm::candidate}) {
        model::Sample sample;
        sample.arm = arm;
        sample.round = round;
        sample.outcome.stdout_text = std::string(input);
        model::read_sample_report(meta, sample, sample.outcome.stdout_text,
                                  sample.outcome.stdout_bytes > sample.outcome.stdout_text.size());
        record.samples.push_back(std::move(sample));
      }
    }
    auto rows = model::suite_rows(record).record;
    analysis::Settings settings;
    settings.min_rounds = 2;
    const auto results = analysis::analyze(analysis::cell_samples(rows, {}, {}), settings);
    check_markdown(report::render_markdown(report::make_document({}, std::move(rows), results)));
    const auto table =
        util::without_workflow_commands(report::render_verdict_table(results, report::VerdictColour::ansi));
    const std::size_t columns = cell_bars(table.substr(0, table.find('\n')));
    for (const auto line : util::split(table, '\n')) {
      if (util::trim_left(line, " \t").starts_with("::")) {
        broken("a workflow command line on the terminal", line);
      }
      if (!line.empty() && cell_bars(line) != columns) {
        broken("a terminal table row of another width", line);
      }
    }
    std::vector<github::Regression> regressions; // every row annotated, whatever it read
    for (const auto& r : results) {
      regressions.push_back({r.cell, r.metric, r.ratio, r.ci_low, r.ci_high, 1.15, ""});
    }
    for (const auto& line : github::regression_annotations(regressions, regressions.size())) {
      const auto end = line.find("::", 2);
      if (!line.starts_with("::error title=") || line.find_first_of("\r\n") != std::string::npos ||
          line.substr(0, end).find(':', 2) != std::string::npos) {
        broken("an annotation", line);
      }
    }
  }
  for (const auto line : util::split(input, '\n')) {
    check_name(line);
  }
}

constexpr std::array k_targets{
    Target{"config", read_config},
    Target{"csv", read_csv},
    Target{"hyperfine", read_hyperfine},
    Target{"results", read_results},
    Target{"journal", read_journal},
    Target{"comment", read_comment},
    Target{"event", read_event},
    Target{"reported", read_reported},
    Target{"history", read_history_lines},
    Target{"api", read_api},
    Target{"suite", read_suite_outputs},
    Target{"rendered", render_suite_names},
    Target{"callgrind", read_callgrind_file},
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
