#include <refbench/stats/multiple.hpp>

#include <algorithm>
#include <numeric>

namespace refbench::stats {

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running = 1.0;
  for (std::size_t rank = m; rank >= 1; --rank) {
    std::size_t i = order[rank - 1];
    running = std::min(running, p[i] * static_cast<double>(m) / static_cast<double>(rank));
    adjusted[i] = std::min(running, 1.0);
  }
  return adjusted;
}

} // namespace refbench::stats
