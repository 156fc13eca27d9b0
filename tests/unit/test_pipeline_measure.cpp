#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace refbench;
using doubles::FakeExecutor;
using model::Invocation;
using model::Outcome;

namespace {

Invocation command(const std::string& arm) { return {{"/bin/" + arm}, {}, "", std::chrono::seconds(60), ""}; }

// Walls of 0.1 s with ±1 % of deterministic jitter; the candidate's times `factor`.
FakeExecutor::Script walls(double factor) {
  return [factor](const Invocation& invocation, std::size_t index) {
    Outcome outcome;
    const double jitter = 1.0 + 0.01 * std::sin(static_cast<double>(index) * 1.7);
    outcome.readings[model::Reading::wall] = 0.1 * jitter * (invocation.argv[0] == "/bin/candidate" ? factor : 1.0);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall];
    outcome.readings[model::Reading::rss] = 50 << 20;
    return outcome;
  };
}

// A compare-like plan of one cell `x` with the given flags, written to `out`.
pipeline::MeasurementPlan plan_of(const config::MeasurementFlags& flags, const std::string& out) {
  const auto settings = config::resolve(flags, nullptr, config::k_compare_defaults);
  pipeline::MeasurementPlan plan{.cells = {{"x", command("baseline"), command("candidate"), false}},
                                 .settings = settings,
                                 .auto_control = settings.control.value,
                                 .out = out,
                                 .could_not_start_hint = "check the command"};
  plan.header.command = "compare";
  return plan;
}

struct Ran {
  int code = -1;
  std::string error; // the refbench::Error thrown, if any
  int error_code = 0;
  nlohmann::json results;
  std::string out, err;
};

Ran measure(const pipeline::MeasurementPlan& plan, FakeExecutor& fake) {
  Ran ran;
  std::ostringstream out, err;
  pipeline::Sinks sinks{{}, &out, &err, -1};
  sinks.clock = [&fake] { return fake.now(); };
  formats::JournalWriter journal((plan.out / "journal.jsonl").string());
  try {
    ran.code = pipeline::measure_and_report(plan, fake, journal, sinks);
  } catch (const Error& error) {
    ran.error = error.what();
    ran.error_code = static_cast<int>(error.code());
  }
  ran.results = nlohmann::json::parse(util::read_file(plan.out / "results.json").value_or("null"));
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

config::MeasurementFlags flags_of(double threshold, config::FailOn fail_on, int rounds = 20) {
  config::MeasurementFlags flags;
  flags.seed = 7;
  flags.max_rounds = rounds;
  flags.min_rounds = rounds;
  flags.threshold = threshold;
  flags.fail_on = fail_on;
  flags.replicas = 1;
  return flags;
}

} // namespace

TEST_CASE("pipeline::measure_and_report: the exit code of each verdict under --fail-on") {
  test::ScratchDir dir;
  struct Case {
    double factor;
    config::FailOn fail_on;
    std::string verdict;
    int code;
  };
  for (const auto& c :
       {Case{1.0, config::FailOn::regression, "pass", 0}, Case{1.5, config::FailOn::regression, "regression", 1},
        Case{1.5, config::FailOn::never, "regression", 0}, Case{0.6, config::FailOn::regression, "pass", 0}}) {
    CAPTURE(c.factor);
    CAPTURE(config::fail_on_name(c.fail_on));
    FakeExecutor fake(walls(c.factor));
    const auto ran = measure(plan_of(flags_of(1.15, c.fail_on), dir.str()), fake);
    CHECK(ran.error.empty());
    CHECK(ran.code == c.code);
    CHECK(ran.results.at("verdict") == c.verdict);
    CHECK(ran.out.find("x") != std::string::npos); // the verdict table
  }
}

TEST_CASE("pipeline::measure_and_report: inconclusive fails only under --fail-on inconclusive") {
  test::ScratchDir dir;
  // a 1.14x change against a 1.15 threshold with 3 pairs: the interval cannot decide
  for (auto [fail_on, code] : {std::pair{config::FailOn::regression, 0}, std::pair{config::FailOn::inconclusive, 1}}) {
    FakeExecutor fake(walls(1.14));
    const auto ran = measure(plan_of(flags_of(1.15, fail_on, 3), dir.str()), fake);
    CHECK(ran.results.at("verdict") == "inconclusive");
    CHECK(ran.code == code);
  }
}

TEST_CASE("pipeline::measure_and_report: the A/A control runs the baseline on both sides") {
  test::ScratchDir dir;
  FakeExecutor fake(walls(1.0));
  const auto ran = measure(plan_of(flags_of(1.15, config::FailOn::regression, 5), dir.str()), fake);
  REQUIRE(ran.code == 0);
  const auto& cells = ran.results.at("cells");
  REQUIRE(cells.size() == 2);
  CHECK(cells[1].at("name") == "x-control");
  CHECK(cells[1].at("control") == true);
  std::size_t control_calls = 0;
  for (const auto& sample : cells[1].at("samples")) {
    CHECK(sample.at("arm").is_string());
    ++control_calls;
  }
  CHECK(control_calls > 0);
  // every invocation the fake saw was one of the two commands, and the
  // control's were all the baseline's
  std::size_t candidate_calls = 0;
  for (const auto& call : fake.calls()) {
    candidate_calls += call.argv[0] == "/bin/candidate" ? 1 : 0;
  }
  CHECK(candidate_calls == 5 + 1); // the rounds and the warm-up of cell x only
  CHECK(fake.calls().size() == (5 + 1) * 2 + control_calls);

  config::MeasurementFlags flags = flags_of(1.15, config::FailOn::regression, 5);
  flags.no_control = true;
  FakeExecutor without(walls(1.0));
  CHECK(measure(plan_of(flags, dir.str()), without).results.at("cells").size() == 1);
}

TEST_CASE("pipeline::measure_and_report: a failing command is exit 4, one that cannot start exit 3") {
  test::ScratchDir dir;
  SUBCASE("fails") {
    FakeExecutor fake([](const Invocation& invocation, std::size_t index) {
      Outcome outcome = walls(1.0)(invocation, index);
      if (invocation.argv[0] == "/bin/candidate") {
        outcome.exit_code = 3;
        outcome.stderr_tail = "boom\n";
      }
      return outcome;
    });
    const auto ran = measure(plan_of(flags_of(1.15, config::FailOn::never), dir.str()), fake);
    CHECK(ran.code == 4);
    CHECK(ran.results.at("verdict") == "error");
  }
  SUBCASE("cannot start") {
    FakeExecutor fake([](const Invocation& invocation, std::size_t index) {
      Outcome outcome = walls(1.0)(invocation, index);
      if (invocation.argv[0] == "/bin/candidate") {
        outcome.termination = model::Termination::spawn_failed;
        outcome.spawn_errno = ENOEXEC;
      }
      return outcome;
    });
    const auto ran = measure(plan_of(flags_of(1.15, config::FailOn::regression), dir.str()), fake);
    CHECK(ran.error_code == 3);
    CHECK(ran.error.find("cell x: the candidate command") != std::string::npos);
    CHECK(ran.results.at("verdict") == "error"); // written before the refusal
  }
}

TEST_CASE("pipeline::measure_and_report: an interrupt writes the partial results, then exits 130") {
  test::ScratchDir dir;
  FakeExecutor fake([](const Invocation& invocation, std::size_t index) -> Outcome {
    if (index == 20) {
      throw InterruptedError(SIGINT);
    }
    return walls(1.0)(invocation, index);
  });
  const auto ran = measure(plan_of(flags_of(1.15, config::FailOn::regression), dir.str()), fake);
  CHECK(ran.error_code == 130);
  CHECK(ran.results.at("partial") == true);
  const auto journal = util::read_file(dir.path() / "journal.jsonl").value_or("");
  CHECK(std::count(journal.begin(), journal.end(), '\n') >= 20); // the header and every sample before the signal
}
