#include <refbench/stats/select.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Selection in an implicit sorted matrix (Monahan 1984, "Fast computation of
// the Hodges–Lehmann location estimator"; Johnson & Mizoguchi 1978): every
// row ascends left to right and every column ascends top to bottom, so the
// elements ≤ a pivot form a staircase whose size a two-pointer walk counts in
// O(rows + columns). Each row keeps the columns [lo, hi) still in play; two
// pivots drawn from a stratified random sample of those candidates, around
// the rank sought, cut the candidates down by a large factor per round, and
// the last O(rows) candidates are listed and finished with nth_element.

namespace refbench::stats {
namespace {

constexpr std::uint64_t k_seed = 0x48'4c'53'65'6c'65'63'74; // any fixed seed: the result does not depend on it
constexpr std::size_t k_sample_min = 64;
constexpr std::size_t k_sample_max = 1024;
constexpr std::size_t k_list_at_most = 1024; // list the candidates once this many, or 2 a row, are left

// The Walsh averages of sorted v: row i holds columns [i, n).
struct WalshMatrix {
  std::span<const double> v;
  std::size_t rows() const { return v.size(); }
  std::size_t width() const { return v.size(); }
  std::size_t first(std::size_t row) const { return row; }
  double at(std::size_t row, std::size_t column) const { return (v[row] + v[column]) / 2.0; }
};

// x[i] − y[j] for sorted x and y, with y's columns reversed so rows ascend.
struct DifferenceMatrix {
  std::span<const double> x;
  std::span<const double> y;
  std::size_t rows() const { return x.size(); }
  std::size_t width() const { return y.size(); }
  std::size_t first(std::size_t) const { return 0; }
  double at(std::size_t row, std::size_t column) const { return x[row] - y[y.size() - 1 - column]; }
};

template <typename Matrix> class Selection {
public:
  explicit Selection(const Matrix& matrix)
      : m_matrix(matrix), m_lo(matrix.rows()), m_hi(matrix.rows(), matrix.width()), m_bound(matrix.rows()),
        m_strict_bound(matrix.rows()) {
    for (std::size_t row = 0; row < matrix.rows(); ++row) {
      m_lo[row] = matrix.first(row);
    }
  }

  // The k-th smallest element (0-based; k below the element count).
  double kth(std::size_t k) {
    bool interpolate = false; // the first cut samples: the whole matrix is far from even
    for (;;) {
      const auto [below, remaining] = candidates();
      if (remaining <= std::max(k_list_at_most, 2 * m_matrix.rows())) {
        return listed_kth(k - below, remaining);
      }
      if (interpolate) {
        if (auto found = interpolated_cut(k, below, remaining)) {
          return *found;
        }
        // keep interpolating while it at least halves the candidates
        interpolate = 2 * candidates().remaining <= remaining;
        continue;
      }
      interpolate = true;
      auto sample = sample_candidates(remaining);
      // pivots about two standard deviations of the sample rank either side
      // of where the sought element should fall in the sample
      const auto size = static_cast<double>(sample.size());
      const double expected = (static_cast<double>(k - below) + 0.5) / static_cast<double>(remaining) * size;
      const double spread = std::sqrt(size);
      std::size_t sorted_below = 0; // sample[i] for i < sorted_below are no greater than the rest
      if (expected - spread >= 0) {
        const auto index = static_cast<std::size_t>(expected - spread);
        sorted_below = index + 1;
        if (auto found = cut(nth_of(sample, 0, index), k)) {
          return *found;
        }
      }
      if (expected + spread < size) {
        if (auto found = cut(nth_of(sample, sorted_below, static_cast<std::size_t>(expected + spread)), k)) {
          return *found;
        }
      }
    }
  }

  // The largest element below `value` (an element found by kth), and how
  // many elements are below it: one walk of the rows at the bounds kth left.
  std::pair<double, std::size_t> below_element(double value) {
    const std::size_t count = staircases(value, m_bound, m_strict_bound).second;
    double largest = -std::numeric_limits<double>::infinity();
    for (std::size_t row = 0; row < m_matrix.rows(); ++row) {
      if (m_strict_bound[row] > m_matrix.first(row)) {
        largest = std::max(largest, m_matrix.at(row, m_strict_bound[row] - 1));
      }
    }
    return {largest, count};
  }

  // The (k−1)-th and k-th elements (0 < k below the element count).
  std::pair<double, double> previous_and_kth(std::size_t k) {
    const double kth_value = kth(k);
    const auto [largest_below, count_below] = below_element(kth_value);
    // a tie: the (k−1)-th is the same value when fewer than k elements are below it
    return {count_below < k ? kth_value : largest_below, kth_value};
  }

private:
  struct Counts {
    std::size_t below;     // elements left of the candidates (all smaller than the sought one)
    std::size_t remaining; // candidates
  };

  Counts candidates() const {
    Counts counts{0, 0};
    for (std::size_t row = 0; row < m_matrix.rows(); ++row) {
      counts.below += m_lo[row] - m_matrix.first(row);
      counts.remaining += m_hi[row] - m_lo[row];
    }
    return counts;
  }

  // Cuts at two pivots placed by value, as if the candidates were spread
  // evenly between the smallest and the largest of them, either side of
  // where the k-th should fall: on smooth data a few such cuts leave few
  // candidates, at a walk of the rows each and no sample. Returns the k-th
  // when a pivot is it, or when every candidate is equal.
  std::optional<double> interpolated_cut(std::size_t k, std::size_t below, std::size_t remaining) {
    double smallest = std::numeric_limits<double>::infinity();
    double largest = -std::numeric_limits<double>::infinity();
    for (std::size_t row = 0; row < m_matrix.rows(); ++row) {
      if (m_lo[row] < m_hi[row]) {
        smallest = std::min(smallest, m_matrix.at(row, m_lo[row]));
        largest = std::max(largest, m_matrix.at(row, m_hi[row] - 1));
      }
    }
    if (smallest == largest) {
      return smallest; // every candidate is the k-th
    }
    const double span = largest - smallest; // ∞ or NaN: the pivots are not cut at
    const double remaining_count = static_cast<double>(remaining);
    const double share = (static_cast<double>(k - below) + 0.5) / remaining_count;
    const double margin = 2.0 / std::sqrt(remaining_count);
    if (auto found = cut(smallest + std::max(share - margin, 0.0) * span, k)) {
      return found;
    }
    return cut(smallest + std::min(share + margin, 1.0) * span, k);
  }

  // The values of a stratified sample of the candidates, in row order: as
  // many as there are rows, from k_sample_min to k_sample_max, one drawn
  // uniformly from each of that many equal runs of the candidates (fewer
  // candidates than strata never reach here). Its quantiles vary no more
  // than a simple random sample's, and one walk of the rows finds them.
  std::vector<double> sample_candidates(std::size_t remaining) {
    std::vector<double> values(std::clamp(m_matrix.rows(), k_sample_min, k_sample_max));
    const std::size_t strata = values.size();
    // stratum t starts at ⌊t · remaining / strata⌋, computed without overflow
    auto stratum_start = [&](std::size_t t) { return t * (remaining / strata) + t * (remaining % strata) / strata; };
    std::size_t row = 0;
    std::size_t row_start = 0; // candidates in the rows before `row`
    for (std::size_t stratum = 0; stratum < strata; ++stratum) {
      const std::size_t from = stratum_start(stratum);
      const std::size_t pick = from + m_rng.below(stratum_start(stratum + 1) - from);
      while (pick >= row_start + (m_hi[row] - m_lo[row])) {
        row_start += m_hi[row] - m_lo[row];
        ++row;
      }
      values[stratum] = m_matrix.at(row, m_lo[row] + (pick - row_start));
    }
    return values;
  }

  // The `index`-th smallest of `values`, all of whose first `from` are
  // already no greater than the rest (from ≤ index).
  static double nth_of(std::vector<double>& values, std::size_t from, std::size_t index) {
    auto nth = values.begin() + static_cast<std::ptrdiff_t>(index);
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(from), nth, values.end());
    return *nth;
  }

  // Both staircases of `pivot` in one walk of the rows: per row, the first
  // column above it into `above` and the first not below it into
  // `not_below` (the two differ only where elements equal the pivot).
  // Returns how many elements are not above it and how many are below it.
  // The pivot must lie strictly between the values already cut off on
  // either side, so each bound lies within [lo, hi].
  std::pair<std::size_t, std::size_t> staircases(double pivot, std::vector<std::size_t>& above,
                                                 std::vector<std::size_t>& not_below) const {
    std::size_t not_above_count = 0;
    std::size_t below_count = 0;
    std::size_t column = m_matrix.width();
    std::size_t strict_column = m_matrix.width();
    for (std::size_t row = 0; row < m_matrix.rows(); ++row) {
      column = std::clamp(column, m_lo[row], m_hi[row]);
      while (column > m_lo[row] && m_matrix.at(row, column - 1) > pivot) {
        --column;
      }
      // each bound moves left only, row after row: two walks of O(rows + columns)
      strict_column = std::clamp(std::min(strict_column, column), m_lo[row], m_hi[row]);
      while (strict_column > m_lo[row] && m_matrix.at(row, strict_column - 1) >= pivot) {
        --strict_column;
      }
      above[row] = column;
      not_below[row] = strict_column;
      not_above_count += column - m_matrix.first(row);
      below_count += strict_column - m_matrix.first(row);
    }
    return {not_above_count, below_count};
  }

  // Cuts the candidates at `pivot`: keeps those on the side of the k-th
  // element, or returns the pivot when it is the k-th element.
  std::optional<double> cut(double pivot, std::size_t k) {
    if (!(pivot > m_floor && pivot < m_ceiling)) {
      return std::nullopt; // already cut off by the other pivot
    }
    const auto [not_above, below] = staircases(pivot, m_bound, m_strict_bound);
    if (k >= not_above) {
      m_lo.swap(m_bound);
      m_floor = pivot;
      return std::nullopt;
    }
    if (k < below) {
      m_hi.swap(m_strict_bound);
      m_ceiling = pivot;
      return std::nullopt;
    }
    return pivot;
  }

  // The k-th smallest of the `remaining` candidates, listed.
  double listed_kth(std::size_t k, std::size_t remaining) const {
    std::vector<double> values;
    values.reserve(remaining);
    for (std::size_t row = 0; row < m_matrix.rows(); ++row) {
      for (std::size_t column = m_lo[row]; column < m_hi[row]; ++column) {
        values.push_back(m_matrix.at(row, column));
      }
    }
    auto nth = values.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
  }

  const Matrix& m_matrix;
  std::vector<std::size_t> m_lo;           // per row, the first candidate column
  std::vector<std::size_t> m_hi;           // per row, one past the last candidate column
  std::vector<std::size_t> m_bound;        // scratch for a cut's staircases (swapped with m_lo or m_hi)
  std::vector<std::size_t> m_strict_bound; // as m_bound, for the elements below the pivot
  double m_floor = -std::numeric_limits<double>::infinity();  // every candidate is above it
  double m_ceiling = std::numeric_limits<double>::infinity(); // every candidate is below it
  util::Rng m_rng{k_seed};
};

void require_sorted(std::span<const double> values, const std::string& what) {
  if (!std::is_sorted(values.begin(), values.end())) {
    throw std::invalid_argument(what + " must be sorted ascending");
  }
}

bool has_nan(std::span<const double> values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
}

// NaN when `sorted_values` holds a NaN or both infinities (−∞ and +∞
// together make a NaN average); throws unless k < n(n+1)/2 and the values
// are sorted.
std::optional<double> walsh_undefined(std::span<const double> sorted_values, std::size_t k, const char* what) {
  const std::size_t n = sorted_values.size();
  if (k >= n * (n + 1) / 2) {
    throw std::invalid_argument(std::string(what) + ": k is not below the number of Walsh averages");
  }
  if (has_nan(sorted_values)) {
    return k_nan;
  }
  require_sorted(sorted_values, std::string(what) + ": values");
  if (std::isinf(sorted_values.front()) && std::isinf(sorted_values.back()) &&
      sorted_values.front() != sorted_values.back()) {
    return k_nan;
  }
  return std::nullopt;
}

// As walsh_undefined, for the differences x[i] − y[j] (∞ − ∞ is NaN).
std::optional<double> differences_undefined(std::span<const double> sorted_x, std::span<const double> sorted_y,
                                            std::size_t k, const char* what) {
  if (k >= sorted_x.size() * sorted_y.size()) {
    throw std::invalid_argument(std::string(what) + ": k is not below the number of differences");
  }
  if (has_nan(sorted_x) || has_nan(sorted_y)) {
    return k_nan;
  }
  require_sorted(sorted_x, std::string(what) + ": x");
  require_sorted(sorted_y, std::string(what) + ": y");
  auto same_infinity = [](double a, double b) { return std::isinf(a) && a == b; };
  if (same_infinity(sorted_x.front(), sorted_y.front()) || same_infinity(sorted_x.back(), sorted_y.back())) {
    return k_nan;
  }
  return std::nullopt;
}

void require_positive(std::size_t k, const char* what) {
  if (k == 0) {
    throw std::invalid_argument(std::string(what) + ": k is 0, and there is no element before the first");
  }
}

} // namespace

double kth_walsh_average(std::span<const double> sorted_values, std::size_t k) {
  if (auto undefined = walsh_undefined(sorted_values, k, "kth_walsh_average")) {
    return *undefined;
  }
  const WalshMatrix matrix{sorted_values};
  return Selection<WalshMatrix>(matrix).kth(k);
}

std::pair<double, double> adjacent_walsh_averages(std::span<const double> sorted_values, std::size_t k) {
  require_positive(k, "adjacent_walsh_averages");
  if (auto undefined = walsh_undefined(sorted_values, k, "adjacent_walsh_averages")) {
    return {*undefined, *undefined};
  }
  const WalshMatrix matrix{sorted_values};
  return Selection<WalshMatrix>(matrix).previous_and_kth(k);
}

double kth_difference(std::span<const double> sorted_x, std::span<const double> sorted_y, std::size_t k) {
  if (auto undefined = differences_undefined(sorted_x, sorted_y, k, "kth_difference")) {
    return *undefined;
  }
  const DifferenceMatrix matrix{sorted_x, sorted_y};
  return Selection<DifferenceMatrix>(matrix).kth(k);
}

std::pair<double, double> adjacent_differences(std::span<const double> sorted_x, std::span<const double> sorted_y,
                                               std::size_t k) {
  require_positive(k, "adjacent_differences");
  if (auto undefined = differences_undefined(sorted_x, sorted_y, k, "adjacent_differences")) {
    return {*undefined, *undefined};
  }
  const DifferenceMatrix matrix{sorted_x, sorted_y};
  return Selection<DifferenceMatrix>(matrix).previous_and_kth(k);
}

} // namespace refbench::stats
