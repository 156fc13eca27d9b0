#include <doctest/doctest.h>

#include <doubles/fake_executor.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/model/shard.hpp>
#include <refbench/pipeline/report.hpp>
#include <refbench/pipeline/shard_run.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;
using doubles::FakeExecutor;
using model::Invocation;
using model::Outcome;

namespace {

CellSpec sized_cell(const std::string& name, std::uint64_t payload_bytes) {
  CellSpec cell;
  cell.name = name;
  cell.meta.payload_bytes = payload_bytes;
  cell.meta.family = payload_bytes == 0 ? "" : "fam";
  return cell;
}

constexpr std::uint64_t k_one_mib = 1 << 20;

} // namespace

TEST_CASE("model::parse_shard") {
  CHECK(parse_shard("1/2") == Shard{1, 2});
  CHECK(parse_shard("3/3") == Shard{3, 3});
  CHECK(parse_shard("1/1") == Shard{1, 1});
  for (const char* bad : {"0/2", "3/2", "1/0", "0/0", "2", "a/2", "1/b", "1/2x", " 1/2", "-1/2", "1//2", "/", ""}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_shard(bad), UsageError);
  }
  try {
    parse_shard("3/2");
  } catch (const UsageError& error) {
    CHECK(std::string(error.what()) == "--shard '3/2': K must be between 1 and N");
    CHECK(error.hint().find("--shard 2/3") != std::string::npos);
  }
}

TEST_CASE("model::assign_shards shard partition") {
  SUBCASE("largest first to the least-loaded shard, ties by index") {
    // order 3 (5), 0 (3), 4 (2), 1 (1), 2 (1): 3→0, 0→1, 4→1, 1→0 (tie 5/5), 2→1
    CHECK(assign_shards({3, 1, 1, 5, 2}, 2) == std::vector<std::size_t>{1, 0, 1, 0, 1});
    CHECK(assign_shards({1, 1, 1, 1}, 4) == std::vector<std::size_t>{0, 1, 2, 3});
    CHECK(assign_shards({1, 1, 1}, 1) == std::vector<std::size_t>{0, 0, 0});
  }
  SUBCASE("the cost of a cell: one MiB for the invocation plus its payload") {
    CHECK(estimated_cost(sized_cell("c", 0)) == k_one_mib);
    CHECK(estimated_cost(sized_cell("c", 32 * k_one_mib)) == 33 * k_one_mib);
  }
  SUBCASE("disjoint, covering, balanced, deterministic") {
    std::vector<CellSpec> cells;
    const std::uint64_t sizes[] = {0, 1024, 64 * 1024, k_one_mib, 8 * k_one_mib, 32 * k_one_mib, 256 * k_one_mib};
    for (int family = 0; family < 3; ++family) {
      for (auto size : sizes) {
        cells.push_back(sized_cell(fmt::format("f{}-{}", family, size), size));
      }
    }
    for (std::size_t count : {1u, 2u, 3u, 5u, 21u}) {
      CAPTURE(count);
      std::multiset<std::string> seen;
      std::vector<std::uint64_t> loads;
      for (std::size_t index = 1; index <= count; ++index) {
        auto mine = cells_of_shard(cells, {index, count});
        CHECK_FALSE(mine.empty());
        std::uint64_t load = 0;
        for (const auto& cell : mine) {
          seen.insert(cell.name);
          load += estimated_cost(cell);
        }
        loads.push_back(load);
        // the planned order is kept within a shard
        for (std::size_t i = 1; i < mine.size(); ++i) {
          auto at = [&](const std::string& name) {
            return std::find_if(cells.begin(), cells.end(), [&](const auto& c) { return c.name == name; });
          };
          CHECK(at(mine[i - 1].name) < at(mine[i].name));
        }
        auto again = cells_of_shard(cells, {index, count});
        CHECK(again.size() == mine.size());
        CHECK(std::equal(mine.begin(), mine.end(), again.begin(),
                         [](const auto& a, const auto& b) { return a.name == b.name; }));
      }
      CHECK(seen.size() == cells.size()); // covering …
      for (const auto& cell : cells) {
        CHECK(seen.count(cell.name) == 1); // … and disjoint
      }
      // greedy largest-first: no shard exceeds another by more than the largest cost
      const auto [lightest, heaviest] = std::minmax_element(loads.begin(), loads.end());
      CHECK(*heaviest - *lightest <= 257 * k_one_mib);
    }
    // three families of 7 sizes over 3 shards: each gets one 256 MiB cell
    for (std::size_t index = 1; index <= 3; ++index) {
      auto mine = cells_of_shard(cells, {index, 3});
      CHECK(std::count_if(mine.begin(), mine.end(),
                          [](const auto& c) { return c.meta.payload_bytes == 256 * k_one_mib; }) == 1);
    }
  }
  SUBCASE("more shards than cells is a usage error") {
    std::vector<CellSpec> cells{sized_cell("a", 0), sized_cell("b", 0)};
    CHECK(cells_of_shard(cells, {2, 2}).size() == 1);
    try {
      cells_of_shard(cells, {1, 3});
      FAIL("no error");
    } catch (const UsageError& error) {
      CHECK(std::string(error.what()) == "--shard 1/3: the config plans only 2 cells, so some shard would get none");
      CHECK(error.hint() == "use at most 2 shards");
    }
  }
}

TEST_CASE("runner::shard a suite's benchmarks over the shards") {
  CHECK(benchmark_family("BM_vec/1024") == "BM_vec");
  CHECK(benchmark_family("BenchmarkSort/size=8/x") == "BenchmarkSort");
  CHECK(benchmark_family("test_sort[100]") == "test_sort[100]");
  // families in name order, each weighing its benchmarks, the heaviest first
  // to the least-loaded shard: BM_vec (3) to shard 1, then BM_a, BM_b and
  // BM_c to shard 2 (loads 1, 2, 3: never above shard 1's 3)
  const std::vector<std::string> names{"BM_c", "BM_vec/8", "BM_a", "BM_vec/64", "BM_b", "BM_vec/512"};
  CHECK(families_of_shard(names, {1, 2}) == std::vector<std::string>{"BM_vec"});
  CHECK(families_of_shard(names, {2, 2}) == std::vector<std::string>{"BM_a", "BM_b", "BM_c"});
  CHECK(families_of_shard(names, {1, 1}) == std::vector<std::string>{"BM_a", "BM_b", "BM_c", "BM_vec"});
  // the order the names come in does not matter: every shard of a matrix agrees
  auto shuffled = names;
  std::reverse(shuffled.begin(), shuffled.end());
  for (std::size_t k = 1; k <= 3; ++k) {
    CHECK(families_of_shard(shuffled, {k, 3}) == families_of_shard(names, {k, 3}));
  }
  // disjoint and complete over 1..N, for any N; a shard past the families gets none
  for (std::size_t count = 1; count <= 6; ++count) {
    std::multiset<std::string> all;
    for (std::size_t k = 1; k <= count; ++k) {
      for (const auto& family : families_of_shard(names, {k, count})) {
        all.insert(family);
      }
    }
    CHECK(all == std::multiset<std::string>{"BM_a", "BM_b", "BM_c", "BM_vec"});
  }
  CHECK(families_of_shard(names, {5, 5}).empty());

  // a suite cell is in every shard; the other cells are split as before,
  // and with a suite there may be more shards than cells
  auto suite = sized_cell("micro", 0);
  suite.meta.suite = SuiteSpec{suites::Harness::google_benchmark};
  const std::vector<CellSpec> cells{sized_cell("a", 0), suite, sized_cell("b", 0)};
  for (std::size_t k = 1; k <= 3; ++k) {
    const auto mine = cells_of_shard(cells, {k, 3});
    CHECK(std::count_if(mine.begin(), mine.end(), [](const CellSpec& c) { return c.name == "micro"; }) == 1);
    CHECK(mine.size() == (k == 3 ? 1U : 2U));
  }
  CHECK_THROWS_AS(cells_of_shard({sized_cell("a", 0), sized_cell("b", 0)}, {1, 3}), UsageError);
}

namespace {

// Google Benchmark's JSON with one run of each of `names`.
std::string google_benchmark_json(const std::vector<std::string>& names) {
  std::string rows;
  for (const auto& name : names) {
    rows += fmt::format(R"({}{{"name": "{}", "run_type": "iteration", "iterations": 10, "real_time": 5.0, )"
                        R"("cpu_time": 5.0, "time_unit": "us"}})",
                        rows.empty() ? "" : ", ", name);
  }
  return R"({"context": {}, "benchmarks": [)" + rows + "]}";
}

// A plan of suite cell "micro" (and its A/A control) and plain cell "plain"
// whose suite reports `baseline` on the baseline arm and `candidate` on the
// candidate's: the whole list when listed, the filtered ones after.
pipeline::MeasurementPlan suite_plan() {
  pipeline::MeasurementPlan plan;
  plan.settings.budget_seconds.value = 60;
  CellSpec micro;
  micro.name = "micro";
  micro.meta.suite = SuiteSpec{suites::Harness::google_benchmark};
  micro.baseline.argv = {"base/bench", "--benchmark_format=json"};
  micro.candidate.argv = {"cand/bench", "--benchmark_format=json"};
  CellSpec plain;
  plain.name = "plain";
  plain.baseline.argv = {"base/plain"};
  plain.candidate.argv = {"cand/plain"};
  plan.cells = {micro, plain, control_of(micro)};
  return plan;
}

FakeExecutor::Script listing_suite(const std::vector<std::string>& baseline,
                                   const std::vector<std::string>& candidate) {
  return [=](const Invocation& invocation, std::size_t) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.01;
    if (invocation.argv.front().ends_with("bench")) {
      outcome.stdout_text = google_benchmark_json(invocation.argv.front().starts_with("base") ? baseline : candidate);
    }
    return outcome;
  };
}

} // namespace

TEST_CASE("pipeline::split_suites lists a suite once per arm and keeps the shard's families") {
  const std::vector<std::string> baseline{"BM_a", "BM_old", "BM_vec/8", "BM_vec/64"};
  const std::vector<std::string> candidate{"BM_a", "BM_new", "BM_vec/8", "BM_vec/64"};
  // families BM_a (1), BM_new (1), BM_old (1), BM_vec (2): BM_vec to shard 1,
  // BM_a and BM_new to shard 2, BM_old back to shard 1 (2 vs 2: the lower)
  auto plan = suite_plan();
  FakeExecutor executor(listing_suite(baseline, candidate));
  const auto lines = pipeline::split_suites(plan, {1, 2}, executor, {});
  REQUIRE(executor.calls().size() == 2); // the listing: one whole invocation per arm, the plain cell not run
  CHECK(executor.calls()[0].argv.back() == "--benchmark_format=json");
  CHECK(lines == std::vector<std::string>{"refbench: shard 1/2: suite micro: 3 of its 5 benchmarks"});
  REQUIRE(plan.cells.size() == 3); // micro, plain (not split here) and the control
  for (const CellSpec& cell : {plan.cells[0], plan.cells[2]}) {
    CHECK(cell.meta.rows == std::vector<std::string>{"BM_old", "BM_vec/64", "BM_vec/8"});
    CHECK(cell.baseline.argv.back() == "--benchmark_filter=^(BM_old|BM_vec)(/.*)?$");
    CHECK(cell.candidate.argv.back() == "--benchmark_filter=^(BM_old|BM_vec)(/.*)?$");
  }
  CHECK(plan.cells[1].baseline.argv == std::vector<std::string>{"base/plain"});

  auto second = suite_plan();
  FakeExecutor again(listing_suite(baseline, candidate));
  CHECK(pipeline::split_suites(second, {2, 2}, again, {}) ==
        std::vector<std::string>{"refbench: shard 2/2: suite micro: 2 of its 5 benchmarks"});
  CHECK(second.cells.at(0).meta.rows == std::vector<std::string>{"BM_a", "BM_new"});

  // names fnmatch would read as patterns are escaped: each row matches itself alone
  auto odd = suite_plan();
  FakeExecutor brackets(listing_suite({"BM_x[1]", "BM_y*"}, {"BM_x[1]", "BM_y*"}));
  pipeline::split_suites(odd, {1, 1}, brackets, {}); // one shard: nothing to split, nothing listed
  CHECK(brackets.calls().empty());
  pipeline::split_suites(odd, {1, 2}, brackets, {});
  CHECK(odd.cells.at(0).meta.rows == std::vector<std::string>{"BM_x\\[1]"});

  // a shard past the families gets none of the suite; with no other cell it is refused
  auto lonely = suite_plan();
  lonely.cells = {lonely.cells[0]};
  FakeExecutor few(listing_suite(baseline, candidate));
  CHECK_THROWS_WITH_AS(pipeline::split_suites(lonely, {5, 5}, few, {}),
                       "--shard 5/5: this shard gets no cell and none of the suites' benchmarks", UsageError);

  // a suite that fails its listing runs whole on shard 1 alone
  auto failing = suite_plan();
  FakeExecutor broken([](const Invocation& invocation, std::size_t) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.01;
    outcome.exit_code = invocation.argv.front().ends_with("bench") ? 1 : 0;
    return outcome;
  });
  CHECK(pipeline::split_suites(failing, {2, 2}, broken, {}) ==
        std::vector<std::string>{"refbench: shard 2/2: suite micro listed no benchmark (it failed): it runs whole on "
                                 "shard 1"});
  REQUIRE(failing.cells.size() == 1);
  CHECK(failing.cells[0].name == "plain");
  auto first = suite_plan();
  pipeline::split_suites(first, {1, 2}, broken, {});
  REQUIRE(first.cells.size() == 3);
  CHECK(first.cells[0].meta.rows.empty());
  CHECK(first.cells[0].baseline.argv.back() == "--benchmark_format=json");
}

TEST_CASE("model::derived_seed and shard_mismatch") {
  const std::string a(40, 'a');
  const std::string b(40, 'b');
  const auto seed = derived_seed(a, b, "[run]\n");
  CHECK(seed == derived_seed(a, b, "[run]\n"));
  CHECK(seed != derived_seed(b, a, "[run]\n"));
  CHECK(seed != derived_seed(a, b, "[run]\nbudget = 1\n"));
  // the first 64 bits of the SHA-256 of the same text
  const auto hex = util::sha256_hex("refbench shard seed\n" + a + "\n" + b + "\n[run]\n").substr(0, 16);
  CHECK(seed == std::stoull(hex, nullptr, 16));

  ShardIdentity one{{1, 2}, a, b, 42, "c0ffee", false};
  auto other = one;
  other.shard.index = 2;
  CHECK_FALSE(shard_mismatch(one, other).has_value());
  CHECK(shard_mismatch(one, one) == "both are shard 1/2");
  auto changed = other;
  changed.seed = 43;
  CHECK(shard_mismatch(one, changed) == "different seeds: 42 vs 43");
  changed = other;
  changed.candidate_sha = std::string(40, 'c');
  CHECK(shard_mismatch(one, changed) == "different candidate commits: bbbbbbbbbbbb vs cccccccccccc");
  changed = other;
  changed.baseline_sha = std::string(40, 'd');
  CHECK(shard_mismatch(one, changed) == "different baseline commits: aaaaaaaaaaaa vs dddddddddddd");
  changed = other;
  changed.config_sha256 = "beef";
  CHECK(shard_mismatch(one, changed) == "different configs or settings: sha256 c0ffee vs beef");
  changed = other;
  changed.shard = {2, 3};
  CHECK(shard_mismatch(one, changed) == "different shard counts: 1/2 vs 2/3");
  // the record round-trips through JSON
  const auto read = shard_identity_from_json(to_json(one), "x.json");
  CHECK(read.shard == one.shard);
  CHECK(read.seed == 42);
  CHECK(read.config_sha256 == "c0ffee");
  CHECK_THROWS_AS(shard_identity_from_json(nlohmann::json{{"index", 1}}, "x.json"), UsageError);
}

namespace {

// Cells whose fake invocations are "<cell> base|cand|ctl <round>".
CellSpec fake_cell(const std::string& name, std::uint64_t payload_bytes) {
  CellSpec cell = sized_cell(name, payload_bytes);
  cell.baseline = {{name, "base", "{round}"}, {}, "", {}, ""};
  cell.candidate = {{name, "cand", "{round}"}, {}, "", {}, ""};
  cell.placeholders = true;
  return cell;
}

// The A/A control of `cell` with its own tag, so the fake tells its
// invocations apart from the cell's own baseline (whose samples must not
// depend on where the control ran).
CellSpec tagged_control(const CellSpec& cell) {
  CellSpec control = control_of(cell);
  control.baseline.argv[1] = "ctl";
  return control;
}

// A fake measurement whose value depends only on the cell, the arm and the
// round, never on the call order: the same samples whichever cells share
// the run. The control's two invocations of a round get the k-th draw.
FakeExecutor::Script distributions(std::map<std::string, std::pair<double, double>> ratio_and_noise) {
  auto seen = std::make_shared<std::map<std::string, int>>();
  return [ratio_and_noise, seen](const Invocation& invocation, std::size_t) {
    const std::string& cell = invocation.argv[0];
    const std::string& arm = invocation.argv[1];
    const int round = std::stoi(invocation.argv[2]);
    const int occurrence = (*seen)[cell + arm + invocation.argv[2]]++;
    const auto [ratio, noise] = ratio_and_noise.at(cell);
    util::Rng rng(std::hash<std::string>{}(fmt::format("{}/{}/{}/{}", cell, arm, round, occurrence)));
    const double u = static_cast<double>(rng.below(1'000'000)) / 1e6 - 0.5;
    Outcome outcome;
    outcome.readings[model::Reading::wall] =
        0.1 * (arm == "cand" ? ratio : 1.0) * std::exp((arm == "ctl" ? 0.02 : noise) * u);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall] * 0.9;
    outcome.readings[model::Reading::rss] = 50 << 20;
    return outcome;
  };
}

report::RunHeader fake_header(const RoundSettings& settings, std::optional<ShardIdentity> shard) {
  report::RunHeader header;
  header.command = "run";
  header.seed = settings.seed;
  header.settings.budget_seconds = settings.budget_seconds;
  header.settings.max_rounds = settings.max_rounds;
  header.settings.min_rounds = settings.min_rounds;
  header.settings.warmup = settings.warmup;
  header.settings.metrics = {Metric::wall, Metric::cpu};
  header.settings.gate = {Metric::wall};
  header.shard = std::move(shard);
  return header;
}

// `document` written to results.json and read back, as `report` sees it.
report::RunDocument through_json(const report::RunDocument& document, const std::string& source) {
  return formats::document_from_json(nlohmann::json::parse(formats::to_json(document).dump()), source);
}

RunRecord run_fake(std::vector<CellSpec> cells, const CellSpec& control_source, const RoundSettings& settings,
                   const FakeExecutor::Script& script) {
  cells.push_back(tagged_control(control_source));
  FakeExecutor fake(script);
  refbench::formats::JournalWriter journal;
  RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  return run_rounds(cells, settings, fake, journal, hooks);
}

const analysis::MetricResult& entry_of(const report::RunDocument& document, const std::string& cell,
                                       const std::string& metric) {
  const auto found = std::find_if(document.results.begin(), document.results.end(),
                                  [&](const auto& entry) { return entry.cell == cell && entry.metric == metric; });
  REQUIRE_MESSAGE(found != document.results.end(), "no analysis entry for " << cell << " " << metric);
  return *found;
}

} // namespace

TEST_CASE("runner::shard merged shards give the single run's verdicts") {
  // ratio and log-noise per cell: clear regressions, a pass, an improvement,
  // and two borderline regressions whose BH-adjusted p depends on the family
  const std::map<std::string, std::pair<double, double>> cells_truth{
      {"small", {1.00, 0.05}},   {"big", {1.35, 0.05}},     {"mid-1KiB", {0.80, 0.05}},
      {"mid-1MiB", {1.22, 0.2}}, {"mid-8MiB", {1.21, 0.2}}, {"huge", {1.02, 0.05}},
  };
  std::vector<CellSpec> cells{fake_cell("small", 0),
                              fake_cell("big", 16 * k_one_mib),
                              fake_cell("mid-1KiB", 1024),
                              fake_cell("mid-1MiB", k_one_mib),
                              fake_cell("mid-8MiB", 8 * k_one_mib),
                              fake_cell("huge", 24 * k_one_mib)};
  RoundSettings settings{1e9, 16, 10, 1, 7};
  settings.output_dir = "/nonexistent-refbench-unit";
  analysis::Settings analysis_settings;
  analysis_settings.min_rounds = static_cast<std::size_t>(settings.min_rounds);
  analysis_settings.seed = settings.seed;

  // one run over every cell, its control the cheapest cell
  const auto single = run_fake(cells, cells[0], settings, distributions(cells_truth));
  const auto single_doc = report::make_document(
      fake_header(settings, std::nullopt), single,
      analysis::analyze(analysis::cell_samples(single, {Metric::wall, Metric::cpu}, {Metric::wall}),
                        analysis_settings));

  // two shards with the same seed, each with the control of its own cheapest cell
  std::vector<report::RunDocument> runs;
  std::vector<std::string> files;
  std::set<std::string> sharded_cells;
  for (std::size_t index = 1; index <= 2; ++index) {
    auto mine = cells_of_shard(cells, {index, 2});
    const auto cheapest = *std::min_element(
        mine.begin(), mine.end(), [](const auto& a, const auto& b) { return estimated_cost(a) < estimated_cost(b); });
    for (const auto& cell : mine) {
      sharded_cells.insert(cell.name);
    }
    const auto record = run_fake(mine, cheapest, settings, distributions(cells_truth));
    const ShardIdentity id{{index, 2}, std::string(40, 'a'), std::string(40, 'b'), settings.seed, "cfg", true};
    const auto results = analysis::analyze(analysis::cell_samples(record, {Metric::wall, Metric::cpu}, {Metric::wall}),
                                           analysis_settings);
    runs.push_back(through_json(report::make_document(fake_header(settings, id), record, results),
                                "shard" + std::to_string(index)));
    files.push_back("shard-" + std::to_string(index) + "/results.json");
  }
  // costs in MiB: huge 25 → 1, big 17 → 2, mid-8MiB 9 → 2 (26), mid-1MiB 2 → 1 (27), mid-1KiB 1.001 → 2,
  // small 1 → 1
  auto names = [&](std::size_t index) {
    std::vector<std::string> out;
    for (const auto& cell : cells_of_shard(cells, {index, 2})) {
      out.push_back(cell.name);
    }
    return out;
  };
  CHECK(names(1) == std::vector<std::string>{"small", "mid-1MiB", "huge"});
  CHECK(names(2) == std::vector<std::string>{"big", "mid-1KiB", "mid-8MiB"});
  CHECK(sharded_cells.size() == cells.size());

  const auto merged = pipeline::analysed_document(runs, files);
  REQUIRE(merged.merged.size() == 2);
  CHECK(merged.merged[1].file == "shard-2/results.json");
  REQUIRE(merged.merged[1].shard.has_value());
  CHECK(merged.merged[1].shard->index == 2);
  CHECK(merged.merged[1].shard->count == 2);
  CHECK(report::missing_shards(merged).empty());
  CHECK_FALSE(merged.header.shard.has_value());
  CHECK(merged.verdict == single_doc.verdict);
  // two controls, one per shard, each the floor of its own group
  CHECK(std::count_if(merged.record.cells.begin(), merged.record.cells.end(),
                      [](const auto& c) { return c.control; }) == 2);
  // and the merged document survives its own format
  const auto merged_again = through_json(merged, "merged");
  CHECK(merged_again.merged.size() == 2);
  CHECK(merged_again.verdict == merged.verdict);
  CHECK(merged_again.results.size() == merged.results.size());

  std::map<std::string, int> verdicts;
  for (const auto& [name, truth] : cells_truth) {
    for (const char* metric : {"wall", "cpu"}) {
      CAPTURE(name);
      CAPTURE(metric);
      const auto& one = entry_of(single_doc, name, metric);
      const auto& both = entry_of(merged, name, metric);
      CHECK(both.verdict == one.verdict);
      CHECK(both.n == one.n);
      CHECK(both.ratio == doctest::Approx(one.ratio).epsilon(1e-12));
      CHECK(both.ci_low == doctest::Approx(one.ci_low).epsilon(1e-12));
      if (one.p_bh) { // BH over the same family: all cells of both shards
        REQUIRE(both.p_bh.has_value());
        CHECK(*both.p_bh == doctest::Approx(*one.p_bh).epsilon(1e-12));
      } else {
        CHECK_FALSE(both.p_bh.has_value());
      }
      if (std::string(metric) == "wall") {
        ++verdicts[std::string(stats::verdict_name(one.verdict))];
      }
    }
  }
  // the scenario exercises more than one verdict
  CHECK(verdicts["REGRESSION"] >= 2);
  CHECK(verdicts["PASS"] + verdicts["IMPROVED"] >= 2);
  // a shard's own p_bh is over its cells only; the merge's over all (so it differs somewhere)
  int own_family_differs = 0;
  for (const auto& run : runs) {
    for (const auto& own : run.results) {
      const auto& both = entry_of(merged, own.cell, own.metric);
      own_family_differs += own.p_bh && own.p_bh != both.p_bh ? 1 : 0;
    }
  }
  CHECK(own_family_differs > 0);
  CHECK(entry_of(merged, "big", "wall").verdict == stats::Verdict::regression);
  CHECK(entry_of(merged, "mid-1KiB", "wall").verdict == stats::Verdict::improved);

  SUBCASE("the same shard twice is refused, naming both files") {
    try {
      pipeline::analysed_document({runs[0], runs[0]}, {"a/results.json", "b/results.json"});
      FAIL("merged");
    } catch (const UsageError& error) {
      CHECK(std::string(error.what()) == "cannot merge b/results.json with a/results.json: both are shard 1/2");
      CHECK(error.hint() == "pass each shard's results once");
    }
  }
  SUBCASE("a shard of another seed is refused") {
    auto other = runs[1];
    other.header.shard->seed = 8;
    CHECK_THROWS_WITH_AS(pipeline::analysed_document({runs[0], other}, files),
                         "cannot merge shard-2/results.json with shard-1/results.json: different seeds: 7 vs 8",
                         UsageError);
  }
  SUBCASE("a file that is not a shard is refused next to shards") {
    auto plain = runs[1];
    plain.header.shard.reset();
    CHECK_THROWS_AS(pipeline::analysed_document({runs[0], plain}, files), UsageError);
  }
}

TEST_CASE("runner::shard merging a subset of the shards names the missing ones") {
  report::RunDocument document;
  document.merged = {{"a", Shard{1, 4}}, {"b", Shard{3, 4}}};
  CHECK(report::missing_shards(document) == std::vector<std::size_t>{2, 4});
  document.merged = {{"a", std::nullopt}};
  CHECK(report::missing_shards(document).empty());
  CHECK(report::missing_shards(report::RunDocument{}).empty());
  SUBCASE("one shard alone is no merge") {
    report::RunDocument one;
    one.header.shard = ShardIdentity{{2, 3}, "a", "b", 1, "cfg", false};
    CHECK(report::missing_shards(one).empty());
    const auto shards = report::shards_of(one);
    REQUIRE(shards.has_value());
    CHECK(shards->indices == std::vector<std::size_t>{2});
    CHECK(shards->count == 3);
    CHECK_FALSE(shards->merged);
  }
}
