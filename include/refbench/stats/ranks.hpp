#pragma once
// Ranking helpers shared by the rank tests; pure functions.

#include <cstddef>
#include <span>
#include <vector>

namespace refbench::stats {

// 1-based ranks of `values`, tied values getting the average of their ranks
// (as scipy.stats.rankdata's default).
std::vector<double> average_ranks(std::span<const double> values);

// The sizes of the groups of equal values in `values` (groups of 1 omitted).
std::vector<std::size_t> tie_group_sizes(std::span<const double> values);

} // namespace refbench::stats
