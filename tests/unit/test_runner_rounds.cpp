#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <doubles/fake_executor.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;
using doubles::FakeExecutor;
using model::Invocation;
using model::Outcome;

namespace {

Invocation command(const std::string& cell, const std::string& arm) { return {{cell, arm}, {"A=1"}, "", {}, ""}; }

CellSpec cell(const std::string& name, bool control = false) {
  return {name, command(name, "base"), command(name, "cand"), control};
}

// Walls: the cell's cost times 1.0 for "base" and 1.5 for "cand".
FakeExecutor::Script costs(std::map<std::string, double> per_cell) {
  return [per_cell](const Invocation& invocation, std::size_t) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] =
        per_cell.at(invocation.argv[0]) * (invocation.argv[1] == "cand" ? 1.5 : 1.0);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall] / 2;
    outcome.readings[model::Reading::rss] = 10 << 20;
    return outcome;
  };
}

RoundHooks fake_clock(const FakeExecutor& fake) {
  RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  return hooks;
}

std::string pad_of(const Invocation& invocation) {
  for (const auto& entry : invocation.env) {
    if (entry.rfind("REFBENCH_PAD=", 0) == 0) {
      return entry;
    }
  }
  return "<none>";
}

} // namespace

TEST_CASE("runner::run_rounds round accounting") {
  FakeExecutor fake(costs({{"a", 0.1}, {"b", 0.2}}));
  RoundSettings settings{1000, 7, 3, 2, 99};
  refbench::formats::JournalWriter journal;
  auto record = run_rounds({cell("a"), cell("b")}, settings, fake, journal, fake_clock(fake));

  SUBCASE("warm-up: each (cell, arm) `warmup` times, recorded as round 0") {
    auto warm = std::count_if(record.samples.begin(), record.samples.end(), [](auto& s) { return s.round == 0; });
    CHECK(warm == 2 * 2 * 2);
  }
  SUBCASE("every round runs each active cell once per arm") {
    CHECK(fake.calls().size() == 8 + 7 * 4);
    for (int round = 1; round <= 7; ++round) {
      for (std::size_t c = 0; c < 2; ++c) {
        for (Arm arm : {Arm::baseline, Arm::candidate}) {
          CHECK(std::count_if(record.samples.begin(), record.samples.end(),
                              [&](auto& s) { return s.round == round && s.cell == c && s.arm == arm; }) == 1);
        }
      }
    }
  }
  SUBCASE("stop reasons and rounds") {
    for (const auto& c : record.cells) {
      CHECK(c.stop == StopReason::max_rounds);
      CHECK(c.rounds == 7);
    }
  }
  SUBCASE("the candidate runs the candidate command") {
    auto pairs = complete_pairs(record, 1, Metric::wall);
    REQUIRE(pairs.baseline.size() == 7);
    CHECK(pairs.baseline[0] == doctest::Approx(0.2));
    CHECK(pairs.candidate[0] == doctest::Approx(0.3));
  }
  SUBCASE("one REFBENCH_PAD per round, the same for every invocation of it") {
    std::map<int, std::set<std::string>> pads;
    for (std::size_t i = 8; i < fake.calls().size(); ++i) {
      pads[static_cast<int>((i - 8) / 4)].insert(pad_of(fake.calls()[i]));
    }
    std::set<std::string> distinct;
    for (const auto& [round, set] : pads) {
      CHECK(set.size() == 1);
      distinct.insert(*set.begin());
    }
    CHECK(distinct.size() == 7);
  }
  SUBCASE("both arms of a round get the same environment") {
    // every invocation of a round, whatever its arm, sees the same variables
    for (std::size_t i = 8; i < fake.calls().size(); i += 4) {
      for (std::size_t j = i + 1; j < i + 4; ++j) {
        CHECK(fake.calls()[j].env == fake.calls()[i].env);
      }
    }
  }
}

TEST_CASE("runner::run_rounds control cell runs the baseline twice") {
  FakeExecutor fake(costs({{"a", 0.1}}));
  RoundSettings settings{1000, 3, 3, 0, 1};
  refbench::formats::JournalWriter journal;
  auto record = run_rounds({cell("a"), cell("a", true)}, settings, fake, journal, fake_clock(fake));
  auto control = complete_pairs(record, 1, Metric::wall);
  REQUIRE(control.baseline.size() == 3);
  CHECK(control.candidate == control.baseline);
  CHECK(record.cells[1].control);
}

TEST_CASE("runner::run_rounds seeded schedule is reproducible") {
  auto order = [](std::uint64_t seed) {
    FakeExecutor fake(costs({{"a", 0.1}, {"b", 0.1}, {"c", 0.1}}));
    refbench::formats::JournalWriter journal;
    RoundSettings settings{1000, 5, 5, 0, seed};
    run_rounds({cell("a"), cell("b"), cell("c")}, settings, fake, journal, fake_clock(fake));
    std::vector<std::string> names;
    for (const auto& call : fake.calls()) {
      names.push_back(call.argv[0] + call.argv[1] + pad_of(call));
    }
    return names;
  };
  CHECK(order(17) == order(17));
  CHECK(order(17) != order(18));
}

TEST_CASE("runner::run_rounds budget") {
  // Round costs: a = 0.25 s, b = 2.5 s (base + 1.5 × base).
  FakeExecutor fake(costs({{"a", 0.1}, {"b", 1.0}}));
  RoundSettings settings{10.1, 100, 3, 1, 5};
  refbench::formats::JournalWriter journal;
  auto record = run_rounds({cell("a"), cell("b")}, settings, fake, journal, fake_clock(fake));
  SUBCASE("the expensive cell is dropped first, the cheap one goes on") {
    CHECK(record.cells[1].stop == StopReason::budget);
    CHECK(record.cells[0].stop == StopReason::budget);
    CHECK(record.cells[0].rounds > record.cells[1].rounds);
  }
  SUBCASE("no round starts that would not fit") {
    // warm-up 2.75 s, then 2 rounds of both (5.5 s) = 8.25 s; 7 rounds of a alone = 1.75 s
    CHECK(record.cells[1].rounds == 2);
    CHECK(record.cells[0].rounds == 2 + 7);
    CHECK(fake.now() <= 10.1);
  }
}

TEST_CASE("runner::run_rounds a failing invocation stops its cell with ERROR") {
  FakeExecutor fake([](const Invocation& invocation, std::size_t index) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.01;
    if (invocation.argv[0] == "bad" && invocation.argv[1] == "cand" && index > 6) {
      outcome.exit_code = 3;
      outcome.stderr_tail = "boom\n";
    }
    return outcome;
  });
  RoundSettings settings{1000, 10, 3, 1, 2};
  refbench::formats::JournalWriter journal;
  auto record = run_rounds({cell("ok"), cell("bad")}, settings, fake, journal, fake_clock(fake));
  CHECK(record.cells[0].stop == StopReason::max_rounds);
  CHECK(record.cells[0].rounds == 10);
  REQUIRE(record.cells[1].failure.has_value());
  CHECK(record.cells[1].stop == StopReason::error);
  CHECK(record.cells[1].failure->arm == Arm::candidate);
  CHECK(record.cells[1].failure->description == "exited with code 3");
  CHECK(record.cells[1].failure->stderr_tail == "boom\n");
  CHECK(record.cells[1].failure->round >= 1);
  auto after = std::count_if(record.samples.begin(), record.samples.end(),
                             [&](auto& s) { return s.cell == 1 && s.round > record.cells[1].failure->round; });
  CHECK(after == 0);
}

TEST_CASE("model::complete_pairs leaves out warm-up and broken rounds") {
  RunRecord record;
  record.cells.push_back({"x", false, StopReason::max_rounds, 3, std::nullopt});
  auto sample = [](Arm arm, int round, double wall, int exit_code = 0) {
    Outcome o;
    o.readings[model::Reading::wall] = wall;
    o.exit_code = exit_code;
    return Sample{0, arm, round, 0, o};
  };
  record.samples = {sample(Arm::baseline, 0, 9), sample(Arm::candidate, 0, 9), sample(Arm::candidate, 1, 2),
                    sample(Arm::baseline, 1, 1), sample(Arm::baseline, 2, 1),  sample(Arm::candidate, 2, 5, 1),
                    sample(Arm::baseline, 3, 3), sample(Arm::candidate, 3, 4)};
  auto pairs = complete_pairs(record, 0, Metric::wall);
  CHECK(pairs.rounds == std::vector<int>{1, 3});
  CHECK(pairs.baseline == std::vector<double>{1, 3});
  CHECK(pairs.candidate == std::vector<double>{2, 4});
  SUBCASE("through a SampleIndex, with another cell's samples between: the same pairs") {
    record.cells.push_back({"y", false, StopReason::max_rounds, 3, std::nullopt});
    auto other = sample(Arm::baseline, 1, 7);
    other.cell = 1;
    record.samples.insert(record.samples.begin() + 3, other);
    const SampleIndex index(record);
    CHECK(index.of(1).size() == 1);
    CHECK(index.of(5).empty());
    const auto indexed = complete_pairs(record, 0, Metric::wall, &index);
    CHECK(indexed.rounds == pairs.rounds);
    CHECK(indexed.baseline == pairs.baseline);
    CHECK(indexed.candidate == pairs.candidate);
    CHECK(candidate_values(record, 0, Metric::wall, "", &index).candidate == std::vector<double>{2, 4});
    CHECK(complete_pairs(record, 1, Metric::wall, &index).rounds.empty()); // no candidate sample
  }
}

TEST_CASE("runner::run_rounds precision stopping") {
  FakeExecutor fake(costs({{"a", 0.1}, {"b", 0.1}}));
  RoundSettings settings{1000, 40, 12, 0, 3};
  refbench::formats::JournalWriter journal;
  auto hooks = fake_clock(fake);
  std::vector<std::pair<std::size_t, int>> asked;
  hooks.precise = [&](const RunRecord& record, std::size_t cell) {
    asked.emplace_back(cell, record.cells[cell].rounds);
    return cell == 1; // b is precise as soon as it may stop
  };
  auto record = run_rounds({cell("a"), cell("b")}, settings, fake, journal, hooks);
  CHECK(record.cells[1].stop == StopReason::precision);
  CHECK(record.cells[1].rounds == 12); // never before min_rounds
  CHECK(record.cells[0].stop == StopReason::max_rounds);
  CHECK(record.cells[0].rounds == 40);
  CHECK(std::all_of(asked.begin(), asked.end(), [](auto& a) { return a.second >= 12; }));
}

TEST_CASE("runner::run_rounds the schedule of a seed does not depend on timings") {
  auto order = [](std::uint64_t timing_seed) {
    refbench::util::Rng timing(timing_seed);
    FakeExecutor fake([&](const Invocation&, std::size_t) {
      Outcome outcome;
      outcome.readings[model::Reading::wall] = 0.01 + 0.001 * static_cast<double>(timing.below(100));
      return outcome;
    });
    refbench::formats::JournalWriter journal;
    RoundSettings settings{1000, 8, 8, 1, 99};
    run_rounds({cell("a"), cell("b"), cell("c")}, settings, fake, journal, fake_clock(fake));
    std::vector<std::string> names;
    for (const auto& call : fake.calls()) {
      names.push_back(call.argv[0] + call.argv[1] + pad_of(call));
    }
    return names;
  };
  CHECK(order(1) == order(2));
}

TEST_CASE("runner::run_rounds before_invocation announces each invocation before it runs") {
  FakeExecutor fake(costs({{"a", 0.1}, {"b", 0.2}}));
  RoundSettings settings{1000, 4, 4, 1, 7};
  refbench::formats::JournalWriter journal;
  auto hooks = fake_clock(fake);
  struct Seen {
    std::string cell;
    Arm arm;
    int round;
    std::size_t calls_before;
  };
  std::vector<Seen> seen;
  hooks.before_invocation = [&](const CellRecord& cell, Arm arm, int round) {
    seen.push_back({cell.name, arm, round, fake.calls().size()});
  };
  auto record = run_rounds({cell("a"), cell("b")}, settings, fake, journal, hooks);
  REQUIRE(seen.size() == record.samples.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const auto& sample = record.samples[i];
    CHECK(seen[i].calls_before == i); // called before the executor ran it
    CHECK(seen[i].cell == record.cells[sample.cell].name);
    CHECK(seen[i].arm == sample.arm);
    CHECK(seen[i].round == sample.round);
  }
  CHECK(seen.front().round == 0); // warm-up
  CHECK(seen.back().round == 4);
}

TEST_CASE("model::merge_rounds: a block measured again adds pairs to the same cells") {
  FakeExecutor fake(costs({{"x", 0.1}, {"y", 0.2}}));
  RoundSettings settings;
  settings.max_rounds = 4;
  settings.min_rounds = 4;
  settings.budget_seconds = 1e9;
  settings.seed = 3;
  refbench::formats::JournalWriter journal;
  auto record = run_rounds({cell("x"), cell("y"), control_of(cell("x"))}, settings, fake, journal, fake_clock(fake));
  settings.seed = 4;
  settings.max_rounds = settings.min_rounds = 3;
  // the second block lists its cells in another order and one cell more
  FakeExecutor again(costs({{"x", 0.1}, {"y", 0.2}, {"z-new", 0.3}}));
  const auto more =
      run_rounds({cell("y"), control_of(cell("x")), cell("x"), cell("z-new")}, settings, again, journal, {});
  merge_rounds(record, more);
  REQUIRE(record.cells.size() == 4);
  CHECK(record.cells[0].name == "x");
  CHECK(record.cells[0].rounds == 7);
  CHECK(record.cells[2].control);
  CHECK(record.cells[2].rounds == 7);
  CHECK(record.cells[3].name == "z-new");
  CHECK(record.cells[3].rounds == 3);
  for (std::size_t c = 0; c < 3; ++c) {
    const auto pairs = complete_pairs(record, c, Metric::wall);
    CAPTURE(c);
    CHECK(pairs.baseline.size() == 7); // 4 + 3 whole pairs: rounds of the second block numbered 5…7
    CHECK(pairs.candidate.size() == 7);
  }
  std::set<int> rounds;
  for (const auto& s : record.samples) {
    if (s.cell == 0 && s.round > 0) {
      rounds.insert(s.round);
    }
  }
  CHECK(rounds == std::set<int>{1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("runner::run_rounds: a change to the trees stops the run and makes every cell an ERROR") {
  FakeExecutor fake(costs({{"a", 0.1}, {"b", 0.2}}));
  RoundSettings settings{1000, 6, 3, 1, 7};
  test::ScratchDir dir;
  refbench::formats::JournalWriter journal(dir / "journal.jsonl");
  auto hooks = fake_clock(fake);
  std::vector<std::pair<int, bool>> asked;
  hooks.check_trees = [&](int round, bool last) {
    asked.emplace_back(round, last);
    return round == 2 ? std::string("a change to the baseline's tree: work (content)") : std::string();
  };
  auto record = run_rounds({cell("a"), cell("b")}, settings, fake, journal, hooks);
  CHECK(asked == std::vector<std::pair<int, bool>>{{0, false}, {1, false}, {2, false}});
  CHECK(fake.calls().size() == 4 + 2 * 4); // warm-up, rounds 1 and 2, nothing after
  for (const auto& c : record.cells) {
    CHECK(c.stop == StopReason::error);
    REQUIRE(c.failure);
    CHECK(c.failure->hook == k_tree_check);
    CHECK(c.failure->round == 2);
    CHECK(failure_subject(c, *c.failure) + " " + c.failure->description + " " + failure_when(*c.failure) ==
          "the check of the arms' trees found a change to the baseline's tree: work (content) after round 2");
  }
  SUBCASE("the journal tells the same") {
    nlohmann::json header{{"type", "header"},
                          {"seed", 7},
                          {"rss", {{"method", "fake"}, {"floor_bytes", 1}}},
                          {"settings", nlohmann::json::object()},
                          {"cells", {{{"name", "a"}}, {{"name", "b"}}}}};
    auto text = header.dump() + "\n" + util::read_file(dir / "journal.jsonl").value();
    auto read = refbench::formats::read_journal(text, "journal.jsonl");
    for (const auto& c : read.record.cells) {
      CHECK(c.stop == StopReason::error);
      REQUIRE(c.failure);
      CHECK(c.failure->hook == k_tree_check);
      CHECK(c.failure->description == "a change to the baseline's tree: work (content)");
    }
  }
}

TEST_CASE("runner::run_rounds: after the last round the trees are checked once more, thoroughly") {
  FakeExecutor fake(costs({{"a", 0.1}}));
  RoundSettings settings{1000, 3, 3, 0, 7};
  refbench::formats::JournalWriter journal;
  auto hooks = fake_clock(fake);
  std::vector<std::pair<int, bool>> asked;
  hooks.check_trees = [&](int round, bool last) {
    asked.emplace_back(round, last);
    return last ? std::string("a change to the candidate's tree: lib (added)") : std::string();
  };
  auto record = run_rounds({cell("a")}, settings, fake, journal, hooks);
  CHECK(asked == std::vector<std::pair<int, bool>>{{0, false}, {1, false}, {2, false}, {3, false}, {3, true}});
  CHECK(record.cells[0].stop == StopReason::error);
  CHECK(record.cells[0].failure->round == 3);
}

TEST_CASE("runner::run_rounds: a moved {arm} link stops the run before the next invocation") {
  FakeExecutor fake(costs({{"a", 0.1}, {"b", 0.2}}));
  RoundSettings settings{1000, 6, 3, 1, 7};
  refbench::formats::JournalWriter journal;
  auto hooks = fake_clock(fake);
  int asked = 0;
  hooks.check_links = [&] {
    ++asked;
    // what a candidate's command would have done in its invocation, the 6th
    return fake.calls().size() == 6 ? std::string("the link /o/arms/a (re-pointed to /o/copy, not /o/arms/base)")
                                    : std::string();
  };
  auto record = run_rounds({cell("a"), cell("b")}, settings, fake, journal, hooks);
  CHECK(fake.calls().size() == 6); // warm-up 4, round 1's first 2: the 7th never ran
  CHECK(asked == 7);
  for (const auto& c : record.cells) {
    CHECK(c.stop == StopReason::error);
    REQUIRE(c.failure);
    CHECK(c.failure->hook == k_tree_check);
    CHECK(failure_subject(c, *c.failure) + " " + c.failure->description + " " + failure_when(*c.failure) ==
          "the check of the arms' trees found a move of the link /o/arms/a (re-pointed to /o/copy, not "
          "/o/arms/base) after round 1");
  }
}

TEST_CASE("runner::run_rounds: the budget bounds the warm-up and the first round too") {
  SUBCASE("warm-up: 700 runs of 0.05 s under a 1 s budget start no more than fit") {
    FakeExecutor fake(costs({{"a", 0.05}}));
    RoundSettings settings{1.0, 100, 3, 700, 7};
    refbench::formats::JournalWriter journal;
    auto record = run_rounds({cell("a")}, settings, fake, journal, fake_clock(fake));
    CHECK(record.cells[0].stop == StopReason::budget);
    CHECK(record.cells[0].rounds == 0);
    CHECK(fake.now() < 1.0 + 0.075 + 1e-9); // the last invocation started before the budget was spent
    CHECK(fake.calls().size() < 20);
  }
  SUBCASE("round 1 of many cells stops at the budget; the pairs taken are kept") {
    std::map<std::string, double> cost;
    std::vector<CellSpec> cells;
    for (int i = 0; i < 200; ++i) {
      cost["c" + std::to_string(i)] = 0.01;
      cells.push_back(cell("c" + std::to_string(i)));
    }
    FakeExecutor fake(costs(cost));
    RoundSettings settings{1.0, 10, 3, 0, 7};
    refbench::formats::JournalWriter journal;
    auto record = run_rounds(cells, settings, fake, journal, fake_clock(fake));
    CHECK(fake.now() < 1.0 + 0.015 + 1e-9);
    CHECK(fake.calls().size() < 2 * 200);
    for (const auto& c : record.cells) {
      CHECK(c.stop == StopReason::budget);
    }
  }
}

namespace {

// A counter that never runs: the fake executor plays valgrind.
const model::CounterTool k_fake_counter{model::CounterSource::valgrind, "probe", "valgrind-test", "/fake/valgrind"};

// Timed invocations take 0.1 s; counted ones (argv[0] the fake counter)
// write a count file of `instructions(cell, arm, call)` and take 1 s, or
// exit 1 when it returns a negative count.
FakeExecutor::Script counting(std::function<double(const std::string&, const std::string&, std::size_t)> instructions) {
  return [instructions](const Invocation& invocation, std::size_t index) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.1;
    outcome.readings[model::Reading::user] = 0.05;
    if (invocation.argv[0] != k_fake_counter.program) {
      return outcome;
    }
    outcome.readings[model::Reading::wall] = 1.0;
    const std::string prefix = "--cachegrind-out-file=";
    const auto& argv = invocation.argv;
    const auto out_at = std::ranges::find_if(argv, [&](const std::string& a) { return a.starts_with(prefix); });
    REQUIRE(out_at != argv.end());
    const std::string& out_arg = *out_at;
    REQUIRE(argv.size() >= 2);
    const double count = instructions(argv[argv.size() - 2], argv[argv.size() - 1], index); // the command's cell, arm
    if (count < 0) {
      outcome.exit_code = 1;
      outcome.stderr_tail = "valgrind: the program crashed";
      return outcome;
    }
    auto path = out_arg.substr(prefix.size());
    path.replace(path.find("%p"), 2, std::to_string(1000 + index));
    std::ofstream(path) << "events: Ir\nsummary: " << static_cast<std::uint64_t>(count) << "\n";
    return outcome;
  };
}

CellSpec counted_cell(const std::string& name) {
  auto spec = cell(name);
  spec.counted = {refbench::model::Reading::instructions};
  return spec;
}

std::size_t counted_calls(const FakeExecutor& fake) {
  return static_cast<std::size_t>(std::count_if(fake.calls().begin(), fake.calls().end(), [](const Invocation& i) {
    return i.argv[0] == k_fake_counter.program;
  }));
}

} // namespace

TEST_CASE("runner::run_rounds counts a counted cell beside its timed rounds until the counts settle") {
  test::ScratchDir dir;
  RoundSettings settings{.budget_seconds = 1000, .max_rounds = 15, .min_rounds = 10, .warmup = 1, .seed = 5};
  settings.counter = k_fake_counter;
  settings.counts_dir = dir / "counts";
  refbench::formats::JournalWriter journal;

  SUBCASE("equal counts are fixed after k_fixed_counts rounds: 3 counted rounds, then none; the timed ones go on") {
    FakeExecutor fake(counting(
        [](const std::string&, const std::string& arm, std::size_t) { return arm == "cand" ? 1015.0 : 1000.0; }));
    auto record = run_rounds({counted_cell("a"), cell("b")}, settings, fake, journal, fake_clock(fake));
    CHECK(counted_calls(fake) == 3 * 2); // cell b shows no counted metric: never counted
    for (const auto& sample : record.samples) {
      CAPTURE(sample.round);
      const bool has = sample.outcome.readings.has(model::Reading::instructions);
      CHECK(has == (sample.cell == 0 && sample.round >= 1 && sample.round <= 3));
      if (has) {
        CHECK(sample.outcome.readings[model::Reading::instructions] == (sample.arm == Arm::candidate ? 1015 : 1000));
        CHECK(sample.outcome.readings[model::Reading::wall] == 0.1); // the timed invocation's own wall
      }
    }
    const auto pairs = complete_pairs(record, 0, Metric::instructions);
    CHECK(pairs.rounds.size() == 3);
    CHECK(complete_pairs(record, 0, Metric::wall).rounds.size() == 15);
    // the counted invocations never carry the round's pad: its length changes the loader's count
    for (const auto& call : fake.calls()) {
      if (call.argv[0] == k_fake_counter.program) {
        CHECK(pad_of(call) == "REFBENCH_PAD=");
      }
    }
  }
  SUBCASE("counts that changed once are taken until they settle: k_settled_counts alike, at least min_rounds") {
    FakeExecutor fake(counting([](const std::string&, const std::string& arm, std::size_t call) {
      return arm == "cand" && call < 6 ? 1001.0 : 1000.0; // round 1's candidate count differs from the rest
    }));
    auto record = run_rounds({counted_cell("a")}, settings, fake, journal, fake_clock(fake));
    CHECK(counted_calls(fake) == 10 * 2);
    CHECK(complete_pairs(record, 0, Metric::instructions).rounds.size() == 10);
  }
  SUBCASE("counts that keep changing are taken every round") {
    FakeExecutor fake(counting([](const std::string&, const std::string&, std::size_t call) {
      return 1000.0 + static_cast<double>(call % 3);
    }));
    run_rounds({counted_cell("a")}, settings, fake, journal, fake_clock(fake));
    CHECK(counted_calls(fake) == 15 * 2);
  }
  SUBCASE("a counted invocation that fails is the cell's ERROR, named as counted") {
    FakeExecutor fake(counting([](const std::string&, const std::string& arm, std::size_t call) {
      return arm == "cand" && call > 9 ? -1.0 : 1000.0; // the candidate's count in round 2
    }));
    auto record = run_rounds({counted_cell("a"), cell("b")}, settings, fake, journal, fake_clock(fake));
    REQUIRE(record.cells[0].failure.has_value());
    const auto& failure = *record.cells[0].failure;
    CHECK(record.cells[0].stop == StopReason::error);
    CHECK(failure.hook == k_counted_run);
    CHECK(failure.arm == Arm::candidate);
    CHECK(failure_subject(record.cells[0], failure) + " " + failure.description + " " + failure_when(failure) ==
          fmt::format("the candidate command, run under the instruction counter, exited with code 1 in round {}",
                      failure.round));
    CHECK(failure.stderr_tail == "valgrind: the program crashed");
    CHECK(record.cells[1].stop == StopReason::max_rounds); // the other cell is not touched
  }
  SUBCASE("a count file that is not there is the cell's ERROR, never a zero") {
    FakeExecutor fake([](const Invocation&, std::size_t) {
      Outcome outcome;
      outcome.readings[model::Reading::wall] = 0.1;
      return outcome; // "valgrind" exits 0 without writing a count
    });
    auto record = run_rounds({counted_cell("a")}, settings, fake, journal, fake_clock(fake));
    REQUIRE(record.cells[0].failure.has_value());
    CHECK(record.cells[0].failure->description == "valgrind wrote no count: the program did not run under valgrind");
    CHECK(complete_pairs(record, 0, Metric::instructions).rounds.empty());
  }
}
