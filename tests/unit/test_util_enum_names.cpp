#include <doctest/doctest.h>

#include <refbench/util/enum_names.hpp>

using namespace refbench::util;

namespace {

enum class Colour { red, green, blue, unnamed };
constexpr auto k_colours = enum_names<Colour>({{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}});
static_assert(k_colours.parse("green") == Colour::green); // usable at compile time

} // namespace

TEST_CASE("util::EnumNames") {
  SUBCASE("a value's word and back") {
    for (const auto& [value, word] : k_colours.entries()) {
      CHECK(k_colours.name(value) == word);
      CHECK(k_colours.parse(word) == value);
    }
  }
  SUBCASE("only the exact word") {
    CHECK_FALSE(k_colours.parse("Red"));
    CHECK_FALSE(k_colours.parse("red "));
    CHECK_FALSE(k_colours.parse(""));
  }
  SUBCASE("a value the table lacks has the first word") { CHECK(k_colours.name(Colour::unnamed) == "red"); }
  SUBCASE("the words listed") {
    CHECK(k_colours.list() == "red, green or blue");
    CHECK(k_colours.list("|", "|") == "red|green|blue");
    constexpr auto one = enum_names<Colour>({{Colour::blue, "blue"}});
    CHECK(one.list() == "blue");
  }
}
