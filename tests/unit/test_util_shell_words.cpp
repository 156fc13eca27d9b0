#include <doctest/doctest.h>

#include <refbench/util/shell_words.hpp>

#include <cstdio>

using namespace refbench::util;
using Words = std::vector<std::string>;

TEST_CASE("util::split_shell_words") {
  SUBCASE("POSIX word rules") {
    CHECK(split_shell_words("ls -l /tmp").value() == Words{"ls", "-l", "/tmp"});
    CHECK(split_shell_words("  a\t b  ").value() == Words{"a", "b"});
    CHECK(split_shell_words("echo 'a b' \"c d\"").value() == Words{"echo", "a b", "c d"});
    CHECK(split_shell_words("echo a\\ b").value() == Words{"echo", "a b"});
    CHECK(split_shell_words("echo 'it'\\''s'").value() == Words{"echo", "it's"});
    CHECK(split_shell_words("echo \"say \\\"hi\\\" \\\\ \\n\"").value() == Words{"echo", "say \"hi\" \\ \\n"});
    CHECK(split_shell_words("echo ''").value() == Words{"echo", ""});
    CHECK(split_shell_words("echo a#b").value() == Words{"echo", "a#b"});
    CHECK(split_shell_words("echo '$HOME | x'").value() == Words{"echo", "$HOME | x"});
  }
  SUBCASE("what needs a shell is refused, naming it") {
    CHECK(split_shell_words("a | b").error().find("'|'") != std::string::npos);
    CHECK(split_shell_words("a > out").error().find("'>'") != std::string::npos);
    CHECK(split_shell_words("echo $HOME").error().find("'$'") != std::string::npos);
    CHECK(split_shell_words("echo \"$HOME\"").error().find("'$'") != std::string::npos);
    CHECK(split_shell_words("a; b").has_value() == false);
    CHECK(split_shell_words("ls *.c").has_value() == false);
    CHECK(split_shell_words("echo # comment").has_value() == false);
  }
  SUBCASE("malformed input") {
    CHECK(split_shell_words("echo 'open").error() == "has an unterminated single quote");
    CHECK(split_shell_words("echo \"open").error() == "has an unterminated double quote");
    CHECK(split_shell_words("echo \\").error() == "ends with a lone backslash");
    CHECK(split_shell_words("   ").error() == "is empty");
  }
}

TEST_CASE("util::quote_shell_word round-trips") {
  for (const std::string word : {"plain", "a b", "it's", "$x|y", "", "a\"b\\c"}) {
    auto words = split_shell_words("cmd " + quote_shell_word(word));
    REQUIRE(words.has_value());
    CHECK(words->at(1) == word);
  }
  CHECK(quote_shell_word("build/work") == "build/work");
}

TEST_CASE("util::fill_shell_script quotes each value for where it stands") {
  const std::vector<std::pair<std::string, std::string>> values{{"{arm}", "/w/o$(touch X) 'q\"`\\"}, {"{round}", "3"}};
  // outside quotes: one shell word
  CHECK(fill_shell_script("{arm}/x {round}", values) == "'/w/o$(touch X) '\\''q\"`\\'/x 3");
  // inside '…': the quote closed, an escaped quote, reopened
  CHECK(fill_shell_script("'{arm}/x'", values) == "'/w/o$(touch X) '\\''q\"`\\/x'");
  // inside "…": \ " $ ` escaped
  CHECK(fill_shell_script("\"{arm}/x\"", values) == "\"/w/o\\$(touch X) 'q\\\"\\`\\\\/x\"");
  // quotes that are escaped or inside the other kind do not switch the state
  CHECK(fill_shell_script("echo \\' {round} \"it's {round}\"", values) == "echo \\' 3 \"it's 3\"");
  // a value is never searched for placeholders
  CHECK(fill_shell_script("{arm}", {{"{arm}", "{round}"}, {"{round}", "3"}}) == "'{round}'");
  // plain values stay as written, so existing scripts read the same
  CHECK(fill_shell_script("cd {arm} && \"{arm}/bin\"", {{"{arm}", "/w/a"}}) == "cd /w/a && \"/w/a/bin\"");
}

TEST_CASE("util::fill_shell_script output runs as the values, not as code") {
  const std::string hostile = "/tmp/o$(echo INJECTED) `echo TICK` 'q' \"d\"";
  for (const char* script : {"printf '%s\\n' {arm}", "printf '%s\\n' '{arm}'", "printf '%s\\n' \"{arm}\""}) {
    const std::string filled = fill_shell_script(script, {{"{arm}", hostile}});
    std::FILE* pipe = ::popen(("/bin/sh -c " + quote_shell_word(filled)).c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    for (int c = std::fgetc(pipe); c != EOF; c = std::fgetc(pipe)) {
      out += static_cast<char>(c);
    }
    ::pclose(pipe);
    CHECK(out == hostile + "\n");
  }
}
