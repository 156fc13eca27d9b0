#include "scratch_dir.hpp"

#include <doctest/doctest.h>

#include <refbench/github/actions.hpp>

#include <cmath>
#include <refbench/util/error.hpp>

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <utility>
#include <vector>

using namespace refbench;
using namespace refbench::github;

namespace {

nlohmann::json entry(const std::string& cell, const std::string& metric, double ratio, double low, double high,
                     const std::string& verdict, const std::string& better = "lower") {
  return {{"cell", cell},
          {"metric", metric},
          {"unit", "seconds"},
          {"control", false},
          {"gated", true},
          {"paired", true},
          {"n", 30},
          {"baseline_median", 0.1},
          {"candidate_median", 0.1 * ratio},
          {"ratio", ratio},
          {"ci_low", low},
          {"ci_high", high},
          {"p", 0.001},
          {"p_bh", 0.004},
          {"threshold", 1.15},
          {"verdict", verdict},
          {"censored", false},
          {"better", better}};
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string k_cut_note = "\n_refbench: the report was cut to keep the job summary under 1 MiB; the whole "
                               "report is in report.md in the results._\n\n";

} // namespace

// The regressions among the results.json `analysis` entries of `document`,
// as the run hands them to the annotations.
std::vector<Regression> regressions_of(const nlohmann::json& document) {
  std::vector<Regression> regressions;
  for (const auto& e : document.value("analysis", nlohmann::json::array())) {
    if (e.value("verdict", "") == "REGRESSION") {
      regressions.push_back({e["cell"], e["metric"], e["ratio"], e["ci_low"], e["ci_high"],
                             e.contains("threshold") ? e["threshold"].get<double>() : std::nan("")});
    }
  }
  return regressions;
}

std::vector<std::string> annotations_of(const nlohmann::json& document, std::size_t limit = k_annotation_limit) {
  return github::regression_annotations(regressions_of(document), limit);
}

TEST_CASE("github::regression_annotations") {
  nlohmann::json document{{"schema", 1}, {"verdict", "REGRESSION"}, {"analysis", nlohmann::json::array()}};
  auto& analysis = document["analysis"];
  analysis.push_back(entry("parse/small", "wall", 1.30, 1.22, 1.38, "REGRESSION"));
  analysis.push_back(entry("decode", "wall", 0.20, 0.18, 0.22, "IMPROVED"));
  analysis.push_back(entry("50%, tail: p99\nburst", "wall", 1.80, 1.70, 1.90, "REGRESSION"));
  analysis.push_back(entry("noise", "wall", 1.01, 0.99, 1.03, "PASS"));
  analysis.push_back(entry("throughput", "ops_per_s", 0.50, 0.45, 0.55, "REGRESSION", "higher"));
  analysis.push_back(entry("flaky", "wall", 1.50, 0.90, 2.10, "INCONCLUSIVE"));
  for (int i = 0; i < 9; ++i) { // ratios 1.16 … 1.24, all milder than 1.3
    analysis.push_back(entry(fmt::format("mild-{}", i), "wall", 1.16 + 0.01 * i, 1.155, 1.30, "REGRESSION"));
  }
  analysis.push_back(entry("crashed", "wall", 9.0, 8.0, 10.0, "ERROR"));
  REQUIRE(analysis.size() == 16);

  const auto lines = annotations_of(document);
  REQUIRE(lines.size() == 10);
  SUBCASE("worst first, by |log ratio|, both directions") {
    CHECK(lines[0] == "::error title=refbench%3A throughput ops_per_s::throughput ops_per_s: candidate/baseline "
                      "0.500x [0.450, 0.550], beyond the 1.15x threshold");
    CHECK(lines[1] == "::error title=refbench%3A 50%25%2C tail%3A p99\\nburst wall::50%25, tail: p99\\nburst wall: "
                      "candidate/baseline 1.800x [1.700, 1.900], beyond the 1.15x threshold");
    CHECK(lines[2] == "::error title=refbench%3A parse/small wall::parse/small wall: candidate/baseline 1.300x "
                      "[1.220, 1.380], beyond the 1.15x threshold");
    for (int i = 0; i < 7; ++i) {
      CAPTURE(i);
      CHECK(lines[3 + i].starts_with(fmt::format("::error title=refbench%3A mild-{} wall::", 8 - i)));
    }
  }
  SUBCASE("only regressions, every line a single workflow command") {
    for (const auto& line : lines) {
      CAPTURE(line);
      CHECK(line.starts_with("::error title=refbench%3A "));
      CHECK(line.find('\n') == std::string::npos);
      CHECK(line.find('\r') == std::string::npos);
      CHECK(line.find("decode") == std::string::npos);
      CHECK(line.find("noise") == std::string::npos);
      CHECK(line.find("flaky") == std::string::npos);
      CHECK(line.find("crashed") == std::string::npos);
      CHECK(line.find("mild-0") == std::string::npos); // the two mildest are left out
      CHECK(line.find("mild-1") == std::string::npos);
    }
  }
  SUBCASE("a smaller limit") {
    const auto two = annotations_of(document, 2);
    REQUIRE(two.size() == 2);
    CHECK(two[0] == lines[0]);
    CHECK(two[1] == lines[1]);
    CHECK(annotations_of(document, 0).empty());
  }
  SUBCASE("no threshold: no threshold clause") {
    nlohmann::json one{{"analysis", {entry("cell", "wall", 1.25, 1.2, 1.3, "REGRESSION")}}};
    one["analysis"][0].erase("threshold");
    CHECK(annotations_of(one) ==
          std::vector<std::string>{
              "::error title=refbench%3A cell wall::cell wall: candidate/baseline 1.250x [1.200, 1.300]"});
  }
  SUBCASE("nothing to annotate") {
    CHECK(annotations_of(nlohmann::json::object()).empty());
    CHECK(annotations_of(nlohmann::json{{"analysis", {entry("a", "wall", 1.0, 0.9, 1.1, "PASS")}}}).empty());
  }
}

// What the runner makes of a workflow command's message: %0D, %0A, %25 decoded.
std::string runner_decoded(std::string text) {
  for (const auto& [from, to] : {std::pair{"%0D", "\r"}, std::pair{"%0A", "\n"}, std::pair{"%25", "%"}}) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + 1)) {
      text.replace(at, 3, to);
    }
  }
  return text;
}

TEST_CASE("github: names and messages carry no control characters and start no workflow command") {
  const std::string cell = "x\n::error::pwned\x1b[31m\x07";
  SUBCASE("annotations") {
    nlohmann::json document{{"analysis", {entry(cell, "wall\r\n::warning::m", 1.5, 1.4, 1.6, "REGRESSION")}}};
    const auto lines = annotations_of(document);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] ==
          "::error title=refbench%3A x\\n%3A%3Aerror%3A%3Apwned\\x1b[31m\\x07 wall\\r\\n%3A%3Awarning%3A%3Am"
          "::x\\n::error::pwned\\x1b[31m\\x07 wall\\r\\n::warning::m: candidate/baseline 1.500x [1.400, "
          "1.600], beyond the 1.15x threshold");
    const std::string message = runner_decoded(lines[0].substr(lines[0].find("::", 2) + 2));
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find('\r') == std::string::npos);
  }
  SUBCASE("GITHUB_OUTPUT") {
    CHECK(output_entry("cell", cell, "D") == "cell<<D\nx\n::error::pwned\\x1b[31m\\x07\nD\n");
    CHECK(output_entry("cell",
                       "a\x1b"
                       "b",
                       "D") == "cell=a\\x1bb\n");
    CHECK_THROWS_AS(output_entry("cell", "a\nD\nb", "D"), std::invalid_argument);
  }
  SUBCASE("step summary") {
    const std::string text = summary_text("| cell |\n|---|\n| " + cell + " |\n", 0);
    CHECK(text == "| cell |\n|---|\n| x\n::error::pwned\\x1b[31m\\x07 |\n\n");
  }
}

TEST_CASE("github::output_entry") {
  CHECK(output_entry("verdict", "REGRESSION", "refbench_0123") == "verdict=REGRESSION\n");
  CHECK(output_entry("regressions", "0", "refbench_0123") == "regressions=0\n");
  CHECK(output_entry("report", "", "refbench_0123") == "report=\n");
  CHECK(output_entry("report", "line 1\nline 2", "refbench_0123") ==
        "report<<refbench_0123\nline 1\nline 2\nrefbench_0123\n");
  CHECK(output_entry("report", "line 1\nline 2\n", "refbench_0123") ==
        "report<<refbench_0123\nline 1\nline 2\nrefbench_0123\n");
  CHECK(output_entry("x", "a\rb", "D") == "x=a\\rb\n"); // a CR is shown, never a line break
}

TEST_CASE("github::append_to_file") {
  test::ScratchDir dir;
  const std::string path = dir / "github_output";
  append_to_file(path, "verdict=PASS\n");
  append_to_file(path, output_entry("report", "a\nb", "EOF_1"));
  CHECK(read(path) == "verdict=PASS\nreport<<EOF_1\na\nb\nEOF_1\n");
  CHECK_THROWS_WITH_AS(append_to_file(dir / "missing/dir/file", "x=1\n"), doctest::Contains("missing/dir/file"),
                       UsageError);
  SUBCASE("never through a planted link, never into a FIFO") {
    const std::string target = dir / "elsewhere";
    std::ofstream(target) << "kept\n";
    std::filesystem::create_symlink(target, dir / "summary");
    CHECK_THROWS_WITH_AS(append_to_file(dir / "summary", "## report\n"), doctest::Contains("a symbolic link"),
                         UsageError);
    CHECK(read(target) == "kept\n");
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    CHECK_THROWS_AS(append_to_file(dir / "fifo", "x=1\n"), UsageError); // no reader: refused, not blocked
  }
}

TEST_CASE("github::summary_text") {
  SUBCASE("a report that fits gets a blank line after it") {
    CHECK(summary_text("### refbench: ✅ no change\n", 0) == "### refbench: ✅ no change\n\n");
    CHECK(summary_text("### refbench", 0) == "### refbench\n\n");
    CHECK(summary_text("### refbench\n", 5000, 10000) == "### refbench\n\n");
    CHECK(k_summary_limit == 1048576);
  }
  SUBCASE("the boundary: the summary stays strictly under the limit") {
    CHECK(summary_text("abc", 94, 100) == "abc\n\n"); // 94 + 5 = 99
    CHECK(summary_text("abc", 95, 100) == "");        // no room for the note either
  }
  SUBCASE("near the limit: cut at a line end, with the note") {
    std::string markdown;
    for (int row = 0; row < 100; ++row) {
      markdown += fmt::format("| cell-{:03} | 1.0{}x |\n", row, row % 10);
    }
    const std::size_t line = markdown.find('\n') + 1;
    REQUIRE(line == 21);
    const std::size_t limit = 1000;
    for (std::size_t already : {0u, 300u, 600u, 700u}) {
      CAPTURE(already);
      const std::string text = summary_text(markdown, already, limit);
      REQUIRE(text.ends_with(k_cut_note));
      CHECK(text.size() + already < limit);
      const std::string kept = text.substr(0, text.size() - k_cut_note.size());
      CHECK(markdown.starts_with(kept));
      CHECK(markdown[kept.size()] == '\n');
      CHECK(kept.size() + line + k_cut_note.size() > limit - already - 1); // one more line would not fit
    }
  }
  SUBCASE("no room left") {
    CHECK(summary_text("### refbench\n", 1000, 1000) == "");
    CHECK(summary_text("### refbench\n", 2000, 1000) == "");
    CHECK(summary_text(std::string(500, 'x') + "\n", 1000 - k_cut_note.size(), 1000) == "");
  }
}
