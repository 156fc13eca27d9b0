#include "simulate.hpp"

#include <doctest/doctest.h>

#include <refbench/analysis/analysis.hpp>
#include <refbench/bisect/search.hpp>

#include <cmath>
#include <cstdio>
#include <set>

using namespace refbench;
using namespace ::calibration;

namespace {

// A simulated history measured as `refbench bisect` measures it: every
// round runs the good end, the midpoint and the bad end, the midpoint and
// the bad end each paired with their own good-end invocation; rounds stop
// once both intervals (at the search's step confidence) have a half-width
// of at most a quarter of the bad end's move, or at `max_rounds`.
class SimulatedHistory : public bisect::Oracle {
public:
  SimulatedHistory(std::vector<double> truth, double sigma, Noise& noise, double confidence)
      : m_truth(std::move(truth)), m_sigma(sigma), m_noise(noise), m_confidence(confidence) {}

  std::set<std::size_t> broken; // commits that do not build
  int builds = 0;

  bool build(std::size_t index) override {
    if (m_built.insert(index).second) {
      ++builds;
    }
    return !broken.contains(index);
  }

  bisect::Measured measure(std::size_t good, std::size_t mid, std::size_t bad) override {
    std::vector<double> to_mid;
    std::vector<double> to_bad;
    for (int round = 1; round <= k_max_rounds; ++round) {
      to_mid.push_back(reading(mid) - reading(good));
      to_bad.push_back(reading(bad) - reading(good));
      if (round >= k_min_rounds) {
        const auto m = analyse(to_mid, m_confidence);
        const auto b = analyse(to_bad, m_confidence);
        const double quarter = std::abs(b.estimate) / 4;
        if ((m.high - m.low) / 2 <= quarter && (b.high - b.low) / 2 <= quarter) {
          break;
        }
      }
    }
    return {analyse(to_mid, m_confidence), analyse(to_bad, m_confidence), static_cast<int>(to_mid.size())};
  }

private:
  static constexpr int k_min_rounds = 10;
  static constexpr int k_max_rounds = 40;

  double reading(std::size_t commit) { return m_truth[commit] + m_sigma * m_noise.normal(); }

  static bisect::Reading analyse(const std::vector<double>& d, double confidence) {
    analysis::Settings settings;
    settings.confidence = confidence;
    const auto r = analysis::analyze({cell_from("cell", d)}, settings).front();
    return {std::log(r.ratio), std::log(r.ci_low), std::log(r.ci_high), d.size()};
  }

  std::vector<double> m_truth;
  double m_sigma;
  Noise& m_noise;
  double m_confidence;
  std::set<std::size_t> m_built;
};

} // namespace

TEST_CASE("calibration: bisect names the commit of a 1.25x step in 64 commits of 5 % noise") {
  // the path: good (index 0) and 64 commits after it; commit `step` and all
  // after it are 1.25x slower; every invocation has 5 % log-normal noise
  Noise noise(6400);
  const std::size_t count = 65;
  const double confidence = bisect::step_confidence(count, 0.01);
  const int total = runs();
  int right = 0;
  int wrong = 0;
  int ambiguous = 0;
  int builds = 0;
  for (int run = 0; run < total; ++run) {
    const auto step = 1 + static_cast<std::size_t>(noise.uniform() * 64);
    std::vector<double> truth(count, 0.0);
    for (std::size_t i = step; i < count; ++i) {
      truth[i] = std::log(1.25);
    }
    SimulatedHistory history(truth, 0.05, noise, confidence);
    history.build(0);
    history.build(count - 1);
    const auto outcome = bisect::search(count, history);
    builds += history.builds;
    if (outcome.ambiguous) {
      ++ambiguous;
      CHECK((outcome.good < step && step <= outcome.bad)); // the range it reports holds the culprit
    } else if (outcome.culprit() == step) {
      ++right;
    } else {
      ++wrong;
    }
  }
  std::printf("bisect 64 commits, 1.25x step, σ 5 %%: right %.1f %%, ambiguous %.1f %%, wrong %.2f %%, "
              "%.2f builds on average (step confidence %.4f)\n",
              100.0 * right / total, 100.0 * ambiguous / total, 100.0 * wrong / total,
              static_cast<double>(builds) / total, confidence);
  CHECK(right >= 0.95 * total);
  CHECK(wrong <= 0.02 * total);
  CHECK(static_cast<double>(builds) / total <= std::log2(64.0) + 2); // log2 N + 2
}

TEST_CASE("calibration: bisect skips commits that do not build and never names one") {
  Noise noise(6401);
  const std::size_t count = 33;
  const double confidence = bisect::step_confidence(count, 0.01);
  const int total = runs() / 4;
  int right = 0;
  int range = 0;
  for (int run = 0; run < total; ++run) {
    const auto step = 1 + static_cast<std::size_t>(noise.uniform() * 32);
    std::vector<double> truth(count, 0.0);
    for (std::size_t i = step; i < count; ++i) {
      truth[i] = std::log(1.3);
    }
    SimulatedHistory history(truth, 0.05, noise, confidence);
    for (std::size_t i = 1; i + 1 < count; i += 5) { // every fifth commit is broken
      history.broken.insert(i);
    }
    const auto outcome = bisect::search(count, history);
    REQUIRE_FALSE(outcome.ambiguous);
    for (auto skipped : outcome.skipped) {
      CHECK(history.broken.contains(skipped));
    }
    if (const auto culprit = outcome.culprit()) {
      CHECK(*culprit == step);
      CHECK_FALSE(history.broken.contains(*culprit));
      ++right;
    } else { // the culprit is the bad end or a broken commit just before it
      CHECK((outcome.good < step && step <= outcome.bad));
      ++range;
    }
  }
  std::printf("bisect 32 commits, every fifth broken: named %.1f %%, a range of skipped commits %.1f %%\n",
              100.0 * right / total, 100.0 * range / total);
  CHECK(right + range == total);
}
