#include <refbench/stats/summary.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace refbench::stats {

double median(std::span<const double> values) {
  if (values.empty()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t mid = sorted.size() / 2;
  // halves first: the sum of two values near the largest double overflows
  return sorted.size() % 2 == 1 ? sorted[mid] : sorted[mid - 1] / 2.0 + sorted[mid] / 2.0;
}

} // namespace refbench::stats
