#include <doctest/doctest.h>

#include <refbench/model/record.hpp>
#include <refbench/runner/counted_rounds.hpp>

using refbench::model::k_fixed_counts;
using refbench::model::k_settled_counts;
using refbench::model::Reading;
using refbench::runner::CountLedger;
using refbench::runner::Counts;
using refbench::runner::RoundCounts;

namespace {

// `cell`'s instruction counts of one round, an arm's 0 meaning none.
RoundCounts counts_of(std::size_t cell, double baseline, double candidate, RoundCounts into = {}) {
  if (baseline > 0) {
    into[{cell, 0}] = Counts{.readings = {{Reading::instructions, baseline}}};
  }
  if (candidate > 0) {
    into[{cell, 1}] = Counts{.readings = {{Reading::instructions, candidate}}};
  }
  return into;
}

} // namespace

TEST_CASE("runner::CountLedger: counts the same in k_fixed_counts rounds are fixed; counts that varied settle later") {
  CountLedger ledger(2);
  const RoundCounts same = counts_of(0, 100, 102);
  for (int round = 1; round <= k_fixed_counts; ++round) {
    CHECK(ledger.needs_counts(0, 10)); // min_rounds does not apply to fixed counts
    ledger.record({0}, same, 2.0);
  }
  CHECK_FALSE(ledger.needs_counts(0, 10)); // fixed after 3
  CHECK(ledger.needs_counts(1, 1));        // the other cell has none

  // a count that moved once: max(k_settled_counts, min_rounds) rounds, the last k_settled_counts equal
  CountLedger varied(1);
  varied.record({0}, counts_of(0, 100, 102), 2.0);
  varied.record({0}, counts_of(0, 100, 103), 2.0);
  for (int round = 3; round < 10; ++round) {
    CHECK(varied.needs_counts(0, 10));
    varied.record({0}, counts_of(0, 100, 103), 2.0);
  }
  CHECK_FALSE(varied.needs_counts(0, 5)); // 9 rounds, the last 8 equal, settle a cell that needs 5
  CHECK(varied.needs_counts(0, 10));      // 9 rounds, 10 asked for
  varied.record({0}, counts_of(0, 100, 103), 2.0);
  CHECK_FALSE(varied.needs_counts(0, 10));
  // and moving again: k_settled_counts more equal rounds are needed
  varied.record({0}, counts_of(0, 101, 103), 2.0);
  for (int round = 1; round < k_settled_counts; ++round) {
    CHECK(varied.needs_counts(0, 10));
    varied.record({0}, counts_of(0, 101, 103), 2.0);
  }
  CHECK_FALSE(varied.needs_counts(0, 10));
}

TEST_CASE("runner::CountLedger: a round with one arm's count missing is no round; the pass's cost is shared") {
  CountLedger ledger(2);
  ledger.record({0, 1}, counts_of(1, 7, 7, counts_of(0, 5, 0)), 3.0);
  CHECK(ledger.last_cost(0) == doctest::Approx(1.5));
  CHECK(ledger.last_cost(1) == doctest::Approx(1.5));
  for (int round = 1; round < k_fixed_counts; ++round) {
    ledger.record({0, 1}, counts_of(1, 7, 7, counts_of(0, 5, 5)), 4.0);
  }
  CHECK_FALSE(ledger.needs_counts(1, 1)); // 3 whole rounds
  CHECK(ledger.needs_counts(0, 1));       // 2: the first had no candidate count
  ledger.add_like(1);                     // the control of cell 1
  CHECK(ledger.last_cost(2) == doctest::Approx(2.0));
  CHECK(ledger.needs_counts(2, 1));
}

TEST_CASE("model::fixed_counts: k_fixed_counts pairs or more, each arm's readings all the same") {
  using refbench::model::fixed_counts;
  CHECK(fixed_counts({5, 5, 5}, {7, 7, 7}));
  CHECK(fixed_counts({5, 5, 5, 5}, {5, 5, 5, 5}));
  CHECK_FALSE(fixed_counts({5, 5}, {7, 7}));       // too few to tell
  CHECK_FALSE(fixed_counts({5, 5, 6}, {7, 7, 7})); // the baseline varies
  CHECK_FALSE(fixed_counts({5, 5, 5}, {7, 8, 7}));
  CHECK_FALSE(fixed_counts({}, {}));
}

TEST_CASE("runner::built_in_counters: one row per counter; each counted reading is one counter's") {
  using refbench::runner::Counter;
  using refbench::runner::counters_for;
  for (const auto& row : refbench::runner::built_in_counters()) {
    CHECK(&refbench::runner::counter_info(row.counter) == &row);
    CHECK((row.wrap != nullptr && row.read != nullptr));
    for (const auto reading : row.readings) {
      CHECK(refbench::model::counted(reading));
      CHECK(counters_for({reading}) == std::vector{row.counter});
    }
  }
  CHECK(counters_for({Reading::instructions}) == std::vector{Counter::instructions});
  CHECK(counters_for({Reading::allocated_bytes}) == std::vector{Counter::allocations});
  CHECK(counters_for({Reading::allocated_bytes, Reading::instructions, Reading::allocations}) ==
        std::vector{Counter::instructions, Counter::allocations}); // in the table's order, each once
  CHECK(counters_for({Reading::wall, Reading::rss}).empty());
  CHECK(refbench::runner::failure_hook(Counter::instructions) == refbench::model::k_counted_run);
  CHECK(refbench::runner::failure_hook(Counter::allocations) == refbench::model::k_allocation_run);
}

TEST_CASE("runner::CountMemo: a key's counts are reused once it has the passes it requires, all alike") {
  refbench::runner::CountMemo memo;
  const Counts a{.readings = {{Reading::instructions, 100}}};
  const Counts b{.readings = {{Reading::instructions, 101}}};
  CHECK_FALSE(memo.reuse("mid").has_value()); // never counted
  memo.add("mid", a);
  REQUIRE(memo.reuse("mid").has_value()); // one pass is enough by default
  CHECK(*memo.reuse("mid") == a);

  memo.require("good", 2); // the good end: its A/A
  memo.add("good", a);
  CHECK_FALSE(memo.reuse("good").has_value());
  memo.add("good", a);
  CHECK(memo.reuse("good").has_value());

  // a count that varies is never reused: every later pass is counted again
  memo.require("varies", 2);
  memo.add("varies", a);
  memo.add("varies", b);
  CHECK_FALSE(memo.reuse("varies").has_value());
  memo.add("varies", a);
  CHECK_FALSE(memo.reuse("varies").has_value());
  CHECK(memo.passes() == 6);
  CHECK(memo.required("mid") == 1);
  CHECK(memo.required("good") == 2);
}
