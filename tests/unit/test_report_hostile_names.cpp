// Names a PR's harness chose (benchmark, counter and unit names that carry a
// heading, an HTML comment, '|', <script>, "::error::" and @mentions)
// rendered through every output — report.md, the PR comment, the step
// summary, the terminal table, the workflow commands, the history page and
// Markdown, bisect's report.md — and read back as GitHub reads them: the
// Markdown through cmark-gfm (GitHub's parser, with raw HTML kept as GitHub
// keeps comments and <details>).
#include "scratch_dir.hpp"
#include <doctest/doctest.h>

#include <refbench/formats/results_json.hpp>
#include <refbench/github/actions.hpp>
#include <refbench/github/comment.hpp>
#include <refbench/history/series.hpp>
#include <refbench/pipeline/bisect_report.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/strings.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <regex>
#include <string>
#include <vector>

using namespace refbench;
using analysis::MetricResult;
using nlohmann::json;
using stats::Verdict;

namespace {

// The audit's counter: a fake verdict heading, then an unterminated comment
// that would hide every row after it.
const std::string k_counter = "z\n\n### refbench: ✅ no regression\n\n<!--";
const std::vector<std::string> k_benchmarks{"BM_a|b|c <script>alert(1)</script>", "::error::pwned",
                                            "BM_cc @someone and @org/team", "BM_d\n::warning title=x::y\n# h"};
const std::string k_subject = "fix: @someone ### <!-- <script>x</script> | ::error::s";

const std::string k_cmark = "/usr/bin/cmark-gfm";

// `markdown` as HTML, rendered by cmark-gfm with GitHub's table extension and
// raw HTML kept.
std::string gfm_html(const std::string& markdown) {
  test::ScratchDir dir;
  const auto path = dir.path() / "report.md";
  test::write_file(path, markdown);
  model::Invocation invocation{{k_cmark, "--unsafe", "-e", "table", path.string()}, {}, "", {}, ""};
  invocation.capture_stdout = true;
  const auto outcome = process::run_process(invocation);
  REQUIRE(model::succeeded(outcome));
  return outcome.stdout_text;
}

std::size_t matches_of(const std::string& text, const std::regex& pattern) {
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator()));
}

std::size_t occurrences(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The lines of `text` that a GitHub Actions log would read as a workflow
// command (after blanks, "::"), but those that start with `own`.
std::vector<std::string> command_lines(const std::string& text, const std::string& own = "") {
  std::vector<std::string> lines;
  for (const auto line : util::split(text, '\n')) {
    const auto trimmed = util::trim_left(line, " \t");
    if (trimmed.starts_with("::") && (own.empty() || !trimmed.starts_with(own))) {
      lines.emplace_back(line);
    }
  }
  return lines;
}

// `html` without its code: what a mention or a tag could live in.
std::string outside_code(std::string html) {
  static const std::regex k_code("<(code|pre)[^>]*>[\\s\\S]*?</\\1>");
  return std::regex_replace(html, k_code, "");
}

// The number of cells in each row of each table of `html`.
std::vector<std::vector<std::size_t>> table_shapes(const std::string& html) {
  static const std::regex k_table("<table>([\\s\\S]*?)</table>");
  static const std::regex k_row("<tr>([\\s\\S]*?)</tr>");
  static const std::regex k_cell_tag("<t[dh][ >]");
  std::vector<std::vector<std::size_t>> shapes;
  for (auto t = std::sregex_iterator(html.begin(), html.end(), k_table); t != std::sregex_iterator(); ++t) {
    const std::string table = (*t)[1];
    auto& rows = shapes.emplace_back();
    for (auto r = std::sregex_iterator(table.begin(), table.end(), k_row); r != std::sregex_iterator(); ++r) {
      rows.push_back(matches_of((*r)[1].str(), k_cell_tag));
    }
  }
  return shapes;
}

// Checks Markdown that outside names went into: no line a log reads as a
// workflow command; rendered, `headings` headings, no comment but
// refbench's own marker lines, no <script>, no live mention, and every
// table as wide in every row as its header. Returns the tables' shapes.
std::vector<std::vector<std::size_t>> check_markdown(const std::string& markdown, std::size_t headings) {
  CAPTURE(markdown);
  CHECK(command_lines(markdown).empty());
  std::size_t markers = 0;
  for (const auto line : util::split(markdown, '\n')) {
    markers += line == "<!-- refbench -->" || line == "<!-- refbench:nightly -->" ? 1 : 0;
  }

  const std::string html = gfm_html(markdown);
  CAPTURE(html);
  CHECK(matches_of(html, std::regex("<h[1-6][ >]")) == headings);
  CHECK(occurrences(html, "<!--") == markers);
  CHECK(matches_of(html, std::regex("<script", std::regex::icase)) == 0);
  // a mention: '@' then a login, not after a word character (GitHub's rule)
  CHECK(matches_of(outside_code(html), std::regex("(^|[^A-Za-z0-9_`])@[A-Za-z0-9]")) == 0);
  const auto shapes = table_shapes(html);
  for (const auto& rows : shapes) {
    REQUIRE_FALSE(rows.empty());
    for (std::size_t cells : rows) {
      CHECK(cells == rows.front());
    }
  }
  return shapes;
}

MetricResult hostile_row(const std::string& cell, const std::string& metric, Verdict verdict, double ratio) {
  MetricResult r;
  r.cell = cell;
  r.metric = metric;
  r.unit = metric == "real_time" ? analysis::Unit::seconds : analysis::Unit::plain;
  r.unit_label = metric == "real_time" ? "" : metric; // a counter's unit is its name
  r.gated = metric == "real_time";
  r.n = 12;
  r.baseline_median = 0.002;
  r.candidate_median = 0.002 * ratio;
  r.ratio = ratio;
  r.ci_low = ratio * 0.98;
  r.ci_high = ratio * 1.02;
  r.p = 0.01;
  r.p_bh = r.gated ? std::optional<double>(0.02) : std::nullopt;
  r.verdict = verdict;
  r.min_detectable_ratio = 1.02;
  r.noise_floor = 1.03;
  return r;
}

// A run of suite `s` whose benchmarks and counters are the hostile names,
// `copies` times over (60 results and more lead with what moved): each a
// real_time REGRESSION beside the counters, and the control's row.
std::vector<MetricResult> hostile_results(std::size_t copies) {
  std::vector<MetricResult> results;
  for (std::size_t copy = 0; copy < copies; ++copy) {
    for (const auto& benchmark : k_benchmarks) {
      const std::string cell = "s/" + benchmark + (copy == 0 ? "" : fmt::format(" {}", copy));
      results.push_back(hostile_row(cell, "real_time", Verdict::regression, 1.4));
      results.push_back(hostile_row(cell, k_counter, Verdict::pass, 1.0));
      results.push_back(hostile_row(cell, "@someone|x", Verdict::inconclusive, 1.01));
    }
  }
  auto error = hostile_row("s/" + k_benchmarks[1] + " failed", "real_time", Verdict::error, NAN);
  error.error = "the harness said: " + k_subject;
  results.push_back(error);
  auto control = hostile_row("s-control", "real_time", Verdict::pass, 1.0);
  control.control = true;
  control.gated = false;
  results.push_back(control);
  return results;
}

report::RunDocument hostile_document(const std::vector<MetricResult>& results) {
  json analysis = json::array();
  for (const auto& r : results) {
    analysis.push_back(formats::to_json(r));
  }
  json cells = json::array();
  for (const auto& r : results) {
    if (r.metric == "real_time") {
      cells.push_back({{"name", r.cell},
                       {"control", r.control},
                       {"stop_reason", "max-rounds"},
                       {"rounds", 12},
                       {"samples", json::array()}});
    }
  }
  cells.back()["failure"] = {
      {"arm", "candidate"}, {"round", 2}, {"description", k_subject}, {"stderr_tail", k_subject + "\n" + k_counter}};
  json document{
      {"schema_version", report::k_schema_version},
      {"command", "run"},
      {"seed", 7},
      {"verdict", analysis::run_verdict_name(analysis::overall_verdict(results))},
      {"partial", false},
      {"arms",
       {{"baseline", {{"ref", "main"}, {"sha", "1a2b3c4d5e6f7a8b"}}},
        {"candidate", {{"ref", "pr/@someone <!--"}, {"sha", "5d6e7f8a9b0c1d2e"}}}}},
      {"settings", {{"threshold", 1.15}, {"metrics", {"real_time"}}, {"gate", {"real_time"}}}},
      {"cells", cells},
      {"analysis", analysis},
      {"removed_cells", {"s/" + k_counter, "s/@someone"}},
      {"warnings",
       {{{"cell", "s/" + k_benchmarks[2]}, {"message", "s/" + k_benchmarks[2] + " is noisy: " + k_subject}}}}};
  return formats::document_from_json(document, "results.json");
}

std::vector<github::Regression> hostile_regressions(const std::vector<MetricResult>& results) {
  std::vector<github::Regression> out;
  for (const auto& r : results) {
    if (r.verdict == Verdict::regression) {
      out.push_back({r.cell, r.metric, r.ratio, r.ci_low, r.ci_high, 1.15, ""});
    }
  }
  return out;
}

} // namespace

TEST_CASE("outside names through every output stay text") {
  if (!std::filesystem::exists(k_cmark)) {
    MESSAGE("cmark-gfm is not installed (scripts/install-deps.sh): skipped");
    return;
  }
  for (std::size_t copies : {1, 6}) { // 14 results, and 74 that lead with what moved
    CAPTURE(copies);
    const auto results = hostile_results(copies);
    const auto document = hostile_document(results);
    const std::string md = report::render_markdown(document);

    SUBCASE("report.md: one heading, every row in a table as wide as its header") {
      const auto shapes = check_markdown(md, 1);
      REQUIRE_FALSE(shapes.empty());
      const bool lead = results.size() >= report::k_lead_from_results;
      // the verdict table (or what moved, then all results): 8 columns, a row per result shown
      CHECK(shapes.front().front() == 8);
      CHECK(shapes.front().size() == 1 + (lead ? 4 * copies + 1 : results.size()));
      if (lead) {
        CHECK(shapes.at(1).size() == 1 + results.size());
      }
      const std::string html = gfm_html(md);
      CHECK(html.find("</details>") != std::string::npos); // nothing after the counter hidden
      CHECK(html.find("<strong>Failures</strong>") != std::string::npos);
      // the names read back as text: the counter's unit after its values too
      CHECK(html.find("<td>s/BM_a|b|c &lt;script&gt;alert(1)&lt;/script&gt;</td>") != std::string::npos);
      CHECK(html.find("<td>0.002 z  ### refbench: ✅ no regression  &lt;!--</td>") != std::string::npos);
      CHECK(html.find("<td>s/::error::pwned</td>") != std::string::npos);
    }
    SUBCASE("the PR comment and the step summary") {
      check_markdown(github::trim_body(github::with_marker(md, github::marker_line("nightly"))), 1);
      check_markdown(github::summary_text(md, 0), 1);
    }
    SUBCASE("the terminal: the table and summary line") {
      const std::string table =
          util::without_workflow_commands(report::render_verdict_table(results, report::VerdictColour::ansi));
      CHECK(command_lines(table).empty());
      const std::string summary = util::without_workflow_commands(report::render_run_summary(document));
      CHECK(command_lines(summary).empty());
      static const std::regex k_unescaped_pipe("(^|[^\\\\])\\|");
      for (const auto line : util::split(table, '\n')) {
        if (!line.empty()) {
          CHECK(matches_of(std::string(line), k_unescaped_pipe) == 9); // 8 columns
        }
      }
    }
  }
}

TEST_CASE("outside names in workflow commands: one line each, the name in its title") {
  const auto lines = github::regression_annotations(hostile_regressions(hostile_results(1)));
  REQUIRE(lines.size() == k_benchmarks.size());
  for (const auto& line : lines) {
    CAPTURE(line);
    CHECK(line.find('\n') == std::string::npos);
    CHECK(line.find('\r') == std::string::npos);
    REQUIRE(line.starts_with("::error title=refbench%3A s/"));
    // the title ends at the first "::": no ':' of a name is left in it
    const auto end = line.find("::", 2);
    CHECK(line.substr(end + 2).starts_with("s/"));
  }
  CHECK(command_lines(fmt::format("{}\n", fmt::join(lines, "\n")), "::error title=refbench%3A ").empty());
}

TEST_CASE("outside names in the history page and Markdown, and in bisect's report") {
  if (!std::filesystem::exists(k_cmark)) {
    MESSAGE("cmark-gfm is not installed (scripts/install-deps.sh): skipped");
    return;
  }
  std::vector<history::Record> records;
  for (int i = 0; i < 4; ++i) {
    history::Record r;
    r.time = "2026-12-01T00:00:00Z";
    r.run_id = fmt::format("run{}", i);
    r.repository = "root0";
    r.baseline = {fmt::format("c{}", i), fmt::format("c{}", i)};
    r.candidate = {"<script>x</script> @someone", fmt::format("c{}", i + 1)};
    r.cell = "s/" + k_benchmarks[0];
    r.metric = k_counter;
    r.gated = true;
    r.unit = k_counter;
    r.ratio = 1.0 + 0.01 * i;
    r.ci_low = *r.ratio / 1.01;
    r.ci_high = *r.ratio * 1.01;
    r.verdict = "PASS";
    r.n = 20;
    records.push_back(r);
  }
  const auto series = history::build_series(records, {});
  REQUIRE(series.size() == 1);
  const std::vector<std::string> warnings{"line 3: " + k_subject};

  SUBCASE("HTML") {
    const std::string html = history::render_history_html(series, warnings, 1.15);
    CHECK(matches_of(html, std::regex("<script", std::regex::icase)) == 0);
    CHECK(occurrences(html, "<!--") == 0);
    CHECK(occurrences(html, "<h2>") == 1);
    CHECK(html.find("<h2>s/BM_a|b|c &lt;script&gt;alert(1)&lt;/script&gt; z\\n\\n### refbench: ✅ no "
                    "regression\\n\\n&lt;!-- — ") != std::string::npos);
  }
  SUBCASE("Markdown") {
    const auto shapes = check_markdown(history::render_history_markdown(series, warnings, 1.15), 1);
    REQUIRE_FALSE(shapes.empty());
    CHECK(shapes.front().size() == 2);
  }
  SUBCASE("bisect") {
    pipeline::BisectReport report;
    report.status = "done";
    report.cell = "s/" + k_benchmarks[0] + "`";
    report.metric = k_counter;
    report.culprit = git::CommitInfo{"0123456789abcdef", k_subject, "@someone <x@y>", "2026-12-01"};
    report.culprit_ratio = 1.4;
    report.builds = 3;
    pipeline::BisectStep step;
    step.kind = "confirm";
    step.commit = *report.culprit;
    report.steps.push_back(step);
    report.notes.push_back(k_subject);
    const auto shapes = check_markdown(pipeline::bisect_markdown(report), 1);
    REQUIRE(shapes.size() == 1);
    CHECK(shapes.front() == std::vector<std::size_t>{8, 8});
  }
}
