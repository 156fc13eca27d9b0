#include <refbench/stats/summary.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace refbench::stats {

double median(std::span<const double> values) {
  if (values.empty()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<double> copy(values.begin(), values.end());
  const std::size_t mid = copy.size() / 2;
  const auto upper = copy.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(copy.begin(), upper, copy.end());
  if (copy.size() % 2 == 1) {
    return *upper;
  }
  // the lower middle is the largest value left of the upper one; halves
  // first: the sum of two values near the largest double overflows
  return *std::max_element(copy.begin(), upper) / 2.0 + *upper / 2.0;
}

} // namespace refbench::stats
