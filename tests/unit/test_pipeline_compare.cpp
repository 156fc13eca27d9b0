#include <doctest/doctest.h>

#include "pipeline_test_support.hpp"
#include "scratch_dir.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/pipeline/compare.hpp>
#include <refbench/process/counters.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/files.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/prctl.h>

// `refbench compare` end to end: the real launcher (this binary doubles as
// one) runs the allocate fixture, whose allocation counts are exact, so the
// verdict and ratio asserted do not depend on timing; the ratio is checked
// against counts taken here by running the fixture under the counter alone.

using namespace refbench;

namespace compare_test {

namespace fs = std::filesystem;

// The allocate fixture with `args` as one command line.
std::string compare_allocate(const std::string& args) { return std::string(REFBENCH_ALLOCATE_FIXTURE) + " " + args; }

// The malloc-family calls the allocation counter counts for one run of the allocate fixture with `calls` and `size`,
// in the environment compare gives its commands.
double compare_allocation_calls(const std::string& calls, const std::string& size) {
  test::ScratchDir dir;
  const auto counts = dir.path() / "counts";
  REQUIRE(process::clear_counts(counts));
  const auto library = process::write_allocation_counter(counts);
  REQUIRE(library.has_value());
  model::Invocation invocation{.argv = {REFBENCH_ALLOCATE_FIXTURE, calls, size},
                               .env = process::without_secrets(process::current_environment(), {}),
                               .timeout = std::chrono::seconds(20)};
  REQUIRE(model::succeeded(process::run_process(process::allocation_counted_invocation(invocation, *library, counts))));
  const auto read = process::read_allocation_count(counts, invocation);
  REQUIRE_MESSAGE(read.has_value(), read.error());
  return read->calls;
}

// Options for a quick compare into `out`: seed 5, 6 rounds, no CPU isolation, no box.
pipeline::CompareOptions compare_options(const fs::path& out, const std::string& baseline,
                                         const std::string& candidate) {
  pipeline::CompareOptions o;
  o.baseline = baseline;
  o.candidates = {candidate};
  o.out = out.string();
  o.measure.seed = 5;
  o.measure.max_rounds = 6;
  o.measure.min_rounds = 6;
  o.measure.warmup = 1;
  o.measure.isolate = "off";
  o.sandbox = model::SandboxMode::off;
  return o;
}

// Runs run_compare on `o` quietly, its output captured; afterwards makes this
// process dumpable again (compare hides itself from its commands for good,
// which the tests after this one must not inherit).
int compare_run(const pipeline::CompareOptions& o) {
  struct Dumpable {
    ~Dumpable() { ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); }
  } restore;
  test::CapturedOutput captured;
  return pipeline::run_compare(o, {.quiet = true});
}

// The analysis row of `cell` × `metric` in the results.json at `path`.
nlohmann::json compare_row(const fs::path& path, const std::string& cell, const std::string& metric) {
  return test::analysis_row(nlohmann::json::parse(util::read_file(path).value_or("{}")), cell, metric);
}

} // namespace compare_test

using namespace compare_test;

TEST_CASE("pipeline::run_compare: twice the allocations is a gated REGRESSION at the counted ratio, exit 1") {
  test::ScratchDir dir;
  auto o = compare_options(dir.path() / "out", compare_allocate("2000 64"), compare_allocate("4000 64"));
  o.metrics = "wall,allocations";
  o.gate = "allocations";
  const double expected = compare_allocation_calls("4000", "64") / compare_allocation_calls("2000", "64");

  CHECK(compare_run(o) == 1);

  const auto results_path = dir.path() / "out/results.json";
  const auto results = nlohmann::json::parse(util::read_file(results_path).value_or("{}"));
  CHECK(results.value("verdict", "") == "regression");
  const auto allocations = compare_row(results_path, "compare", "allocations");
  CHECK(allocations.at("gated") == true);
  CHECK(allocations.at("verdict") == "REGRESSION");
  CHECK(allocations.at("ratio").get<double>() == doctest::Approx(expected).epsilon(1e-12));
  CHECK(allocations.at("ci_low") == allocations.at("ci_high")); // counts that settle: a point
  CHECK(allocations.at("threshold").get<double>() == doctest::Approx(1.01));
  CHECK(compare_row(results_path, "compare", "wall").at("gated") == false);
  const auto control = compare_row(results_path, "compare-control", "allocations");
  CHECK(control.at("ratio").get<double>() == 1.0);
  CHECK(control.at("ci_low").get<double>() == 1.0);
  CHECK(control.at("ci_high").get<double>() == 1.0);
  for (const char* file : {"journal.jsonl", "report.md", "report.csv"}) {
    CHECK(fs::is_regular_file(dir.path() / "out" / file));
  }
  CHECK(util::read_file(dir.path() / "out/report.md").value_or("").find("| compare | allocations |") !=
        std::string::npos);
}

TEST_CASE("pipeline::run_compare: a candidate that fails is its cell's ERROR, exit 4, the results written") {
  test::ScratchDir dir;
  auto o = compare_options(dir.path() / "out", "/bin/true", "/bin/false");
  o.metrics = "wall";
  o.gate = "wall";

  CHECK(compare_run(o) == 4);

  const auto results = nlohmann::json::parse(util::read_file(dir.path() / "out/results.json").value_or("{}"));
  CHECK(results.value("verdict", "") == "error");
  CHECK(compare_row(dir.path() / "out/results.json", "compare", "wall").at("verdict") == "ERROR");
}

TEST_CASE("pipeline::run_compare: bad flags are exit 2 and a command that cannot start exit 3, before anything runs") {
  test::ScratchDir dir;
  const auto out = dir.path() / "out";
  auto o = compare_options(out, "/bin/true", "/bin/true");
  int code = 0;
  std::string message;

  SUBCASE("an empty --name") {
    o.name = "";
    code = 2;
    message = "--name must not be empty";
  }
  SUBCASE("a --name that names the A/A control") {
    o.name = "parse-control";
    code = 2;
    message = "--name parse-control ends in '-control', which names the A/A control cell";
  }
  SUBCASE("an unknown metric") {
    o.metrics = "wall,bogus";
    code = 2;
    message = "--metric: ";
  }
  SUBCASE("a gated metric that is not shown") {
    o.metrics = "wall";
    o.gate = "user";
    code = 2;
    message = "--gate user is not among the shown metrics (wall)";
  }
  SUBCASE("one -n name for two commands") {
    o.command_names = {"old"};
    code = 2;
    message = "1 command names for 2 commands";
  }
  SUBCASE("an unbalanced quote") {
    o.candidates = {"/bin/echo 'unclosed"};
    code = 2;
    message = "candidate command `/bin/echo 'unclosed` ";
  }
  SUBCASE("a program that is not there") {
    o.baseline = (dir.path() / "no-such-program").string();
    code = 3;
    message = "baseline command cannot be started: `" + o.baseline + "` is not an executable file";
  }

  const auto thrown = test::thrown_by([&] { compare_run(o); });
  CHECK(thrown.code == code);
  CHECK(thrown.what.find(message) == 0);
  CHECK_FALSE(fs::exists(out)); // refused before the output directory was made
}

TEST_CASE("pipeline::compare_on over a FakeExecutor: a 1.3x slower candidate is a REGRESSION, nothing spawned") {
  test::ScratchDir dir;
  // walls of 0.1 s with ±1 % of deterministic jitter; the candidate ("slow") 1.3 times that
  doubles::FakeExecutor fake([](const model::Invocation& invocation, std::size_t index) {
    model::Outcome outcome;
    const double jitter = 1.0 + 0.01 * std::sin(static_cast<double>(index) * 1.7);
    const bool slow = invocation.argv.size() > 1 && invocation.argv[1] == "slow";
    outcome.readings[model::Reading::wall] = 0.1 * jitter * (slow ? 1.3 : 1.0);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall];
    outcome.readings[model::Reading::rss] = 50 << 20;
    return outcome;
  });
  std::ostringstream out;
  std::ostringstream err;
  const pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  auto o = compare_test::compare_options(dir.path() / "o", "/bin/echo fast", "/bin/echo slow");
  o.measure.max_rounds = 12;
  o.measure.min_rounds = 12;
  const int code = pipeline::compare_on(bench, o, {.quiet = true}, 0.0);
  CHECK(code == 1);
  const auto wall = compare_test::compare_row(dir.path() / "o" / "results.json", "compare", "wall");
  REQUIRE(wall.is_object());
  CHECK(wall.at("verdict") == "REGRESSION");
  CHECK(wall.at("ratio").get<double>() == doctest::Approx(1.3).epsilon(0.01));
  const auto control = compare_test::compare_row(dir.path() / "o" / "results.json", "compare-control", "wall");
  REQUIRE(control.is_object());
  CHECK(control.at("ratio").get<double>() == doctest::Approx(1.0).epsilon(0.01));
  // every invocation went to the fake: the warm-up and 12 rounds of each arm of the cell and its control,
  // then the regression's explanation, its baseline under callgrind (when valgrind is installed), whose
  // profile the fake never wrote: the explanation says so, the verdict stands
  const auto& calls = fake.calls();
  REQUIRE(calls.size() >= 2 * 2 * (1 + 12));
  CHECK(calls.size() <= 2 * 2 * (1 + 12) + 1);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CHECK(calls[i].argv.front() == (i < 52 ? "/bin/echo" : calls[i].argv.front()));
    CHECK((i < 52 || (calls[i].argv.at(2) == "--tool=callgrind" && calls[i].argv.back() == "fast")));
  }
  const auto results = nlohmann::json::parse(*util::read_file(dir.path() / "o" / "results.json"));
  REQUIRE(results.at("explanations").size() == 1);
  CHECK(results["explanations"][0]["cell"] == "compare");
  CHECK(results["explanations"][0]["problem"].get<std::string>().find(
            calls.size() > 52 ? "callgrind wrote no profile" : "valgrind is not on the PATH") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path() / "o" / "journal.jsonl"));
  CHECK(out.str().find("REGRESSION") != std::string::npos);
}
