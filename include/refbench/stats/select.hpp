#pragma once
// Order statistics of the Walsh averages and of the pairwise differences
// that the Hodges–Lehmann estimates and the rank intervals are made of
// (docs/design.md: Statistics), found by selection over the implicit sorted
// matrix the sorted input defines instead of by listing all n(n+1)/2 or m·n
// of them: O(n log n) expected time, O(n) memory. Pure functions.

#include <cstddef>
#include <limits>
#include <span>
#include <utility>

namespace refbench::stats {

// What a statistic is when it is undefined (no data, a NaN in the input).
inline constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// The k-th smallest (0-based) of the n(n+1)/2 Walsh averages
// (values[i] + values[j]) / 2, i ≤ j, computed exactly as that expression
// (the same double as listing them all and sorting would give). `values`
// must be sorted ascending. NaN when `values` holds a NaN. Throws
// std::invalid_argument when k ≥ n(n+1)/2 (so also for empty `values`) or
// when `values` is not sorted.
double kth_walsh_average(std::span<const double> sorted_values, std::size_t k);

// The (k−1)-th and k-th smallest Walsh averages (0 < k < n(n+1)/2), as
// kth_walsh_average gives each, from one selection: the two middle ones of a
// Hodges–Lehmann estimate. Throws as kth_walsh_average does, and for k = 0.
std::pair<double, double> adjacent_walsh_averages(std::span<const double> sorted_values, std::size_t k);

// The k-th smallest (0-based) of the m·n differences x[i] − y[j], computed
// exactly as that expression. `x` and `y` must be sorted ascending. NaN when
// either holds a NaN. Throws std::invalid_argument when k ≥ m·n (so also for
// an empty sample) or when an input is not sorted.
double kth_difference(std::span<const double> sorted_x, std::span<const double> sorted_y, std::size_t k);

// The (k−1)-th and k-th smallest differences (0 < k < m·n), as
// kth_difference gives each, from one selection. Throws as kth_difference
// does, and for k = 0.
std::pair<double, double> adjacent_differences(std::span<const double> sorted_x, std::span<const double> sorted_y,
                                               std::size_t k);

} // namespace refbench::stats
