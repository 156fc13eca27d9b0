// The manual as the code's map and as examples a user copies
// (docs/manual/building.md#the-manuals-own-tests): every citation of a page
// in src/ and include/ resolves to a page and heading that exist, every link
// between the pages does, and every TOML snippet in the README and the
// manual loads as refbench.toml (a workflow snippet is an excerpt of a
// workflow file, which tests/integration/github_yaml.sh checks).

#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/config/config.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/pipeline/shard_run.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace refbench;
namespace fs = std::filesystem;

namespace {

const fs::path k_root = REFBENCH_SOURCE_DIR;

std::string text_of(const fs::path& path) {
  auto text = util::read_file(path.string());
  REQUIRE_MESSAGE(text.has_value(), "cannot read " << path);
  return *text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

bool is_fence(const std::string& line) {
  const auto start = line.find_first_not_of(' ');
  return start != std::string::npos && line.compare(start, 3, "```") == 0;
}

// GitHub's anchor of heading text: lower case, every character but letters,
// digits, '_', '-' and spaces dropped (bytes past ASCII are kept, as GitHub
// keeps letters of any script), spaces become '-'.
std::string anchor_of(const std::string& heading) {
  std::string anchor;
  for (const char c : heading) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80 || std::isalnum(byte) != 0 || c == '_' || c == '-') {
      anchor += static_cast<char>(std::tolower(byte));
    } else if (c == ' ') {
      anchor += '-';
    }
  }
  return anchor;
}

// The anchors of a Markdown document's headings outside code blocks; a
// repeated one gets "-1", "-2", … as on GitHub.
std::set<std::string> anchors_of(const std::string& markdown) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  bool in_code = false;
  for (const auto& line : lines_of(markdown)) {
    if (is_fence(line)) {
      in_code = !in_code;
    }
    const auto hashes = line.find_first_not_of('#');
    if (in_code || hashes == 0 || hashes > 6 || hashes == std::string::npos || line[hashes] != ' ') {
      continue;
    }
    const std::string anchor = anchor_of(line.substr(hashes + 1));
    const int count = seen[anchor]++;
    anchors.insert(count == 0 ? anchor : anchor + "-" + std::to_string(count));
  }
  return anchors;
}

// The problems of citation `page` + `anchor` (anchor may be empty) against
// the pages in `dir`; "" when it resolves.
std::string citation_problem(const fs::path& dir, const std::string& page, const std::string& anchor) {
  const fs::path path = dir / page;
  if (!fs::is_regular_file(path)) {
    return "no page " + path.string();
  }
  if (!anchor.empty() && !anchors_of(text_of(path)).contains(anchor)) {
    return "no heading with anchor #" + anchor + " in " + path.string();
  }
  return "";
}

// The source, script, config and workflow files under `roots` (a root may
// be a file), this test's own file left out: its cases cite pages that do
// not exist on purpose.
std::vector<fs::path> files_citing(const std::vector<fs::path>& roots) {
  static const std::set<std::string> k_extensions{".c",   ".cpp",  ".hpp", ".sh",  ".bash", ".py",
                                                  ".mjs", ".toml", ".yml", ".lua", ".go",   ".rs"};
  std::vector<fs::path> files;
  for (const auto& root : roots) {
    if (fs::is_regular_file(root)) {
      files.push_back(root);
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.is_regular_file() && k_extensions.contains(entry.path().extension().string()) &&
          entry.path().filename() != fs::path(__FILE__).filename()) {
        files.push_back(entry.path());
      }
    }
  }
  return files;
}

// Every "docs/manual/PAGE.md#anchor" in the files under `roots` that does
// not resolve against `manual`, and every "README: Heading" citation left,
// as "file: citation: problem" lines.
std::vector<std::string> dangling_citations(const std::vector<fs::path>& roots, const fs::path& manual,
                                            int& citations) {
  static const std::regex k_citation(R"(docs/manual/([a-z0-9-]+\.md)(?:#([A-Za-z0-9_-]+))?)");
  std::vector<std::string> problems;
  for (const auto& file : files_citing(roots)) {
    const std::string text = text_of(file);
    for (std::sregex_iterator it(text.begin(), text.end(), k_citation), end; it != end; ++it) {
      ++citations;
      const std::string problem = citation_problem(manual, (*it)[1].str(), (*it)[2].str());
      if (!problem.empty()) {
        problems.push_back(file.string() + ": " + it->str() + ": " + problem);
      }
    }
    if (text.find("README: ") != std::string::npos) {
      problems.push_back(file.string() + ": cites \"README: \" instead of a manual page and heading");
    }
  }
  return problems;
}

// A fenced code block of a Markdown page: its info string, its lines, and
// the file named by a `<!-- file: PATH -->` line just above it.
struct Snippet {
  std::string page;
  int line = 0;
  std::string language;
  std::vector<std::string> lines;
  std::string file; // "": none named
};

std::vector<Snippet> snippets_of(const std::string& markdown, const std::string& page) {
  static const std::regex k_marker(R"(<!-- file: (\S+) -->)");
  std::vector<Snippet> snippets;
  const auto lines = lines_of(markdown);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_fence(lines[i])) {
      continue;
    }
    Snippet snippet{.page = page, .line = static_cast<int>(i + 1)};
    const auto indent = lines[i].find_first_not_of(' ');
    snippet.language = lines[i].substr(indent + 3);
    std::smatch marker;
    if (i > 0 && std::regex_search(lines[i - 1], marker, k_marker)) {
      snippet.file = marker[1].str();
    }
    for (++i; i < lines.size() && !is_fence(lines[i]); ++i) {
      snippet.lines.push_back(lines[i].substr(std::min(indent, lines[i].find_first_not_of(' '))));
    }
    snippets.push_back(std::move(snippet));
  }
  return snippets;
}

// Whether `lines` occur, one after the other, in `file`'s lines.
bool is_excerpt_of(const std::vector<std::string>& lines, const std::string& file) {
  const auto whole = lines_of(file);
  return std::search(whole.begin(), whole.end(), lines.begin(), lines.end()) != whole.end();
}

// Loads refbench.toml `path` as `refbench run` does before its builds: the
// file, the run settings over the defaults, and the cells it plans; throws
// UsageError as the command would.
void load_as_run_does(const std::string& path) {
  const auto config = config::load_config(path);
  config::resolve(config::MeasurementFlags{}, &config.run, config::k_run_defaults);
  pipeline::cells_of_run(config, std::nullopt, {});
}

// What is wrong with `snippet`: "" when a TOML block loads (or is an excerpt
// of a config file that loads) and a YAML block is an excerpt of a checked
// workflow file. `scratch` holds the TOML written out.
std::string snippet_problem(const Snippet& snippet, const test::ScratchDir& scratch) {
  const std::string where = snippet.page + ":" + std::to_string(snippet.line) + ": ";
  if (!snippet.file.empty()) {
    const fs::path file = k_root / snippet.file;
    if (!fs::is_regular_file(file)) {
      return where + "names " + snippet.file + ", which does not exist";
    }
    if (!is_excerpt_of(snippet.lines, text_of(file))) {
      return where + "is not an excerpt of " + snippet.file;
    }
    if (snippet.language == "yaml") {
      const bool checked = snippet.file.starts_with("examples/workflows/") ||
                           snippet.file.starts_with(".github/workflows/") || snippet.file.ends_with("action.yml");
      return checked ? "" : where + snippet.file + " is not a workflow file tests/integration/github_yaml.sh checks";
    }
  } else if (snippet.language == "yaml") {
    return where + "a workflow snippet must name the file it is taken from (<!-- file: PATH --> above it)";
  }
  try {
    std::string path = (k_root / snippet.file).string();
    if (snippet.file.empty()) {
      std::string text;
      for (const auto& line : snippet.lines) {
        text += line + "\n";
      }
      path = scratch / "refbench.toml";
      test::write_file(path, text);
    }
    load_as_run_does(path);
  } catch (const Error& error) {
    return where + error.what();
  }
  return "";
}

std::vector<fs::path> manual_pages() {
  std::vector<fs::path> pages;
  for (const auto& entry : fs::directory_iterator(k_root / "docs/manual")) {
    if (entry.path().extension() == ".md") {
      pages.push_back(entry.path());
    }
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

} // namespace

TEST_CASE("docs: GitHub's heading anchors") {
  // anchors as github.com renders them for these headings of docs/manual
  CHECK(anchor_of("`refbench run`") == "refbench-run");
  CHECK(anchor_of("`run --github`") == "run---github");
  CHECK(anchor_of("Custom metrics, windows and requirements") == "custom-metrics-windows-and-requirements");
  CHECK(anchor_of("The token goes only to GitHub's API") == "the-token-goes-only-to-githubs-api");
  CHECK(anchor_of("A load sweep: the sample project's `sweep.toml`") == "a-load-sweep-the-sample-projects-sweeptoml");
  CHECK(anchors_of("# A\n## B\n```sh\n# not a heading\n```\n## B\n") == std::set<std::string>{"a", "b", "b-1"});
}

TEST_CASE("docs: every citation in the code, scripts, examples and workflows resolves to a manual page and heading") {
  int citations = 0;
  const auto problems = dangling_citations(
      {k_root / "src", k_root / "include", k_root / "tests/unit", k_root / "tests/integration",
       k_root / "tests/calibration", k_root / "tests/fixtures", k_root / "scripts", k_root / "examples",
       k_root / "bench", k_root / ".github", k_root / ".ci/run", k_root / "action.yml", k_root / "comment/action.yml",
       k_root / "history/action.yml", k_root / "README.md", k_root / "ARCHITECTURE.md", k_root / "docs/design.md"},
      k_root / "docs/manual", citations);
  for (const auto& problem : problems) {
    FAIL_CHECK(problem);
  }
  CHECK(citations > 100); // the code cites the manual; a pattern that matched nothing would pass vacuously

  SUBCASE("a renamed heading or page is caught") {
    test::ScratchDir scratch;
    test::write_file(scratch / "manual/hooks.md", "# Hooks\n\n## Before the rounds\n");
    test::write_file(scratch / "src/a.cpp", "// docs/manual/hooks.md#before-the-rounds\n"
                                            "// docs/manual/hooks.md#after-the-rounds\n"
                                            "// docs/manual/gone.md\n// README: Hooks\n");
    int count = 0;
    const auto found = dangling_citations({scratch.path() / "src"}, scratch.path() / "manual", count);
    CHECK(count == 3);
    REQUIRE(found.size() == 3);
    CHECK(found[0].find("no heading with anchor #after-the-rounds") != std::string::npos);
    CHECK(found[1].find("no page") != std::string::npos);
    CHECK(found[2].find("README: ") != std::string::npos);
  }
}

TEST_CASE("docs: every link between the manual's pages resolves") {
  static const std::regex k_link(R"(\]\(((?:(?:\.\./)?[a-z0-9-]+\.md)?)(?:#([A-Za-z0-9_-]+))?\))");
  int links = 0;
  for (const auto& page : manual_pages()) {
    const std::string text = text_of(page);
    for (std::sregex_iterator it(text.begin(), text.end(), k_link), end; it != end; ++it) {
      if ((*it)[1].str().empty() && (*it)[2].str().empty()) {
        continue; // "]()": no target
      }
      const std::string target = (*it)[1].str().empty() ? page.filename().string() : (*it)[1].str();
      ++links;
      const std::string problem = citation_problem(k_root / "docs/manual", target, (*it)[2].str());
      CHECK_MESSAGE(problem.empty(), page.filename().string() << ": " << it->str() << ": " << problem);
    }
  }
  CHECK(links > 20);
}

TEST_CASE("docs: every TOML and workflow snippet in the README and the manual is one refbench and the tests load") {
  test::ScratchDir scratch;
  auto pages = manual_pages();
  pages.push_back(k_root / "README.md");
  int toml = 0;
  int yaml = 0;
  for (const auto& page : pages) {
    for (const auto& snippet : snippets_of(text_of(page), page.filename().string())) {
      if (snippet.language != "toml" && snippet.language != "yaml") {
        continue;
      }
      (snippet.language == "toml" ? toml : yaml) += 1;
      const std::string problem = snippet_problem(snippet, scratch);
      CHECK_MESSAGE(problem.empty(), problem);
    }
  }
  CHECK(toml >= 8);
  CHECK(yaml >= 3);

  SUBCASE("a snippet refbench refuses, or one that is not in its file, is caught") {
    const auto bad =
        snippets_of("```toml\n[run]\nbudgte = \"20m\"\n\n[[cell]]\nname = \"a\"\ncommand = [\"true\"]\n```\n"
                    "<!-- file: examples/sample-project/refbench.toml -->\n"
                    "```toml\n[build]\ncommand = \"make -j64\"\n```\n"
                    "```yaml\non: push\n```\n",
                    "bad.md");
    REQUIRE(bad.size() == 3);
    CHECK(snippet_problem(bad[0], scratch).find("budgte") != std::string::npos);
    CHECK(snippet_problem(bad[1], scratch).find("not an excerpt") != std::string::npos);
    CHECK(snippet_problem(bad[2], scratch).find("must name the file") != std::string::npos);
  }
}

TEST_CASE("docs: the sample project's configs load") {
  for (const char* name : {"refbench.toml", "service.toml", "sweep.toml"}) {
    CAPTURE(name);
    CHECK_NOTHROW(load_as_run_does((k_root / "examples/sample-project" / name).string()));
  }
}
