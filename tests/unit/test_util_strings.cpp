#include <doctest/doctest.h>

#include <refbench/util/strings.hpp>

using namespace refbench::util;

TEST_CASE("util::trim") {
  SUBCASE("both ends, blanks and line breaks by default") {
    CHECK(trim("  a b\t\r\n") == "a b");
    CHECK(trim("\n\tx") == "x");
    CHECK(trim("plain") == "plain");
    CHECK(trim(" \t\r\n ").empty());
    CHECK(trim("").empty());
  }
  SUBCASE("one end") {
    CHECK(trim_left("  a b  ") == "a b  ");
    CHECK(trim_right("  a b  ") == "  a b");
    CHECK(trim_left("   ").empty());
    CHECK(trim_right("   ").empty());
  }
  SUBCASE("the characters given") {
    CHECK(trim_left("000120", "0") == "120");
    CHECK(trim_left("000", "0").empty());
    CHECK(trim_right("log\n\n", "\n") == "log");
    CHECK(trim(" \vx\f ", " ") == "\vx\f");
  }
  SUBCASE("a view into the same text") {
    const std::string_view text = "  middle  ";
    CHECK(trim(text).data() == text.data() + 2);
  }
}

TEST_CASE("util::ascii_lower turns A-Z into a-z and keeps every other byte") {
  CHECK(ascii_lower("HTTPS://Api.GitHub.COM") == "https://api.github.com");
  CHECK(ascii_lower("Retry-After: 7") == "retry-after: 7");
  CHECK(ascii_lower("@[`{") == "@[`{");                         // the bytes either side of A-Z and a-z
  CHECK(ascii_lower("\xC3\x84\xC3\x96") == "\xC3\x84\xC3\x96"); // UTF-8 "ÄÖ": not ASCII letters
  CHECK(ascii_lower("") == "");
}

TEST_CASE("util::printable") {
  CHECK(printable("plain name-1KiB") == "plain name-1KiB");
  CHECK(printable("x\x1b[31mred\x07") == "x\\x1b[31mred\\x07");
  CHECK(printable("a\nb\tc\r") == "a\\nb\\tc\\r");
  CHECK(printable("a\nb\tc", "\n") == "a\nb\\tc");
  CHECK(printable("csi \xc2\x9b"
                  "2J and é") == "csi \\u009b2J and é"); // C1 as UTF-8; other UTF-8 kept
  CHECK(printable(std::string_view("nul\0end", 7)) == "nul\\x00end");
}

TEST_CASE("util::without_workflow_commands") {
  CHECK(without_workflow_commands("| a | b |\n") == "| a | b |\n");
  CHECK(without_workflow_commands("x\n::error::pwned\n  ::add-mask::y\nz ::ok") ==
        "x\n\\::error::pwned\n\\  ::add-mask::y\nz ::ok");
  CHECK(without_workflow_commands("::set-output") == "\\::set-output");
  CHECK(without_workflow_commands("") == "");
}
