#include <doctest/doctest.h>

#include <refbench/util/quantity.hpp>

using namespace refbench::util;
using std::chrono::nanoseconds;

TEST_CASE("util::parse_duration") {
  SUBCASE("units of README") {
    CHECK(parse_duration("90").value() == nanoseconds(90'000'000'000));
    CHECK(parse_duration("90s").value() == nanoseconds(90'000'000'000));
    CHECK(parse_duration("25m").value() == nanoseconds(1'500'000'000'000));
    CHECK(parse_duration("1h").value() == nanoseconds(3'600'000'000'000));
    CHECK(parse_duration("500ms").value() == nanoseconds(500'000'000));
    CHECK(parse_duration("0.25s").value() == nanoseconds(250'000'000));
  }
  SUBCASE("bad text names itself") {
    for (const char* bad : {"", "s", "-5s", "5 s", "5sec", "1e3", "abc", "5d", "1.2.3"}) {
      auto parsed = parse_duration(bad);
      REQUIRE_FALSE(parsed.has_value());
      CHECK(parsed.error().find(std::string("'") + bad + "'") != std::string::npos);
    }
  }
}

TEST_CASE("util::parse_size") {
  CHECK(parse_size("512").value() == 512);
  CHECK(parse_size("512B").value() == 512);
  CHECK(parse_size("1KiB").value() == 1024);
  CHECK(parse_size("32MiB").value() == 32ull << 20);
  CHECK(parse_size("1GiB").value() == 1ull << 30);
  CHECK(parse_size("1.5KiB").value() == 1536);
  CHECK(parse_size("1KB").value() == 1000);
  CHECK(parse_size("2MB").value() == 2'000'000);
  CHECK(parse_size("1GB").value() == 1'000'000'000);
  for (const char* bad : {"", "MiB", "-1", "1 MiB", "1mib", "1XB", "1e6"}) {
    CHECK_FALSE(parse_size(bad).has_value());
  }
}
