#pragma once
// Two-sample analysis for outside data that was not interleaved (docs/manual/statistics.md):
// the Hodges–Lehmann shift and the Mann–Whitney interval and test. Pure.

#include <refbench/stats/signed_rank.hpp>

#include <span>
#include <vector>

namespace refbench::stats {

// Median of all pairwise differences y_j − x_i (mean of the two middle ones
// for an even count), found by selection without listing them
// (stats/select.hpp): O((m + n) log(m + n)) expected time, O(m + n) memory.
// NaN if either is empty.
double hodges_lehmann_shift(std::span<const double> x, std::span<const double> y);

// Null distribution of the Mann–Whitney U for untied samples of sizes `m`
// and `n`: element u is P(U = u), u = 0 … m·n. O(min(m, n)² · max(m, n))
// time, O(m·n) memory.
std::vector<double> mann_whitney_pmf(int m, int n);

// The `confidence` interval for the shift y − x: order statistics of the
// pairwise differences, found by selection as above; exact critical values
// when the smaller sample has ≤ 8 values and nothing is tied, else the
// tie-corrected normal approximation. [NaN, NaN] if either sample is empty.
Interval mann_whitney_interval(std::span<const double> x, std::span<const double> y, double confidence);

// One-sided p-value that y − `shift` is stochastically greater than x, as
// scipy.stats.mannwhitneyu(y − shift, x, alternative="greater") with its
// defaults: exact when the smaller sample has ≤ 8 values and there are no
// ties, else the normal approximation with tie and continuity corrections.
double mann_whitney_p_greater(std::span<const double> x, std::span<const double> y, double shift);

} // namespace refbench::stats
