#include "simulate.hpp"

#include <doctest/doctest.h>

#include <refbench/analysis/analysis.hpp>
#include <refbench/bisect/search.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
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
  // A noisy runner instead of σ: each invocation's work uniform in 50 … 150 %
  // of its commit's; with an A/A control of the good end in every round,
  // and up to `more_cap` more blocks of k_max_rounds rounds for an unclear step.
  bool uniform_work = false;
  bool control = false;
  int more_cap = 0;
  int more = 0; // blocks measured more over the whole search

  bool build(std::size_t index) override {
    if (m_built.insert(index).second) {
      ++builds;
    }
    return !broken.contains(index);
  }

  bisect::Measured measure(std::size_t good, std::size_t mid, std::size_t bad) override {
    m_to_mid.clear();
    m_to_bad.clear();
    m_to_control.clear();
    m_more_here = 0;
    for (int round = 1; round <= k_max_rounds; ++round) {
      measure_round(good, mid, bad);
      if (round >= k_min_rounds) {
        const auto m = analyse(m_to_mid, m_confidence);
        const auto b = analyse(m_to_bad, m_confidence);
        const double quarter = std::abs(b.estimate) / 4;
        if ((m.high - m.low) / 2 <= quarter && (b.high - b.low) / 2 <= quarter) {
          break;
        }
      }
    }
    return measured();
  }

  std::optional<bisect::Measured> measure_more(std::size_t good, std::size_t mid, std::size_t bad) override {
    if (m_more_here >= more_cap) {
      return std::nullopt;
    }
    ++m_more_here;
    ++more;
    for (int round = 1; round <= k_max_rounds; ++round) {
      measure_round(good, mid, bad);
    }
    return measured();
  }

private:
  static constexpr int k_min_rounds = 10;
  static constexpr int k_max_rounds = 40;

  double reading(std::size_t commit) {
    return m_truth[commit] + (uniform_work ? std::log(0.5 + m_noise.uniform()) : m_sigma * m_noise.normal());
  }

  void measure_round(std::size_t good, std::size_t mid, std::size_t bad) {
    m_to_mid.push_back(reading(mid) - reading(good));
    m_to_bad.push_back(reading(bad) - reading(good));
    if (control) {
      m_to_control.push_back(reading(good) - reading(good));
    }
  }

  bisect::Measured measured() const {
    std::optional<bisect::Reading> control_reading;
    if (control) {
      control_reading = analyse(m_to_control, 0.95);
    }
    return {.mid = analyse(m_to_mid, m_confidence),
            .bad = analyse(m_to_bad, m_confidence),
            .control = control_reading,
            .rounds = static_cast<int>(m_to_mid.size())};
  }

  std::vector<double> m_to_mid;
  std::vector<double> m_to_bad;
  std::vector<double> m_to_control;
  int m_more_here = 0;

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

TEST_CASE("calibration: bisect on a noisy runner: a 2x step under a control floor wider than the threshold") {
  // 32 commits, commit `step` and after it 2x faster, every invocation's work
  // uniform in 50 … 150 %: each step judges the bad end against the A/A
  // control of its rounds and measures more when it cannot tell
  Noise noise(6402);
  const std::size_t count = 33;
  const double confidence = bisect::step_confidence(count, 0.01);
  const int total = runs() / 4;
  int right = 0;
  int wrong = 0;
  int ambiguous = 0;
  int builds = 0;
  int more = 0;
  for (int run = 0; run < total; ++run) {
    const auto step = 1 + static_cast<std::size_t>(noise.uniform() * 32);
    std::vector<double> truth(count, 0.0);
    for (std::size_t i = step; i < count; ++i) {
      truth[i] = std::log(0.5);
    }
    SimulatedHistory history(truth, 0, noise, confidence);
    history.uniform_work = true;
    history.control = true;
    history.more_cap = 3;
    history.build(0);
    history.build(count - 1);
    const auto outcome = bisect::search(count, history);
    builds += history.builds;
    more += history.more;
    if (outcome.ambiguous) {
      ++ambiguous;
      CHECK((outcome.good < step && step <= outcome.bad));
    } else if (outcome.culprit() == step) {
      ++right;
    } else {
      ++wrong;
    }
  }
  std::printf("bisect 32 commits, 2x step, work 50-150 %% per invocation, A/A control per step: right %.1f %%, "
              "ambiguous %.1f %%, wrong %.2f %%, %.2f builds and %.2f blocks of more rounds per search\n",
              100.0 * right / total, 100.0 * ambiguous / total, 100.0 * wrong / total,
              static_cast<double>(builds) / total, static_cast<double>(more) / total);
  CHECK(right >= 0.95 * total);
  CHECK(wrong <= 0.02 * total);
  CHECK(static_cast<double>(builds) / total <= std::log2(32.0) + 2);
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
