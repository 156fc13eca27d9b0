#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/runner/rounds.hpp>

#include <fmt/format.h>
#include <fstream>

using namespace refbench;
using doubles::FakeExecutor;

namespace {

// A callgrind file of one process: main calls work, which ran `work`
// instructions of its own, and malloc `mallocs` times.
std::string explain_profile_text(double work, int mallocs) {
  return fmt::format("# callgrind format\nversion: 1\npositions: line\nevents: Ir\nsummary: {0}\n\n"
                     "ob=(1) /arms/x/prog\nfl=(1) prog.c\nfn=(1) work\n0 {1}\ncob=(2) /lib/libc.so.6\n"
                     "cfn=(3) malloc\ncalls={2} 0\n0 {3}\n\nfn=(2) main\n0 10\ncfn=(1)\ncalls=1 0\n0 {4}\n"
                     "\nob=(2)\nfn=(3)\n0 {3}\n\ntotals: {0}\n",
                     work + 10 + mallocs * 10, work, mallocs, mallocs * 10, work + mallocs * 10);
}

// The run's walls: 0.01 s per timed invocation, 0.5 s per one under
// callgrind, which writes the profile its arm's argv asks for.
FakeExecutor::Script explain_script(const std::string& tool) {
  return [tool](const model::Invocation& invocation, std::size_t) {
    model::Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.01;
    if (invocation.argv.front() == tool) {
      const bool candidate = invocation.argv.back() == "cand";
      for (const auto& arg : invocation.argv) {
        if (arg.starts_with("--callgrind-out-file=")) {
          auto path = arg.substr(std::string("--callgrind-out-file=").size());
          path.replace(path.find("%p"), 2, "42");
          std::ofstream(path) << explain_profile_text(candidate ? 2000 : 1000, candidate ? 30 : 10);
        }
      }
      outcome.readings[model::Reading::wall] = 0.5;
    }
    return outcome;
  };
}

struct ExplainRun {
  std::vector<model::Explanation> explanations;
  std::vector<profile::Frame> trees;
  std::size_t profiled = 0; // invocations under callgrind
};

ExplainRun explain_run(model::RoundSettings settings, const std::vector<std::size_t>& cells) {
  const std::string tool = "/fake/valgrind";
  FakeExecutor fake(explain_script(tool));
  ExplainRun run;
  runner::RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  std::vector<model::CellSpec> specs;
  for (const char* name : {"a", "a-control"}) {
    specs.push_back({name, {{"prog", "base"}, {}, "", {}, ""}, {{"prog", "cand"}, {}, "", {}, ""}});
  }
  specs[1].control = true;
  hooks.explain = [&](const model::RunRecord&) {
    std::vector<model::ExplainTarget> targets;
    for (auto cell : cells) {
      targets.push_back({cell, specs[cell].name, specs[cell].baseline, specs[cell].candidate, ""});
    }
    return targets;
  };
  hooks.explained = [&](model::Explanation explanation, const profile::Frame* tree) {
    run.explanations.push_back(std::move(explanation));
    run.trees.push_back(tree != nullptr ? *tree : profile::Frame{});
  };
  formats::JournalWriter journal;
  runner::run_rounds(specs, settings, fake, journal, hooks);
  for (const auto& call : fake.calls()) {
    run.profiled += call.argv.front() == tool ? 1 : 0;
  }
  return run;
}

model::RoundSettings explain_settings(const std::string& dir, double budget) {
  model::RoundSettings settings{budget, 3, 3, 0, 7};
  settings.counts_dir = dir;
  settings.explain_tool = model::CounterTool{model::CounterSource::valgrind, "", "valgrind-3.19.0", "/fake/valgrind"};
  settings.explain_missing = "not explained: valgrind is not on the PATH";
  return settings;
}

} // namespace

TEST_CASE("runner explanations: one callgrind invocation per arm after the rounds, what moved, never the control") {
  test::ScratchDir dir;
  const auto run = explain_run(explain_settings(dir / "counts", 1000), {0, 1});
  REQUIRE(run.explanations.size() == 1); // the control (cell 1) is skipped
  CHECK(run.profiled == 2);
  const auto& e = run.explanations[0];
  CHECK(e.problem.empty());
  CHECK(e.cell == "a");
  CHECK(e.source == "callgrind");
  CHECK(e.seconds == doctest::Approx(1.0)); // the two profiled invocations' walls
  REQUIRE(!e.functions.empty());
  CHECK(e.functions[0].function == "work");
  CHECK(e.functions[0].object == "prog");
  CHECK(e.functions[0].baseline == 1000);
  CHECK(e.functions[0].candidate == 2000);
  REQUIRE(e.allocation_sites.size() == 1);
  CHECK(e.allocation_sites[0].function == "work");
  CHECK(e.allocation_sites[0].baseline == 10);
  CHECK(e.allocation_sites[0].candidate == 30);
  CHECK(run.trees[0].name == "all");
}

TEST_CASE("runner explanations: what does not fit in the budget, or has no valgrind, is said and not run") {
  test::ScratchDir dir;
  SUBCASE("the budget left is shorter than both arms' walls under valgrind's slowdown") {
    // 3 rounds × 2 arms × 0.01 s spent; 2 × 0.01 × 50 = 1 s needed, 0.1 left
    const auto run = explain_run(explain_settings(dir / "counts", 0.16), {0});
    REQUIRE(run.explanations.size() == 1);
    CHECK(run.explanations[0].problem.find("would not fit in the 0 s left of the budget") != std::string::npos);
    CHECK(run.profiled == 0);
  }
  SUBCASE("no valgrind") {
    auto settings = explain_settings(dir / "counts", 1000);
    settings.explain_tool.reset();
    const auto run = explain_run(settings, {0});
    REQUIRE(run.explanations.size() == 1);
    CHECK(run.explanations[0].problem == "not explained: valgrind is not on the PATH");
    CHECK(run.profiled == 0);
  }
}
