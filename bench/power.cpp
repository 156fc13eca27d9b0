// Power of refbench's REGRESSION verdict by simulation: for each log-noise
// σ (of the paired log-ratio d) and true ratio, the smallest number of rounds
// at which ≥ 80 % of simulated runs are flagged REGRESSION past a 1.15x gate.
// Prints "sigma ratio rounds" lines; bench/power.sh adds the t-test bounds.
#include <refbench/analysis/analysis.hpp>
#include <refbench/util/rng.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>

namespace {

double normal(refbench::util::Rng& rng) {
  double u1 = (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1.0p-53;
  double u2 = (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double power(double sigma, double ratio, int n, int runs, refbench::util::Rng& rng) {
  using namespace refbench::analysis;
  Settings settings;
  settings.min_rounds = 2;
  int flagged = 0;
  for (int run = 0; run < runs; ++run) {
    MetricSamples wall;
    wall.metric = "wall";
    wall.gated = true;
    for (int i = 0; i < n; ++i) {
      wall.baseline.push_back(1.0);
      wall.candidate.push_back(ratio * std::exp(sigma * normal(rng)));
    }
    auto r = analyze({{"cell", false, std::nullopt, {wall}}}, settings).front();
    flagged += r.verdict == refbench::stats::Verdict::regression ? 1 : 0;
  }
  return static_cast<double>(flagged) / runs;
}

} // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  refbench::util::Rng rng(2024);
  for (double sigma : {0.03, 0.05, 0.10}) {
    for (double ratio : {1.20, 1.30}) {
      int n = 2;
      while (n < 400 && power(sigma, ratio, n, runs, rng) < 0.8) {
        ++n;
      }
      std::printf("%.2f %.2f %d\n", sigma, ratio, n);
    }
  }
}
