#include <doctest/doctest.h>

#include <refbench/bisect/search.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <set>

using namespace refbench;

namespace {

// A path whose commits read exactly their `level` (intervals ± `spread`);
// commits in `broken` do not build; it counts builds and measurements.
class ExactPath : public bisect::Oracle {
public:
  explicit ExactPath(std::vector<double> level, double spread = 0.01) : m_level(std::move(level)), m_spread(spread) {}
  std::set<std::size_t> broken;
  std::set<std::size_t> built;
  int measured = 0;
  // A/A control of ±control_floor in each step; every measure_more halves the spreads, up to `more_allowed` times
  std::optional<double> control_floor;
  int more_allowed = 0;
  int more_asked = 0;
  // the pairs of a step's first block (a budget that cut it short, or a
  // count settled in few rounds), and the pairs a reading needs
  std::size_t first_pairs = 10;
  std::size_t needed = 0;
  bool build(std::size_t i) override {
    built.insert(i);
    return !broken.contains(i);
  }
  bisect::Measured measure(std::size_t good, std::size_t mid, std::size_t bad) override {
    ++measured;
    m_scale = 1;
    return measured_now(good, mid, bad);
  }
  std::optional<bisect::Measured> measure_more(std::size_t good, std::size_t mid, std::size_t bad) override {
    ++more_asked;
    if (more_asked > more_allowed) {
      return std::nullopt;
    }
    m_scale /= 2;
    return measured_now(good, mid, bad);
  }

private:
  bisect::Measured measured_now(std::size_t good, std::size_t mid, std::size_t bad) const {
    std::optional<bisect::Reading> control;
    if (control_floor) {
      control = bisect::Reading{0, -*control_floor * m_scale, *control_floor * m_scale, pairs()};
    }
    return {.mid = reading(mid, good),
            .bad = reading(bad, good),
            .control = control,
            .rounds = static_cast<int>(pairs()),
            .needed = needed};
  }
  std::size_t pairs() const { return m_scale == 1 ? first_pairs : 10; }
  bisect::Reading reading(std::size_t i, std::size_t good) const {
    const double d = m_level[i] - m_level[good];
    return {d, d - m_spread * m_scale, d + m_spread * m_scale, pairs()};
  }
  double m_scale = 1;
  std::vector<double> m_level;
  double m_spread;
};

std::vector<double> step_at(std::size_t count, std::size_t step, double size) {
  std::vector<double> level(count, 0.0);
  for (std::size_t i = step; i < count; ++i) {
    level[i] = size;
  }
  return level;
}

} // namespace

TEST_CASE("bisect::side_of: the midpoint's interval against half the bad end's move") {
  const bisect::Reading bad{0.2, 0.15, 0.25, 10};
  CHECK(bisect::side_of({0.2, 0.12, 0.28, 10}, bad) == bisect::Side::bad);
  CHECK(bisect::side_of({0.0, -0.05, 0.05, 10}, bad) == bisect::Side::good);
  CHECK(bisect::side_of({0.1, 0.05, 0.15, 10}, bad) == bisect::Side::unclear); // across 0.1
  // an improvement: the bad end's move is downwards, so are the sides
  const bisect::Reading faster{-0.2, -0.25, -0.15, 10};
  CHECK(bisect::side_of({-0.2, -0.28, -0.12, 10}, faster) == bisect::Side::bad);
  CHECK(bisect::side_of({0.01, -0.03, 0.05, 10}, faster) == bisect::Side::good);
  // the bad end did not show its move in this step: nothing is decided
  CHECK(bisect::side_of({0.2, 0.15, 0.25, 10}, {0.05, -0.01, 0.11, 10}) == bisect::Side::unclear);
}

TEST_CASE("bisect::judge_move: a move counts when it clears no change and the control's floor") {
  using bisect::Move;
  const double t = std::log(1.15);
  // a 2x speedup under a ±22 % control (ln 1.22 = 0.199): clear downwards, nothing upwards
  const bisect::Reading faster{std::log(0.474), std::log(0.413), std::log(0.527), 20};
  const bisect::Reading control{std::log(0.945), std::log(0.821), std::log(1.150), 20};
  CHECK(bisect::floor_of(control) == doctest::Approx(-std::log(0.821)));
  CHECK(bisect::judge_move(faster, control, -1, t) == Move::clear);
  CHECK(bisect::judge_move(faster, control, +1, t) == Move::none);
  // a 1.2x move whose interval reaches into the floor: more rounds may tell
  const bisect::Reading slower{std::log(1.2), std::log(1.16), std::log(1.25), 20};
  CHECK(bisect::judge_move(slower, control, +1, t) == Move::unclear);
  CHECK(bisect::judge_move(slower, std::nullopt, +1, t) == Move::clear); // no control: against no change alone
  const bisect::Reading quiet_control{0, -0.02, 0.03, 20};
  CHECK(bisect::judge_move(slower, quiet_control, +1, t) == Move::clear);
  // nothing moved: an interval wholly short of the threshold, whatever the floor
  const bisect::Reading flat{0.005, -0.03, 0.04, 20};
  CHECK(bisect::judge_move(flat, control, +1, t) == Move::none);
  const bisect::Reading wide_flat{0.005, -0.2, 0.2, 20};
  CHECK(bisect::judge_move(wide_flat, control, +1, t) == Move::unclear);
  constexpr double inf = std::numeric_limits<double>::infinity();
  CHECK(bisect::judge_move({0, -inf, inf, 0}, control, +1, t) == Move::unclear);
  CHECK(bisect::floor_of(bisect::Reading{0, -inf, inf, 0}) == inf);
  CHECK(bisect::floor_of(std::nullopt) == 0);
}

TEST_CASE("bisect::side_of: the bad end must clear the control's floor") {
  const bisect::Reading bad{0.3, 0.15, 0.45, 10};
  const bisect::Reading mid{0.3, 0.2, 0.4, 10};
  CHECK(bisect::side_of(mid, bad) == bisect::Side::bad);
  CHECK(bisect::side_of(mid, bad, bisect::Reading{0, -0.1, 0.1, 10}) == bisect::Side::bad);
  CHECK(bisect::side_of(mid, bad, bisect::Reading{0, -0.2, 0.12, 10}) == bisect::Side::unclear); // floor 0.2 > 0.15
}

TEST_CASE("bisect::search: an unclear step measures more before it gives up") {
  const auto level = step_at(12, 7, std::log(1.5));
  SUBCASE("a floor too wide at first, narrower with more rounds") {
    ExactPath path(level, 0.05);
    path.control_floor = 0.5; // wider than the move: no step can see it at first
    path.more_allowed = 10;
    const auto outcome = bisect::search(12, path);
    CHECK_FALSE(outcome.ambiguous);
    CHECK(outcome.culprit() == 7u);
    REQUIRE_FALSE(outcome.steps.empty());
    CHECK(outcome.steps.front().more == 1); // 0.25 < 0.405 - 0.025 after one more
  }
  SUBCASE("no room for more: ambiguous, the step that gave up last") {
    ExactPath path(level, 0.05);
    path.control_floor = 0.5;
    path.more_allowed = 0;
    const auto outcome = bisect::search(12, path);
    CHECK(outcome.ambiguous);
    REQUIRE(outcome.steps.size() == 1);
    CHECK(outcome.steps.front().side == bisect::Side::unclear);
    CHECK(path.more_asked == 1);
  }
}

TEST_CASE("bisect::search: no step is judged on fewer pairs than it needs") {
  // a count that reads the same every round: intervals of one point, which
  // say "bad" or "good" after any number of rounds, even none
  const auto level = step_at(12, 8, std::log(1.4));
  for (const std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
    CAPTURE(first);
    ExactPath path(level, 0.0);
    path.control_floor = 0.0;
    path.first_pairs = first;
    path.needed = 10;
    path.more_allowed = 100;
    const auto outcome = bisect::search(12, path);
    CHECK_FALSE(outcome.ambiguous);
    CHECK(outcome.culprit() == 8u);
    for (const auto& step : outcome.steps) { // each step measured more before its side was taken
      CHECK(step.more == 1);
      CHECK(step.measured.mid.n >= 10);
    }
  }
  SUBCASE("without room for more, such a step is unclear, never a side") {
    ExactPath path(level, 0.0);
    path.control_floor = 0.0;
    path.first_pairs = 1;
    path.needed = 10;
    const auto outcome = bisect::search(12, path);
    CHECK(outcome.ambiguous);
    REQUIRE(outcome.steps.size() == 1);
    CHECK(outcome.steps.front().side == bisect::Side::unclear);
  }
  CHECK(bisect::judge_move({0.3, 0.3, 0.3, 3}, bisect::Reading{0, 0, 0, 3}, 1, 0.1, 10) == bisect::Move::unclear);
  CHECK(bisect::judge_move({0.3, 0.3, 0.3, 10}, bisect::Reading{0, 0, 0, 10}, 1, 0.1, 10) == bisect::Move::clear);
  CHECK(bisect::judge_move({0.3, 0.3, 0.3, 10}, bisect::Reading{0, 0, 0, 9}, 1, 0.1, 10) == bisect::Move::unclear);
}

TEST_CASE("bisect::midpoint: the unskipped commit nearest the middle") {
  CHECK(bisect::midpoint(0, 8, {}) == 4u);
  CHECK(bisect::midpoint(0, 7, {}) == 3u); // the lower one on a tie
  CHECK(bisect::midpoint(0, 8, {4}) == 3u);
  CHECK(bisect::midpoint(0, 8, {4, 3}) == 5u);
  CHECK_FALSE(bisect::midpoint(3, 4, {}).has_value());
  CHECK_FALSE(bisect::midpoint(3, 6, {4, 5}).has_value());
}

TEST_CASE("bisect::search: every position of a step in 12 commits, found in ⌈log2 11⌉ steps") {
  for (std::size_t step = 1; step < 12; ++step) {
    ExactPath path(step_at(12, step, std::log(1.4)));
    const auto outcome = bisect::search(12, path);
    CAPTURE(step);
    CHECK_FALSE(outcome.ambiguous);
    CHECK(outcome.culprit() == step);
    CHECK(outcome.good == step - 1);
    CHECK(path.measured <= 4);
    CHECK(path.built.size() <= 4); // the two ends are the caller's: log2 N + 2 builds in all
  }
}

TEST_CASE("bisect::search: broken commits are skipped, and a culprit next to one is a range") {
  ExactPath path(step_at(10, 6, 0.3));
  path.broken = {5};
  auto outcome = bisect::search(10, path);
  CHECK(outcome.skipped == std::vector<std::size_t>{5});
  CHECK_FALSE(outcome.culprit().has_value()); // 5 or 6: 5 did not build
  CHECK(outcome.good == 4);
  CHECK(outcome.bad == 6);

  ExactPath other(step_at(10, 3, 0.3));
  other.broken = {5};
  outcome = bisect::search(10, other);
  CHECK(outcome.culprit() == 3u);
}

TEST_CASE("bisect::search: an unclear step ends it as ambiguous with the range so far") {
  auto level = step_at(16, 9, 0.2);
  level[8] = 0.1; // a commit halfway: neither side
  ExactPath path(level);
  const auto outcome = bisect::search(16, path);
  CHECK(outcome.ambiguous);
  CHECK_FALSE(outcome.culprit().has_value());
  CHECK(outcome.good < 8);
  CHECK(outcome.bad >= 9);
  CHECK(outcome.steps.back().side == bisect::Side::unclear);
}

TEST_CASE("bisect::step_confidence: the union bound over the halving steps") {
  CHECK(bisect::step_confidence(65, 0.01) == doctest::Approx(1 - 0.02 / 6));
  CHECK(bisect::step_confidence(12, 0.01) == doctest::Approx(1 - 0.02 / 4));
  CHECK(bisect::step_confidence(2, 0.01) == doctest::Approx(0.98));
}
