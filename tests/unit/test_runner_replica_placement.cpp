#include <doctest/doctest.h>

#include <doubles/fake_executor.hpp>
#include <refbench/analysis/placement_effects.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/runner/replica_placement.hpp>
#include <refbench/runner/rounds.hpp>

#include <algorithm>
#include <map>
#include <vector>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;

TEST_CASE("runner::place_replicas") {
  SUBCASE("balanced: every prefix uses each replica of each link equally often, ± 1") {
    for (int replicas : {2, 3, 4, 7}) {
      for (std::uint64_t seed : {1ULL, 2ULL, 99ULL, 123456789ULL}) {
        const auto placements = place_replicas(replicas, 50, seed);
        REQUIRE(placements.size() == 51);
        std::vector<std::array<int, 3>> used(static_cast<std::size_t>(replicas), {0, 0, 0});
        for (std::size_t round = 1; round < placements.size(); ++round) {
          const auto& p = placements[round];
          for (int r : {p.baseline, p.candidate, p.control}) {
            REQUIRE(r >= 0);
            REQUIRE(r < replicas);
          }
          ++used[static_cast<std::size_t>(p.baseline)][0];
          ++used[static_cast<std::size_t>(p.candidate)][1];
          ++used[static_cast<std::size_t>(p.control)][2];
          for (std::size_t link = 0; link < 3; ++link) {
            int low = 1 << 30;
            int high = 0;
            for (const auto& counts : used) {
              low = std::min(low, counts[link]);
              high = std::max(high, counts[link]);
            }
            CHECK(high - low <= 1);
          }
        }
      }
    }
  }
  SUBCASE("the control never shares the baseline's replica") {
    for (int replicas : {2, 3, 5}) {
      const auto placements = place_replicas(replicas, 40, 7);
      for (std::size_t round = 1; round < placements.size(); ++round) {
        CHECK(placements[round].control != placements[round].baseline);
      }
    }
  }
  SUBCASE("determined by the seed, and different seeds differ") {
    auto same = [](const std::vector<Placement>& a, const std::vector<Placement>& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Placement& x, const Placement& y) {
        return x.baseline == y.baseline && x.candidate == y.candidate && x.control == y.control;
      });
    };
    CHECK(same(place_replicas(3, 30, 5), place_replicas(3, 30, 5)));
    CHECK_FALSE(same(place_replicas(3, 30, 5), place_replicas(3, 30, 6)));
  }
  SUBCASE("one replica: everything runs from replica 0") {
    for (const auto& p : place_replicas(1, 10, 3)) {
      CHECK((p.baseline == 0 && p.candidate == 0 && p.control == 0));
    }
  }
}

TEST_CASE("runner::run_rounds moves the links before each round and records each sample's replica") {
  using model::Invocation;
  using model::Outcome;
  doubles::FakeExecutor fake([](const Invocation& invocation, std::size_t) {
    Outcome outcome;
    outcome.readings[model::Reading::wall] = 0.01;
    outcome.readings[model::Reading::rss] = 10 << 20;
    (void)invocation;
    return outcome;
  });
  RoundSettings settings{1000, 6, 6, 1, 42};
  settings.replicas = 3;
  CellSpec work{"work", {{"/w/a/x"}, {}, "", {}, ""}, {{"/w/b/x"}, {}, "", {}, ""}, false};
  work.control_twin = Invocation{{"/w/c/x"}, {}, "", {}, ""};
  std::vector<CellSpec> cells{work, control_of(work)};
  REQUIRE(cells[1].control_twin); // the control's second arm runs through its own link
  CHECK(cells[1].control_twin->argv.front() == "/w/c/x");

  std::map<int, Placement> placed;
  RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  hooks.place = [&](int round, const Placement& p) { placed[round] = p; };
  refbench::formats::JournalWriter journal;
  const auto record = run_rounds(cells, settings, fake, journal, hooks);

  REQUIRE(placed.size() == 7); // the warm-up and six rounds
  const auto expected = place_replicas(3, 6, 42);
  for (const auto& s : record.samples) {
    const auto& p = placed.at(s.round);
    CHECK(p.baseline == expected[static_cast<std::size_t>(s.round)].baseline);
    const int want = s.arm == Arm::baseline ? p.baseline : (record.cells[s.cell].control ? p.control : p.candidate);
    CHECK(s.replica == want);
  }
  // the control's arms sit on different replicas in every round
  for (int round = 1; round <= 6; ++round) {
    std::vector<int> control;
    for (const auto& s : record.samples) {
      if (s.cell == 1 && s.round == round) {
        control.push_back(s.replica);
      }
    }
    REQUIRE(control.size() == 2);
    CHECK(control[0] != control[1]);
  }
  // and the journal line of each sample carries it
  for (std::size_t i = 0; i < record.samples.size(); ++i) {
    CHECK(nlohmann::json::parse(refbench::formats::to_json(record.samples[i], record.cells).dump())["replica"] ==
          record.samples[i].replica);
  }
}

TEST_CASE("analysis::placement_warnings names a replica beyond the noise floor") {
  RunRecord record;
  record.cells = {{"work", false, StopReason::max_rounds, 9, std::nullopt}};
  auto add = [&](Arm arm, int replica, double wall) {
    model::Outcome o;
    o.readings[model::Reading::wall] = wall;
    Sample s{0, arm, 1, 0, o, {}, {}, replica};
    record.samples.push_back(s);
  };
  for (int i = 0; i < 4; ++i) {
    for (int replica = 0; replica < 3; ++replica) {
      add(Arm::baseline, replica, 1.0 + 0.001 * i);
      add(Arm::candidate, replica, (replica == 2 ? 1.10 : 1.0) + 0.001 * i); // replica 2: 10 % slower
    }
  }
  analysis::MetricResult wall;
  wall.cell = "work";
  wall.metric = "wall";
  wall.noise_floor = 1.05;
  auto warnings = analysis::placement_warnings(record, {wall});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].arm == "candidate");
  CHECK(warnings[0].replica == 2);
  CHECK(warnings[0].ratio == doctest::Approx(1.10).epsilon(0.002));
  CHECK(warnings[0].message.starts_with("placement effect: candidate replica 2 of `work` is 10 % slower"));
  // within the floor, or without one: nothing to say
  wall.noise_floor = 1.12;
  CHECK(analysis::placement_warnings(record, {wall}).empty());
  wall.noise_floor.reset();
  CHECK(analysis::placement_warnings(record, {wall}).empty());
  // the medians per replica
  const auto medians = analysis::replica_medians(record);
  REQUIRE(medians.size() == 6);
  CHECK(medians[5].arm == "candidate");
  CHECK(medians[5].replica == 2);
  CHECK(medians[5].median_seconds == doctest::Approx(1.1015));
}
