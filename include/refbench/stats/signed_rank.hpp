#pragma once
// Paired analysis on log-ratios d (docs/manual/statistics.md): the Hodges–Lehmann
// pseudo-median, the Wilcoxon signed-rank confidence interval and the
// one-sided signed-rank test. Pure functions, no I/O.

#include <span>
#include <vector>

namespace refbench::stats {

// A closed interval [lo, hi] in the units of the data it was computed on.
struct Interval {
  double lo = 0;
  double hi = 0;
  // False when there were too few values to reach the asked confidence, and
  // [lo, hi] is only the widest interval the data allow.
  bool reaches_confidence = true;
  // Half the width: the precision of docs/manual/statistics.md.
  double half_width() const { return (hi - lo) / 2.0; }
};

// The Hodges–Lehmann pseudo-median of `d`: the median of its Walsh
// averages. NaN for an empty span.
double hodges_lehmann(std::span<const double> d);

// hodges_lehmann of values already sorted ascending, without the copy and
// the sort: O(n log n) expected time by selection, O(n) memory.
double hodges_lehmann_of_sorted(std::span<const double> sorted);

// Null distribution of the signed-rank statistic W+ for `n` untied,
// non-zero values: element w is P(W+ = w), w = 0 … n(n+1)/2.
std::vector<double> signed_rank_pmf(int n);

// The exact lower critical value: the largest c with P(W+ ≤ c) ≤
// `tail_probability` for `n` untied values, or -1 when even c = 0 is too
// likely (n too small for that tail).
int signed_rank_critical_value(int n, double tail_probability);

// True when `d` has zeros or tied absolute values (exact tables do not apply).
bool has_zeros_or_ties(std::span<const double> d);

// The `confidence` (e.g. 0.95) distribution-free interval for the
// pseudo-median: order statistics of the Walsh averages, with exact critical
// values for n ≤ 50 without zeros or ties, else the tie-corrected normal
// approximation. Below the smallest n that reaches `confidence`, the widest
// interval [min, max] of the Walsh averages. Empty `d` gives [NaN, NaN].
Interval signed_rank_interval(std::span<const double> d, double confidence);

// The Hodges–Lehmann estimate and the signed-rank interval together (what
// signed_rank_interval and hodges_lehmann give separately): order
// statistics of the Walsh averages found by selection (stats/select.hpp)
// without listing them, in O(n log n) expected time and O(n) memory.
struct PseudoMedianEstimate {
  double estimate = 0;
  Interval interval;
};
PseudoMedianEstimate estimate_pseudo_median(std::span<const double> d, double confidence);

// estimate_pseudo_median of values already sorted ascending, without the
// copy and the sort.
PseudoMedianEstimate estimate_pseudo_median_of_sorted(std::span<const double> sorted, double confidence);

// The signed-rank interval by inverting the test itself: [lo, hi] holds
// every shift δ that the one-sided signed_rank_p_greater tests (of d − δ,
// zeros dropped, tie-corrected) do not reject at (1 − confidence) / 2 on
// either side. Without zeros or ties this is signed_rank_interval; with the
// many ties of integer counts, where the Walsh-average order statistics
// over-cover (98–100 % for a 95 % interval), it keeps its confidence. The
// ends are Walsh averages, found by binary search over their ranks with
// kth_walsh_average: O(n log² n) expected time, O(n) memory.
Interval signed_rank_interval_inverted(std::span<const double> d, double confidence);

// One-sided p-value of the Wilcoxon signed-rank test of H0: pseudo-median
// ≤ `shift` against H1: > `shift`, on d − shift with zeros dropped: exact
// for n ≤ 50 without zeros or ties, else the tie-corrected normal
// approximation without continuity correction (as scipy.stats.wilcoxon).
// 1 when no non-zero difference is left.
double signed_rank_p_greater(std::span<const double> d, double shift);

// signed_rank_p_greater of values already sorted ascending: the order of
// |v − shift| is merged from the two sides of `shift` in O(n) instead of
// sorted, so one sort of d serves the estimate, the interval and both
// one-sided tests (docs/manual/statistics.md, speed).
double signed_rank_p_greater_of_sorted(std::span<const double> sorted, double shift);

} // namespace refbench::stats
