#include <doctest/doctest.h>

#include "git_test_support.hpp"
#include "pipeline_test_support.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/pipeline/bisect.hpp>
#include <refbench/pipeline/run.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

// `run` and `bisect` orchestrated end to end over real git, real worktrees
// and a real (trivial) build, with a FakeExecutor in place of the launcher:
// each commit's `prog` says how slow it is ("speed 2": twice the time), and
// the fake reads that file from the invocation's program path. So which
// tree every invocation ran in decides the verdicts asserted here.

using namespace refbench;
using doubles::FakeExecutor;
using model::Invocation;
using model::Outcome;
using test::IsolatedGitEnvironment;
using test::sh;
using test::TempDir;

namespace {

namespace fs = std::filesystem;

// Commits `speeds` in order to `dir`/repo (each a `prog` saying its speed,
// the config beside it) and returns the repository's path.
std::string repo_of(const TempDir& dir, const std::vector<int>& speeds) {
  sh("git init -q -b main repo", dir.path().string());
  const std::string repo = dir / "repo";
  REQUIRE(util::write_file_atomically(fs::path(repo) / "refbench.toml", test::work_cell_config("true")));
  for (std::size_t k = 0; k < speeds.size(); ++k) {
    sh("printf '#!/bin/sh\\n# speed " + std::to_string(speeds[k]) + "\\n# commit " + std::to_string(k) +
           "\\n' > prog && chmod +x prog && git add -A && " + "git commit -q -m c" + std::to_string(k) +
           " && git tag c" + std::to_string(k),
       repo);
  }
  return repo;
}

// The speed the program of `invocation` states; 0 for anything else (the
// launcher's start-up probe of `true`, a hook).
int speed_of(const Invocation& invocation) {
  if (invocation.argv.empty()) {
    return 0;
  }
  const auto text = util::read_file(invocation.argv[0]);
  const auto at = text ? text->find("# speed ") : std::string::npos;
  return at == std::string::npos ? 0 : std::stoi(text->substr(at + 8));
}

// 10 ms per unit of speed with ±1 % of deterministic jitter; records how
// many invocations each speed got.
FakeExecutor::Script by_speed(std::map<int, int>& counts) {
  return [&counts](const Invocation& invocation, std::size_t index) {
    const int speed = speed_of(invocation);
    ++counts[speed];
    Outcome outcome;
    const double jitter = 1.0 + 0.01 * std::sin(static_cast<double>(index) * 1.7);
    outcome.readings[model::Reading::wall] = 0.01 * jitter * std::max(speed, 1);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall];
    outcome.readings[model::Reading::rss] = 8 << 20;
    return outcome;
  };
}

// A bisect of `repo` from c0 to `bad`, its report in `out`.
pipeline::BisectOptions bisect_options(const std::string& repo, const fs::path& out, const std::string& bad) {
  pipeline::BisectOptions o;
  o.run.repo = repo;
  o.run.out = out;
  o.good = "c0";
  o.bad = bad;
  return o;
}

nlohmann::json read_json(const fs::path& path) {
  const auto text = util::read_file(path);
  REQUIRE(text);
  return nlohmann::json::parse(*text);
}

} // namespace

TEST_CASE("pipeline::run_on: two refs built in worktrees, measured interleaved, judged and written") {
  IsolatedGitEnvironment git;
  TempDir dir;
  const std::string repo = repo_of(dir, {1, 2}); // the candidate takes twice the time
  std::map<int, int> counts;
  FakeExecutor fake(by_speed(counts));
  std::ostringstream out, err;
  const pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  pipeline::RunOptions o;
  o.repo = repo;
  o.baseline = "c0";
  o.candidates = {"c1"};
  o.out = dir / "out";
  const pipeline::CommonOptions common{.quiet = true};

  const int code = pipeline::run_on(bench, o, common, runner::monotonic_now());

  CHECK(code == 1); // a REGRESSION fails the run
  const auto results = read_json(dir / "out/results.json");
  CHECK(test::analysis_row(results, "work", "wall").at("verdict") == "REGRESSION");
  CHECK(test::analysis_row(results, "work", "wall").at("ratio").get<double>() == doctest::Approx(2.0).epsilon(0.02));
  const auto control = test::analysis_row(results, "work-control", "wall");
  CHECK(control.at("verdict") == "PASS");
  CHECK(control.at("ratio").get<double>() == doctest::Approx(1.0).epsilon(0.02));
  // 12 rounds of the cell (both arms) and of the A/A control (baseline twice)
  CHECK(counts[2] == 12);
  CHECK(counts[1] == 36);
  CHECK(fs::exists(dir / "out/journal.jsonl"));
  CHECK(util::read_file(dir / "out/report.md").value_or("").find("REGRESSION") != std::string::npos);
  CHECK(out.str().find("REGRESSION") != std::string::npos); // the verdict table, on the bench's stdout
  CHECK_FALSE(fs::exists(dir / "out/arms/a"));              // the worktrees and links are gone again
}

TEST_CASE("pipeline::run_on: an A/A run of one commit passes") {
  IsolatedGitEnvironment git;
  TempDir dir;
  const std::string repo = repo_of(dir, {1, 2});
  std::map<int, int> counts;
  FakeExecutor fake(by_speed(counts));
  std::ostringstream out, err;
  const pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  pipeline::RunOptions o;
  o.repo = repo;
  o.baseline = "c1";
  o.candidates = {"c1"};
  o.allow_same_commit = true;
  o.out = dir / "out";

  CHECK(pipeline::run_on(bench, o, {.quiet = true}, runner::monotonic_now()) == 0);
  const auto results = read_json(dir / "out/results.json");
  CHECK(test::analysis_row(results, "work", "wall").at("verdict") == "PASS");
  CHECK(counts[1] == 0); // c0's program never ran
}

TEST_CASE("pipeline::bisect_on: the commit that doubled the time is named, with its ratio") {
  IsolatedGitEnvironment git;
  TempDir dir;
  const std::string repo = repo_of(dir, {1, 1, 1, 1, 1, 2, 2, 2}); // c5 is the culprit
  std::map<int, int> counts;
  FakeExecutor fake(by_speed(counts));
  std::ostringstream out, err;
  const pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  auto o = bisect_options(repo, dir / "bisect", "c7");

  CHECK(pipeline::bisect_on(bench, o, {.quiet = true}) == 0);
  const auto report = read_json(dir / "bisect/bisect.json");
  REQUIRE(report.at("culprit").is_object());
  CHECK(report.at("culprit").at("sha") == test::sh("git rev-parse c5", repo));
  CHECK(report.at("culprit").at("ratio").get<double>() == doctest::Approx(2.0).epsilon(0.02));
  CHECK(report.at("status") == "done");
  // a search of 7 commits: the confirm, at most ⌈log2 7⌉ steps and the culprit's own step
  CHECK(report.at("steps").size() <= 5);
  CHECK(out.str().find("c5") != std::string::npos);
}

namespace {

// by_speed, where an invocation run with the allocation counter preloaded
// (REFBENCH_ALLOC_DIR set) leaves its count: 1000 calls of 64 bytes per
// unit of speed; `counted` tells how many were.
FakeExecutor::Script allocating_by_speed(std::map<int, int>& counts, int& counted) {
  return [&counts, &counted, timed = by_speed(counts)](const Invocation& invocation, std::size_t index) {
    const auto dir = std::find_if(invocation.env.begin(), invocation.env.end(),
                                  [](const std::string& entry) { return entry.starts_with("REFBENCH_ALLOC_DIR="); });
    if (dir != invocation.env.end()) {
      ++counted;
      const std::uint64_t calls = 1000 * static_cast<std::uint64_t>(speed_of(invocation));
      const std::array<std::uint64_t, 2> file{calls, 64 * calls}; // little-endian, as the counter writes it
      std::ofstream(dir->substr(dir->find('=') + 1) + "/alloc." + std::to_string(index) + ".0", std::ios::binary)
          .write(reinterpret_cast<const char*>(file.data()), sizeof(file));
    }
    return timed(invocation, index);
  };
}

} // namespace

TEST_CASE("pipeline::bisect_on --metric allocations: a 3 % rise is named from counts, each commit counted once") {
  IsolatedGitEnvironment git;
  TempDir dir;
  const std::string repo = repo_of(dir, {100, 100, 100, 103, 103, 103}); // c3: 3 % more allocations and time
  std::map<int, int> counts;
  int counted = 0;
  FakeExecutor fake(allocating_by_speed(counts, counted));
  std::ostringstream out, err;
  const pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  auto o = bisect_options(repo, dir / "bisect", "c5");
  o.metric = "allocations"; // not among the cell's metrics: the bisect shows and gates it

  CHECK(pipeline::bisect_on(bench, o, {.quiet = true}) == 0);
  const auto report = read_json(dir / "bisect/bisect.json");
  REQUIRE(report.at("culprit").is_object());
  CHECK(report.at("culprit").at("sha") == test::sh("git rev-parse c3", repo));
  CHECK(report.at("culprit").at("ratio").get<double>() == doctest::Approx(1.03).epsilon(1e-9));
  CHECK(report.at("culprit").at("ci_low") == report.at("culprit").at("ci_high")); // counts: a point
  for (const auto& step : report.at("steps")) {
    CHECK(step.at("rounds") == refbench::model::k_fixed_counts); // fixed counts decide a step at once
  }
  // each commit counted once and reused in later steps, the good end twice (its A/A): c0 twice, c5, and each
  // step's midpoint
  const auto steps = std::ranges::count_if(report.at("steps"), [](const auto& s) { return s.at("kind") == "step"; });
  CHECK(report.at("counted_passes") == 3 + steps);
  CHECK(counted == 3 + steps);
}

TEST_CASE("pipeline::bisect_on: a range that did not move is refused (exit 3) with the confirm's figures") {
  IsolatedGitEnvironment git;
  TempDir dir;
  const std::string repo = repo_of(dir, {1, 1, 1, 1});
  std::map<int, int> counts;
  FakeExecutor fake(by_speed(counts));
  std::ostringstream out, err;
  const pipeline::Bench bench{.executor = fake, .out = &out, .err = &err, .err_fd = -1};
  auto o = bisect_options(repo, dir / "bisect", "c3");

  const auto refusal = test::refusal_line([&] { pipeline::bisect_on(bench, o, {.quiet = true}); });
  CHECK(refusal.find("refbench: error: ") == 0);
  const auto report = read_json(dir / "bisect/bisect.json");
  CHECK(report.at("culprit").is_null());
  REQUIRE(report.at("steps").size() == 1);
  CHECK(report.at("steps")[0].at("kind") == "confirm");
}
