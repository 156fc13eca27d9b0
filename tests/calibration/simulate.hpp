#pragma once
// Noise models and helpers for the calibration suite: seeded, portable
// (built on refbench's own xoshiro generator), log-scale noise.

#include <refbench/analysis/analysis.hpp>
#include <refbench/util/rng.hpp>

#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>
#include <vector>

namespace calibration {

// Runs per scenario: 1000 in CI; REFBENCH_CALIBRATION_RUNS overrides (bench/).
inline int runs() {
  const char* text = std::getenv("REFBENCH_CALIBRATION_RUNS");
  return text != nullptr ? std::atoi(text) : 1000;
}

class Noise {
public:
  explicit Noise(std::uint64_t seed) : m_rng(seed) {}

  double uniform() { return (static_cast<double>(m_rng.next() >> 11) + 0.5) * 0x1.0p-53; }

  double normal() {
    // Box–Muller
    double u1 = uniform();
    double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

  // Student's t with 3 degrees of freedom: Z / sqrt(χ²₃ / 3).
  double student_t3() {
    double chi2 = 0;
    for (int i = 0; i < 3; ++i) {
      double z = normal();
      chi2 += z * z;
    }
    return normal() / std::sqrt(chi2 / 3.0);
  }

  // Poisson(mean) by Knuth's product of uniforms (means up to a few dozen).
  int poisson(double mean) {
    const double limit = std::exp(-mean);
    int k = 0;
    for (double product = uniform(); product > limit; product *= uniform()) {
      ++k;
    }
    return k;
  }

private:
  refbench::util::Rng m_rng;
};

enum class Model { normal, student_t3, bursts, drift };

inline const char* model_name(Model model) {
  switch (model) {
  case Model::normal:
    return "normal σ=0.03";
  case Model::student_t3:
    return "Student-t3 scale 0.02";
  case Model::bursts:
    return "10 % bursts of ±15 %";
  case Model::drift:
    return "slow drift +10 % over the run";
  }
  return "?";
}

// Log-scale noise of one reading: invocation `i` of `n` in the run.
inline double log_noise(Model model, Noise& noise, int i, int n) {
  switch (model) {
  case Model::normal:
    return 0.03 * noise.normal();
  case Model::student_t3:
    return 0.02 * noise.student_t3();
  case Model::bursts: {
    double base = 0.01 * noise.normal();
    if (noise.uniform() < 0.10) {
      base += std::log(noise.uniform() < 0.5 ? 1.15 : 0.85);
    }
    return base;
  }
  case Model::drift:
    return std::log(1.0 + 0.10 * static_cast<double>(i) / static_cast<double>(n)) + 0.02 * noise.normal();
  }
  return 0;
}

// Paired log-ratios d_i of `n` rounds with true ratio `ratio`. As in
// refbench's rounds, the two arms of a round run back to back in a random
// order (a coin flip per round), so drift hits either arm first.
inline std::vector<double> paired_log_ratios(Model model, Noise& noise, int n, double ratio) {
  std::vector<double> d;
  for (int i = 0; i < n; ++i) {
    bool baseline_first = noise.uniform() < 0.5;
    double first = log_noise(model, noise, 2 * i, 2 * n);
    double second = log_noise(model, noise, 2 * i + 1, 2 * n);
    double x = baseline_first ? first : second;
    double y = std::log(ratio) + (baseline_first ? second : first);
    d.push_back(y - x);
  }
  return d;
}

// Count readings (errors, retries, a 5xx rate) of one invocation: integer
// counts of Poisson(mean), or a zero-inflated rate — 0 half of the time,
// else exponential with mean `mean`.
enum class CountModel { poisson, zero_inflated_rate };

inline double count_reading(CountModel model, Noise& noise, double mean) {
  if (model == CountModel::poisson) {
    return noise.poisson(mean);
  }
  return noise.uniform() < 0.5 ? 0.0 : -mean * std::log(noise.uniform());
}

// One A/A or A/B cell as analysis input, from paired log-ratios `d`.
inline refbench::analysis::CellSamples cell_from(const std::string& name, const std::vector<double>& d,
                                                 bool control = false) {
  refbench::analysis::MetricSamples wall;
  wall.metric = "wall";
  wall.gated = true;
  for (double v : d) {
    wall.baseline.push_back(1.0);
    wall.candidate.push_back(std::exp(v));
  }
  return {name, control, std::nullopt, {wall}};
}

} // namespace calibration
