#include <doctest/doctest.h>

#include <refbench/config/config.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <fmt/format.h>

#include <functional>
#include <string>

using namespace refbench;
using namespace refbench::config;

namespace {

const std::string k_cell = "\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n";

RunConfig run_of(const std::string& run_table) { return parse_config("[run]\n" + run_table + k_cell, "rb.toml").run; }

std::string error_of(const MeasurementFlags& flags, const RunConfig* file = nullptr,
                     const CommandDefaults& defaults = k_run_defaults) {
  try {
    resolve(flags, file, defaults);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

// One setting: how a flag and the file set it, and how to read it back
// (value as text, origin).
struct Case {
  std::string key;
  std::function<void(MeasurementFlags&)> flag;
  std::string file_line; // in [run], the value on line 2
  std::function<std::string(const MeasurementSettings&)> value;
  std::function<std::string(const MeasurementSettings&)> origin;
  std::string flag_value, file_value, default_value;
};

std::string text(double v) { return std::to_string(v); }

} // namespace

TEST_CASE("config::resolve: a flag beats refbench.toml beats the default, for every setting") {
  using S = MeasurementSettings;
  const std::vector<Case> cases{
      {"budget", [](auto& f) { f.budget = "90s"; }, "budget = \"2m\"",
       [](const S& s) { return text(s.budget_seconds.value); }, [](const S& s) { return s.budget_seconds.origin; },
       text(90), text(120), text(1500)},
      {"max_rounds", [](auto& f) { f.max_rounds = 40; }, "max_rounds = 30",
       [](const S& s) { return text(s.max_rounds.value); }, [](const S& s) { return s.max_rounds.origin; }, text(40),
       text(30), text(60)},
      {"min_rounds", [](auto& f) { f.min_rounds = 12; }, "min_rounds = 11",
       [](const S& s) { return text(s.min_rounds.value); }, [](const S& s) { return s.min_rounds.origin; }, text(12),
       text(11), text(10)},
      {"warmup", [](auto& f) { f.warmup = 3; }, "warmup = 2", [](const S& s) { return text(s.warmup.value); },
       [](const S& s) { return s.warmup.origin; }, text(3), text(2), text(1)},
      {"timeout", [](auto& f) { f.timeout = "5s"; }, "timeout = \"7s\"",
       [](const S& s) { return text(static_cast<double>(s.timeout.value.count()) / 1e9); },
       [](const S& s) { return s.timeout.origin; }, text(5), text(7), text(600)},
      {"seed", [](auto& f) { f.seed = 5; }, "seed = 6",
       [](const S& s) { return text(static_cast<double>(s.seed.value)); },
       [](const S& s) { return s.seed.origin == "random" ? std::string("default") : s.seed.origin; }, text(5), text(6),
       ""},
      {"precision", [](auto& f) { f.precision = 0.03; }, "precision = 0.04",
       [](const S& s) { return text(s.precision.value); }, [](const S& s) { return s.precision.origin; }, text(0.03),
       text(0.04), text(0.02)},
      {"threshold", [](auto& f) { f.threshold = 1.3; }, "threshold = 1.2",
       [](const S& s) { return text(s.threshold.value); }, [](const S& s) { return s.threshold.origin; }, text(1.3),
       text(1.2), text(1.15)},
      {"alpha", [](auto& f) { f.alpha = 0.01; }, "alpha = 0.1", [](const S& s) { return text(s.alpha.value); },
       [](const S& s) { return s.alpha.origin; }, text(0.01), text(0.1), text(0.05)},
      {"isolate", [](auto& f) { f.isolate = "off"; }, "isolate = \"0\"", [](const S& s) { return s.isolate.value; },
       [](const S& s) { return s.isolate.origin; }, "off", "0", "auto"},
      {"replicas", [](auto& f) { f.replicas = 2; }, "replicas = 5", [](const S& s) { return text(s.replicas.value); },
       [](const S& s) { return s.replicas.origin; }, text(2), text(5), text(3)},
      {"control", [](auto& f) { f.no_control = true; }, "control = false",
       [](const S& s) { return std::string(s.control.value ? "on" : "off"); },
       [](const S& s) { return s.control.origin == "--no-control" ? std::string("--control") : s.control.origin; },
       "off", "off", "on"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.key);
    MeasurementFlags flags;
    c.flag(flags);
    const auto file = run_of(c.file_line);
    const RunConfig empty;
    SUBCASE(("flag over file: " + c.key).c_str()) {
      const auto s = resolve(flags, &file, k_run_defaults);
      CHECK(c.value(s) == c.flag_value);
      CHECK(c.origin(s) == flag_of(c.key));
    }
    SUBCASE(("file over default: " + c.key).c_str()) {
      const auto s = resolve({}, &file, k_run_defaults);
      CHECK(c.value(s) == c.file_value);
      CHECK(c.origin(s) == "rb.toml:2:" + std::to_string(c.key.size() + 4) + ": run." + c.key);
    }
    SUBCASE(("default: " + c.key).c_str()) {
      const auto s = resolve({}, &empty, k_run_defaults);
      if (!c.default_value.empty()) {
        CHECK(c.value(s) == c.default_value);
      }
      CHECK(c.origin(s) == "default");
    }
  }
}

TEST_CASE("config::resolve: the interval and --fail-on come from flags or the defaults") {
  MeasurementFlags flags;
  auto s = resolve(flags, nullptr, k_compare_defaults);
  CHECK(s.interval.value == analysis::IntervalMethod::signed_rank);
  CHECK(s.fail_on.value == FailOn::regression);
  CHECK(s.budget_seconds.value == 120);
  CHECK(s.replicas.value == 1);
  CHECK(s.seed.origin == "random");
  flags.interval = analysis::IntervalMethod::bootstrap;
  flags.fail_on = FailOn::never;
  s = resolve(flags, nullptr, k_compare_defaults);
  CHECK(s.interval.value == analysis::IntervalMethod::bootstrap);
  CHECK(s.interval.origin == "--interval");
  CHECK(s.fail_on.value == FailOn::never);
  CHECK(s.fail_on.origin == "--fail-on");
  CHECK(s.analysis().interval == analysis::IntervalMethod::bootstrap);
}

TEST_CASE("config::resolve: min_rounds yields to a smaller max_rounds unless a flag asked for it") {
  MeasurementFlags flags;
  flags.max_rounds = 4;
  CHECK(resolve(flags, nullptr, k_run_defaults).min_rounds.value == 4);
  const auto file = run_of("min_rounds = 8");
  CHECK(resolve(flags, &file, k_run_defaults).min_rounds.value == 4);
  flags.min_rounds = 6;
  CHECK(error_of(flags) == "--min-rounds must be between 1 and --max-rounds (4), got 6");
}

TEST_CASE("config::resolve: a bad value is blamed on where it came from") {
  MeasurementFlags flags;
  flags.threshold = 0.9;
  CHECK(error_of(flags) == "--threshold must be a ratio above 1 (e.g. 1.15), got 0.9");
  flags = {};
  flags.budget = "500ms";
  CHECK(error_of(flags) == "--budget is 0.5s: no round of interleaved invocations fits in less than 1s");
  flags = {};
  flags.budget = "0";
  CHECK(error_of(flags) == "--budget must be greater than 0, got '0'");
  flags = {};
  flags.alpha = 1.0;
  CHECK(error_of(flags) == "--alpha must be between 0 and 1, got 1");
  flags = {};
  flags.replicas = 65;
  CHECK(error_of(flags) == "--replicas must be between 1 and 64, got 65");
  flags = {};
  flags.warmup = -1;
  CHECK(error_of(flags) == "--warmup must be 0 or more (at most 100), got -1");
  flags = {};
  flags.warmup = 101;
  CHECK(error_of(flags) == "--warmup must be 0 or more (at most 100), got 101");

  // the same rules for the file, with its position; the reader applies them
  auto file_error = [](const std::string& line) {
    try {
      run_of(line);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  CHECK(file_error("threshold = 0.9") == "rb.toml:2:13: run.threshold must be a ratio above 1 (e.g. 1.15), got 0.9");
  CHECK(file_error("budget = \"500ms\"") ==
        "rb.toml:2:10: run.budget is 0.5s: no round of interleaved invocations fits in less than 1s");
  CHECK(file_error("max_rounds = 0") == "rb.toml:2:14: run.max_rounds must be at least 1 and at most 1000000, got 0");
  CHECK(file_error("replicas = 0") == "rb.toml:2:12: run.replicas must be between 1 and 64, got 0");
}

TEST_CASE("config: --fail-on and verdict words round-trip, nothing else parses") {
  for (auto value : {FailOn::regression, FailOn::inconclusive, FailOn::never}) {
    CHECK(parse_fail_on(fail_on_name(value)) == value);
  }
  CHECK_FALSE(parse_fail_on("Regression").has_value());
  for (auto value : {analysis::RunVerdict::pass, analysis::RunVerdict::regression, analysis::RunVerdict::inconclusive,
                     analysis::RunVerdict::error}) {
    CHECK(analysis::parse_run_verdict(analysis::run_verdict_name(value)) == value);
  }
  CHECK_FALSE(analysis::parse_run_verdict("passed").has_value());
  CHECK(analysis::parse_interval("bootstrap") == analysis::IntervalMethod::bootstrap);
  CHECK_FALSE(analysis::parse_interval("bca").has_value());
}

TEST_CASE("config: the Action states the defaults that refbench applies") {
  // action.yml passes empty inputs through, so refbench's defaults apply;
  // its descriptions must say the same
  const auto action = util::read_file(std::string(REFBENCH_FIXTURES_DIR) + "/../../action.yml");
  REQUIRE(action.has_value());
  auto described = [&](const std::string& input) {
    const auto at = action->find("\n  " + input + ":\n");
    REQUIRE(at != std::string::npos);
    const auto from = action->find("(default ", at);
    REQUIRE(from != std::string::npos);
    return action->substr(from + 9, action->find(')', from) - from - 9);
  };
  CHECK(described("budget") == fmt::format("{}s", k_run_defaults.budget.count()));
  CHECK(described("max-rounds") == fmt::format("{}", model::k_default_max_rounds));
  CHECK(described("threshold") == fmt::format("{}", model::k_default_threshold));
  CHECK(described("fail-on") == fail_on_name(k_default_fail_on));
}
