#include <doctest/doctest.h>

#include <refbench/util/shell_words.hpp>

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
