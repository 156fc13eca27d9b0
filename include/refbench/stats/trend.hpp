#pragma once
// Series over time (README: Nightly history): chained links, the EWMA band
// and E-divisive change points. Pure functions on log-ratios.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace refbench::stats {

// One link of a chain: a log-ratio estimate and its two-sided interval at
// some confidence, in log units (low ≤ estimate ≤ high).
struct Link {
  double estimate = 0;
  double low = 0;
  double high = 0;
};

// The chain's cumulative log-ratio: the sum of the links' estimates, with
// an interval at `confidence` from independent normal links whose standard
// errors are their intervals' full widths / (2 z), z the normal quantile of
// the links' own `link_confidence` (docs/design.md, Nightly history).
// Empty `links`: {0, 0, 0}.
Link chain(std::span<const Link> links, double link_confidence = 0.95, double confidence = 0.95);

// An exponentially weighted mean and standard deviation of `values`, point
// by point: α = 2 / (span + 1); mean_0 = x_0, var_0 = 0; then
// var_t = (1 − α) (var_{t−1} + α (x_t − mean_{t−1})²), mean_t = mean_{t−1} + α (x_t − mean_{t−1}).
// `mean[t]` and `sd[t]` describe the series up to and including t.
struct Ewma {
  std::vector<double> mean;
  std::vector<double> sd;
};
Ewma ewma(std::span<const double> values, double span = 10);

// A change point found by e_divisive: the index of the first value after
// it, the means of the segments on either side, and its permutation p.
struct ChangePoint {
  std::size_t index = 0;
  double before = 0;
  double after = 0;
  double p = 1;
};

struct EDivisiveSettings {
  double alpha = 0.05;            // a change point is kept when its permutation p ≤ alpha
  std::size_t min_segment = 3;    // fewest values on either side of a change point
  std::size_t permutations = 199; // per test
  std::uint64_t seed = 1;
};

// E-divisive means (Matteson & James 2014, exponent 1): the split that
// maximises the scaled energy distance between its two sides, found
// hierarchically over the segments so far, each kept only while a
// permutation test (values permuted within their segments) finds it
// significant. Change points in index order; none for fewer than
// 2 · min_segment values. O(n²) per scan.
std::vector<ChangePoint> e_divisive(std::span<const double> values, const EDivisiveSettings& settings = {});

} // namespace refbench::stats
