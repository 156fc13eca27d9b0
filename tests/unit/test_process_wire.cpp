#include <doctest/doctest.h>

#include <refbench/process/wire.hpp>

#include <chrono>
#include <string>

using namespace refbench::process;
using namespace refbench::model;

TEST_CASE("process::wire round-trips") {
  Invocation invocation{{"a", "b c", ""}, {"X=1", "Y="}, "/tmp", std::chrono::milliseconds(1500),
                        "/dev/null",      true,          true};
  auto decoded = wire::decode_invocation(wire::encode(invocation));
  REQUIRE(decoded.has_value());
  CHECK(decoded->argv == invocation.argv);
  CHECK(decoded->env == invocation.env);
  CHECK(decoded->cwd == "/tmp");
  CHECK(decoded->timeout == invocation.timeout);
  CHECK(decoded->stdout_path == "/dev/null");
  CHECK(decoded->capture_stdout);
  CHECK(decoded->stderr_to_stdout);

  Outcome outcome;
  outcome.termination = Termination::signaled;
  outcome.signal = 9;
  outcome.readings[Reading::wall] = 1.25;
  outcome.readings[Reading::rss] = 123456789;
  outcome.rss_floor_bytes = 4096;
  outcome.stderr_tail = std::string("x\0y", 3);
  outcome.stdout_text = "captured";
  auto back = wire::decode_outcome(wire::encode(outcome));
  REQUIRE(back.has_value());
  CHECK(back->termination == Termination::signaled);
  CHECK(back->signal == 9);
  CHECK(back->readings[Reading::wall] == 1.25);
  CHECK(back->readings[Reading::rss] == 123456789);
  CHECK(back->rss_floor_bytes == 4096);
  CHECK(back->stderr_tail == outcome.stderr_tail);
  CHECK(back->stdout_text == "captured");

  auto body = wire::encode(outcome);
  CHECK_FALSE(wire::decode_outcome(body.substr(0, body.size() - 1)).has_value());
  CHECK_FALSE(wire::decode_outcome(body + "x").has_value());
}

TEST_CASE("process::wire start-up message") {
  const wire::Startup startup{7'340'032, 0.000012345678901};
  const std::string body = wire::encode(startup);
  CHECK(body.size() == 16); // two 8-byte fields, no text

  SUBCASE("round-trips exactly") {
    auto back = wire::decode_startup(body);
    REQUIRE(back.has_value());
    CHECK(back->peak_rss_bytes == 7'340'032);
    CHECK(back->spawn_resolution_seconds == startup.spawn_resolution_seconds); // no decimal rounding
  }
  SUBCASE("rejects a short or garbled frame") {
    CHECK_FALSE(wire::decode_startup("").has_value());
    CHECK_FALSE(wire::decode_startup(body.substr(0, 8)).has_value());
    CHECK_FALSE(wire::decode_startup(body.substr(0, body.size() - 1)).has_value());
    CHECK_FALSE(wire::decode_startup(body + "x").has_value());
    CHECK_FALSE(wire::decode_startup("7340032 0.000012346").has_value()); // the old text form
  }
}
