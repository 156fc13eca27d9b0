#include <doctest/doctest.h>

#include <refbench/runner/schedule.hpp>

#include <algorithm>

using namespace refbench::runner;
using namespace refbench::model;
using refbench::util::Rng;

TEST_CASE("runner::shuffled_round") {
  std::vector<std::size_t> active{0, 2, 5};
  SUBCASE("both arms of every active cell exactly once") {
    Rng rng(1);
    auto slots = shuffled_round(active, rng);
    REQUIRE(slots.size() == 6);
    for (std::size_t cell : active) {
      for (Arm arm : {Arm::baseline, Arm::candidate}) {
        CHECK(std::count(slots.begin(), slots.end(), Slot{cell, arm}) == 1);
      }
    }
  }
  SUBCASE("same seed, same order; rounds differ") {
    Rng a(123);
    Rng b(123);
    auto first = shuffled_round(active, a);
    CHECK(first == shuffled_round(active, b));
    bool any_different = false;
    for (int round = 0; round < 10; ++round) {
      any_different = any_different || shuffled_round(active, a) != first;
    }
    CHECK(any_different);
  }
  SUBCASE("baseline goes first in about half of the rounds") {
    Rng rng(5);
    int baseline_first = 0;
    for (int round = 0; round < 2000; ++round) {
      auto slots = shuffled_round({0}, rng);
      baseline_first += slots[0].arm == Arm::baseline ? 1 : 0;
    }
    CHECK(baseline_first == doctest::Approx(1000).epsilon(0.08));
  }
}

TEST_CASE("runner::round_pad") {
  Rng rng(3);
  std::size_t longest = 0;
  std::size_t shortest = 4096;
  for (int i = 0; i < 500; ++i) {
    auto pad = round_pad(rng);
    longest = std::max(longest, pad.size());
    shortest = std::min(shortest, pad.size());
    CHECK(std::all_of(pad.begin(), pad.end(), [](char c) { return c >= 'a' && c <= 'z'; }));
  }
  CHECK(longest <= 4095);
  CHECK(longest > 3500);
  CHECK(shortest < 500);
}

TEST_CASE("runner::cells_over_budget") {
  std::vector<double> cost{1.0, 5.0, 2.0, 5.0};
  SUBCASE("everything fits") { CHECK(cells_over_budget({0, 1, 2, 3}, cost, 13.0).empty()); }
  SUBCASE("the most expensive go first, ties by higher index") {
    CHECK(cells_over_budget({0, 1, 2, 3}, cost, 12.9) == std::vector<std::size_t>{3});
    CHECK(cells_over_budget({0, 1, 2, 3}, cost, 3.0) == std::vector<std::size_t>{3, 1});
    CHECK(cells_over_budget({0, 1, 2, 3}, cost, 0.5) == std::vector<std::size_t>{3, 1, 2, 0});
  }
  SUBCASE("only active cells count") { CHECK(cells_over_budget({0, 2}, cost, 3.0).empty()); }
}

TEST_CASE("runner::cheapest_first") {
  CHECK(cheapest_first({0, 1, 2, 3}, {3.0, 1.0, 2.0, 1.0}) == std::vector<std::size_t>{1, 3, 2, 0});
}
