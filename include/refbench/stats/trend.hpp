#pragma once
// Series over time (docs/manual/history.md): chained links, the EWMA band
// and E-divisive change points. Pure functions on log-ratios.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace refbench::stats {

// One link of a chain: a log-ratio estimate and its two-sided interval at
// some confidence, in log units (low ≤ estimate ≤ high), from `n` pairs
// (0: not known).
struct Link {
  double estimate = 0;
  double low = 0;
  double high = 0;
  std::size_t n = 0;
};

// The chain's cumulative log-ratio: the sum of the links' estimates, with
// an interval at `confidence` from independent links (docs/design.md,
// Chained links). A link of n ≥ 2 pairs reads as a t interval on n − 1
// degrees of freedom: its standard error is its full width / (2 t), t the
// Student quantile of `link_confidence`; a link of unknown n uses the
// normal quantile. The sum's variance is Σ s_i², its quantile Student's on
// the Welch–Satterthwaite degrees of freedom (Σ s_i²)² / Σ s_i⁴ / (n_i − 1),
// so one link gives back its own interval and many links approach the
// normal one. Empty `links`: {0, 0, 0}.
Link chain(std::span<const Link> links, double link_confidence = 0.95, double confidence = 0.95);

// A link that stands out of its chain (docs/design.md, Steps on a chain):
// its index and the Benjamini–Hochberg adjusted p of "its ratio lies
// beyond the chain's noise band".
struct LinkStep {
  std::size_t index = 0;
  double p = 1;
};

// The links of `links` whose own interval, adjusted across the chain by
// Benjamini–Hochberg at `alpha`, lies beyond the noise the chain shows, in
// index order. Each link's standard error s_i comes from its interval as in
// `chain` (t on n − 1 degrees of freedom at `link_confidence`), widened by
// the run-to-run scatter the links show beyond their own intervals:
// τ² = max(0, (1.4826 · MAD of the estimates)² − median s_i²), and
// σ_i = √(s_i² + τ²). The noise band is ±δ with δ = the median σ_i (what one
// night cannot resolve); a link's p is 2 · P(T > (|estimate| − δ) / σ_i),
// 1 inside the band, so its interval at 1 − p just clears the band. Fewer
// than 2 links: none.
std::vector<LinkStep> link_steps(std::span<const Link> links, double alpha = 0.05, double link_confidence = 0.95);

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

// Permutations per E-divisive test unless told otherwise.
inline constexpr std::size_t k_default_permutations = 199;

struct EDivisiveSettings {
  double alpha = 0.05;                               // a change point is kept when its permutation p ≤ alpha
  std::size_t min_segment = 3;                       // fewest values on either side of a change point
  std::size_t permutations = k_default_permutations; // per test
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
