#include <doctest/doctest.h>

#include "git_test_support.hpp"
#include "pipeline_test_support.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/git/commits.hpp>
#include <refbench/pipeline/bisect_steps.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/util/files.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

// BisectSteps over a real repository, real worktrees and a real (trivial)
// build, with a FakeExecutor in place of the launcher: each commit's `prog`
// states its speed ("speed 2": twice the time) or that it fails, and the
// fake reads that from the program it is asked to run. So the readings
// asserted come from the tree each step really measured.

using namespace refbench;

namespace bisect_steps_test {

namespace fs = std::filesystem;

// What commit k's prog says of itself: a speed, "fail" (it exits 1) or "broken" (its tree does not build).
struct StepsCommit {
  int speed = 1;
  bool fails = false;
  bool broken = false;
};

// Commits `commits` in order (each tree building unless a file `broken` is in it) to `dir`/repo, tagged c0, c1, …, the
// config beside each prog; the repository's path.
std::string steps_repo(const test::TempDir& dir, const std::vector<StepsCommit>& commits) {
  test::sh("git init -q -b main repo", dir.path().string());
  const std::string repo = dir / "repo";
  REQUIRE(util::write_file_atomically(fs::path(repo) / "refbench.toml", test::work_cell_config("test ! -e broken")));
  for (std::size_t k = 0; k < commits.size(); ++k) {
    const auto& c = commits[k];
    const std::string tag = "c" + std::to_string(k);
    test::sh("printf '#!/bin/sh\\n# speed " + std::to_string(c.speed) + (c.fails ? "\\n# fail" : "") + "\\n# " + tag +
                 "\\n' > prog && chmod +x prog && " + (c.broken ? "touch broken" : "rm -f broken") +
                 " && git add -A && git commit -q -m " + tag + " && git tag " + tag,
             repo);
  }
  return repo;
}

// The text of the program `invocation` runs; "" for anything that is no commit's prog.
std::string steps_program_text(const model::Invocation& invocation) {
  return invocation.argv.empty() ? std::string() : util::read_file(invocation.argv[0]).value_or("");
}

// 10 ms per unit of the prog's speed with ±1 % of deterministic jitter, exit 1 for a prog marked "fail";
// counts the invocations of each speed.
doubles::FakeExecutor::Script steps_by_speed(std::map<int, int>& counts) {
  return [&counts](const model::Invocation& invocation, std::size_t index) {
    const auto text = steps_program_text(invocation);
    const auto at = text.find("# speed ");
    const int speed = at == std::string::npos ? 0 : std::stoi(text.substr(at + 8));
    ++counts[speed];
    model::Outcome outcome;
    const double jitter = 1.0 + 0.01 * std::sin(static_cast<double>(index) * 1.7);
    outcome.readings[model::Reading::wall] = 0.01 * jitter * std::max(speed, 1);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall];
    outcome.readings[model::Reading::rss] = 8 << 20;
    if (text.find("# fail") != std::string::npos) {
      outcome.exit_code = 1;
      outcome.stderr_tail = "prog: failed on purpose\n";
    }
    return outcome;
  };
}

// A repository of `commits` and a BisectSteps over it, as bisect_on sets one up, writing to <dir>/bisect.
struct StepsLab {
  test::IsolatedGitEnvironment git;
  test::TempDir dir;
  std::string repo;
  std::map<int, int> counts;
  doubles::FakeExecutor fake{steps_by_speed(counts)};
  std::ostringstream out, err;
  pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  pipeline::BisectOptions options;
  pipeline::Inputs in;
  model::IsolationPlan isolation;
  pipeline::BisectReport report;
  fs::path out_dir;
  std::optional<pipeline::BisectSteps> steps;

  explicit StepsLab(const std::vector<StepsCommit>& commits) : repo(steps_repo(dir, commits)) {
    options.run.repo = repo;
    options.run.out = dir / "bisect";
    in = pipeline::read_inputs(options.run);
    const auto [out_path, work] = pipeline::out_and_work(options.run);
    out_dir = out_path;
    pipeline::make_out_dirs(out_dir);
    isolation = process::plan_isolation_here(in.settings.isolate.value, {});
    steps.emplace(in, options, out_dir, work, bench, isolation, report, true);
  }

  // The full SHA of tag `tag`.
  std::string sha(const std::string& tag) const { return test::sh("git rev-parse " + tag, repo); }
};

} // namespace bisect_steps_test

using namespace bisect_steps_test;

TEST_CASE("pipeline::BisectSteps::built: each commit built once in its worktree; one that does not build is skipped") {
  StepsLab lab({{.speed = 1}, {.speed = 1, .broken = true}});
  auto& steps = *lab.steps;
  const auto good = lab.sha("c0");
  const auto broken = lab.sha("c1");
  CHECK(steps.needed_pairs() == 12);    // the config's min_rounds
  CHECK(steps.short_budget(2).empty()); // nothing measured yet: no cost to say it cannot
  CHECK(steps.budget_left());

  const std::string* tree = steps.built(good);
  REQUIRE(tree != nullptr);
  CHECK(util::read_file(fs::path(*tree) / "prog").value_or("").find("# c0") != std::string::npos);
  CHECK(steps.built(good) == tree); // the same worktree, not built again
  CHECK(lab.report.builds == 1);

  {
    test::CapturedOutput build_log; // the failing build's log tail, printed as it fails
    CHECK(steps.built(broken) == nullptr);
    CHECK(steps.built(broken) == nullptr);
  }
  CHECK(lab.report.builds == 2);
  CHECK(lab.report.skipped == std::vector<std::string>{broken});
  CHECK(fs::exists(lab.out_dir / "logs" / ("build-" + git::short_sha(broken) + ".log")));

  // an end of a step must build: exit 3, naming its build log
  const auto refusal = test::refusal_line([&] { steps.measure(good, {broken}, "confirm", 0.95, std::nullopt, false); });
  CHECK(refusal.find("refbench: error: " + git::short_sha(broken) + " does not build, and an end of a range must") ==
        0);
  CHECK(lab.counts.empty()); // nothing was measured

  steps.save();
  const auto saved = nlohmann::json::parse(util::read_file(lab.out_dir / "bisect.json").value_or("{}"));
  CHECK(saved.value("builds", 0) == 2);
  CHECK(saved.value("status", "") == "running");
  CHECK(fs::is_regular_file(lab.out_dir / "report.md"));
}

TEST_CASE("pipeline::BisectSteps::measure: a step is a run of its own; reading_of and control_reading_of its logs") {
  StepsLab lab({{.speed = 1}, {.speed = 2}});
  auto& steps = *lab.steps;
  const auto good = lab.sha("c0");
  const auto slow = lab.sha("c1");

  const auto run = steps.measure(good, {slow}, "confirm", 0.95, std::nullopt, false);

  CHECK(run.dir == "steps/01-confirm");
  CHECK(fs::is_regular_file(lab.out_dir / run.dir / "journal.jsonl"));
  CHECK(fs::is_regular_file(lab.out_dir / run.dir / "results.json"));
  CHECK(run.shas == std::vector<std::string>{good, slow});
  CHECK(run.rounds == 12);
  CHECK(lab.counts[2] == 12); // the slow commit: once a round; the good one also twice for the A/A control
  CHECK(lab.counts[1] == 36);

  const auto reading = pipeline::reading_of(run, "work", "wall", git::short_sha(slow));
  CHECK(reading.n == 12);
  CHECK(std::exp(reading.estimate) == doctest::Approx(2.0).epsilon(0.02));
  CHECK(reading.low <= reading.estimate);
  CHECK(reading.estimate <= reading.high);
  CHECK(std::exp(reading.low) > 1.9); // ±1 % of jitter on each side cannot stretch it further
  const auto control = pipeline::control_reading_of(run, "wall");
  REQUIRE(control.has_value());
  CHECK(std::exp(control->estimate) == doctest::Approx(1.0).epsilon(0.02));
  CHECK(control->n == 12);
  CHECK_FALSE(pipeline::failure_of(run, "work", "wall").has_value());

  // what the step does not have: no reading, an interval of −∞ to ∞
  const auto none = pipeline::reading_of(run, "other", "wall", git::short_sha(slow));
  CHECK(none.n == 0);
  CHECK(none.low == -std::numeric_limits<double>::infinity());
  CHECK(none.high == std::numeric_limits<double>::infinity());
  CHECK_FALSE(pipeline::control_reading_of(run, "user").has_value());

  const auto more = steps.measure_more(run);
  REQUIRE(more.has_value());
  CHECK(more->more_dirs == std::vector<std::string>{"steps/02-confirm-more"});
  CHECK(more->dir == run.dir);
  CHECK(fs::is_regular_file(lab.out_dir / "steps/02-confirm-more/journal.jsonl"));
  CHECK(more->rounds == 24); // both blocks' rounds, analysed together
  CHECK(pipeline::reading_of(*more, "work", "wall", git::short_sha(slow)).n == 24);
  CHECK(lab.counts[2] == 24);
}

TEST_CASE("pipeline::failure_of: a step whose candidate fails names the failure and has no reading") {
  StepsLab lab({{.speed = 1}, {.speed = 1, .fails = true}});
  auto& steps = *lab.steps;
  const auto good = lab.sha("c0");
  const auto failing = lab.sha("c1");

  std::optional<pipeline::BisectSteps::Run> measured;
  {
    test::CapturedOutput failures; // print_failures writes the cell's error to std::cerr
    measured = steps.measure(good, {failing}, "step", 0.95, std::nullopt, false);
  }
  const auto& run = *measured;

  CHECK(run.dir == "steps/01-step");
  const auto failure = pipeline::failure_of(run, "work", "wall");
  REQUIRE(failure.has_value());
  CHECK(failure->find("work wall: ") == 0);
  const auto reading = pipeline::reading_of(run, "work", "wall", git::short_sha(failing));
  CHECK(reading.n == 0);
  CHECK(reading.low == -std::numeric_limits<double>::infinity());
  CHECK(reading.high == std::numeric_limits<double>::infinity());
  CHECK_FALSE(pipeline::failure_of(run, "elsewhere", "user").has_value()); // neither that cell nor a control of user
}
