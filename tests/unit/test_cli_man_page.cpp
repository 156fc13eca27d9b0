#include <doctest/doctest.h>

#include <refbench/cli/app.hpp>
#include <refbench/cli/man_page.hpp>
#include <refbench/util/error.hpp>
#include <refbench/version.hpp>

#include <fmt/format.h>
#include <string>

using namespace refbench;

namespace {

bool page_has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A small command line: a flag, an option with a default, a hidden option, a
// subcommand with a positional and a nested subcommand.
struct SmallApp {
  CLI::App app{"tool: does a thing", "tool"};
  bool quiet = false;
  std::string out = "out-dir";
  std::string secret;
  std::vector<std::string> files;
  SmallApp() {
    app.add_flag("-q,--quiet", quiet, "Print less");
    CLI::App* sub = app.add_subcommand("check", "Check the files");
    sub->add_option("files", files, "The files")->required();
    sub->add_option("--out", out, "Where to write")->capture_default_str();
    sub->add_option("--secret", secret, "Not listed")->group("");
    sub->add_subcommand("deep", "A nested command");
  }
};

} // namespace

TEST_CASE("cli::roff_text") {
  SUBCASE("backslashes and double quotes") { CHECK(cli::roff_text(R"(a\b "c")") == R"(a\eb \(dqc\(dq)"); }
  SUBCASE("a dot or apostrophe that starts a line, and only there") {
    CHECK(cli::roff_text(".hidden") == "\\&.hidden");
    CHECK(cli::roff_text("'quoted'") == "\\&'quoted'");
    CHECK(cli::roff_text("a.b\n.c\n'd") == "a.b\n\\&.c\n\\&'d");
    CHECK(cli::roff_text("results.json or journal.jsonl") == "results.json or journal.jsonl");
  }
  SUBCASE("the hyphens of options and negative numbers, not those inside words") {
    CHECK(cli::roff_text("--fail-on inconclusive") == "\\-\\-fail\\-on inconclusive");
    CHECK(cli::roff_text("use -q or (-v)") == "use \\-q or (\\-v)");
    CHECK(cli::roff_text("seed -1") == "seed \\-1");
    CHECK(cli::roff_text("signed-rank, A/A, byte-identical") == "signed-rank, A/A, byte-identical");
    CHECK(cli::roff_text("2^64-1 x--y") == "2^64-1 x--y");
  }
  SUBCASE("non-ASCII as its code point; a broken sequence as U+FFFD") {
    CHECK(cli::roff_text("a \xE2\x80\x94 b") == "a \\[u2014] b"); // em dash
    CHECK(cli::roff_text("caf\xC3\xA9") == "caf\\[u00E9]");
    CHECK(cli::roff_text("\xF0\x9F\x93\x88") == "\\[u1F4C8]");
    CHECK(cli::roff_text("x\xE2\x80") == "x\\[uFFFD]\\[uFFFD]");
    CHECK(cli::roff_text("\x80y") == "\\[uFFFD]y");
  }
}

TEST_CASE("cli::man_page of a small app") {
  const SmallApp small;
  const std::string page = cli::man_page(small.app);
  CHECK(page_has(page, fmt::format(".TH TOOL 1 \"\" \"tool {}\" \"User Commands\"\n", k_version)));
  CHECK(page_has(page, ".SH NAME\ntool \\- does a thing\n"));
  CHECK(page_has(page, "\\fBtool check\\fR [\\fIoptions\\fR] \\fIfiles\\fR... \\fIcommand\\fR ...\n"));
  CHECK(page_has(page, ".TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nPrint less\n"));
  CHECK(page_has(page, ".SS \"tool check\"\nCheck the files\n.TP\n\\fIfiles\\fR...\nThe files [required]\n"));
  CHECK(page_has(page, ".TP\n\\fB\\-\\-out\\fR \\fITEXT\\fR\nWhere to write [default: out-dir]\n"));
  CHECK(page_has(page, ".SS \"tool check deep\"\nA nested command\n"));
  CHECK_FALSE(page_has(page, "secret"));
  CHECK(page == cli::man_page(small.app)); // no date, nothing else that changes
  for (const auto& [code, meaning] : k_exit_code_meanings) {
    CHECK(page_has(page, fmt::format(".TP\n.B {}\n{}\n", static_cast<int>(code), cli::roff_text(meaning))));
  }
}

TEST_CASE("cli::man_page of refbench: a section per command") {
  const cli::CommandLine command_line;
  const std::string page = cli::man_page(command_line.app);
  REQUIRE(command_line.subcommands.size() >= 8);
  for (const auto& subcommand : command_line.subcommands) {
    CHECK(page_has(page, ".SS \"refbench " + subcommand.command->get_name() + "\"\n"));
  }
  CHECK(page_has(command_line.app.help(), "Exit codes:\n  0    no failing verdict"));
}
