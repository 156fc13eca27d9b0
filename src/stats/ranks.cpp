#include <refbench/stats/ranks.hpp>

#include <algorithm>
#include <numeric>

namespace refbench::stats {

std::vector<double> average_ranks(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) {
      ++j;
    }
    double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) {
      ranks[order[k]] = rank;
    }
    i = j + 1;
  }
  return ranks;
}

std::vector<std::size_t> tie_group_sizes(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[i]) {
      ++j;
    }
    if (j > i) {
      sizes.push_back(j - i + 1);
    }
    i = j + 1;
  }
  return sizes;
}

} // namespace refbench::stats
