#include <refbench/report/units.hpp>

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace refbench::report {
namespace {

// Four significant digits: 1.234, 12.34, 123.4, 1234.
std::string four_digits(double value) {
  double magnitude = std::fabs(value);
  int decimals = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
  return fmt::format("{:.{}f}", value, decimals);
}

} // namespace

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) {
    return "—";
  }
  static constexpr std::array<std::pair<double, const char*>, 3> k_units{{{1e-6, "ns"}, {1e-3, "µs"}, {1.0, "ms"}}};
  for (const auto& [limit, unit] : k_units) {
    if (std::fabs(seconds) < limit) {
      return four_digits(seconds / limit * 1000.0) + " " + unit;
    }
  }
  return four_digits(seconds) + " s";
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) {
    return "—";
  }
  static constexpr std::array<const char*, 4> k_units{"B", "KiB", "MiB", "GiB"};
  std::size_t unit = 0;
  while (unit + 1 < k_units.size() && std::fabs(bytes) >= 1024.0) {
    bytes /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : four_digits(bytes) + " " + k_units[unit];
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 60) {
    return format_seconds(seconds);
  }
  const long total = std::lround(seconds);
  if (total < 3600) {
    return total % 60 == 0 ? fmt::format("{} min", total / 60) : fmt::format("{} min {:02} s", total / 60, total % 60);
  }
  return fmt::format("{} h {:02} min", total / 3600, (total % 3600) / 60);
}

std::string format_ratio(double ratio) { return std::isfinite(ratio) ? fmt::format("{:.3f}x", ratio) : "—"; }

} // namespace refbench::report
