#include <refbench/util/quantity.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace refbench::util {
namespace {

struct NumberAndUnit {
  double number;
  std::string_view unit;
};

// Splits "12.5MiB" into 12.5 and "MiB"; rejects signs, exponents and blanks.
std::expected<NumberAndUnit, std::string> split_number(std::string_view text, std::string_view what) {
  auto bad = [&] { return std::unexpected("invalid " + std::string(what) + " '" + std::string(text) + "'"); };
  std::size_t digits = 0;
  while (digits < text.size() && ((text[digits] >= '0' && text[digits] <= '9') || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) {
    return bad();
  }
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number, std::chars_format::fixed);
  if (ec != std::errc{} || end != text.data() + digits || !std::isfinite(number)) {
    return bad();
  }
  return NumberAndUnit{number, text.substr(digits)};
}

} // namespace

std::expected<std::chrono::nanoseconds, std::string> parse_duration(std::string_view text) {
  auto parsed = split_number(text, "duration");
  if (!parsed) {
    return std::unexpected(parsed.error() + " (use e.g. 90, 90s, 500ms, 25m, 1h)");
  }
  static constexpr std::array<std::pair<std::string_view, double>, 5> k_units{
      {{"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"m", 60.0}, {"h", 3600.0}}};
  for (const auto& [unit, seconds] : k_units) {
    if (parsed->unit == unit) {
      double ns = parsed->number * seconds * 1e9;
      if (ns > 1e18) {
        return std::unexpected("duration '" + std::string(text) + "' is too long");
      }
      return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(ns)));
    }
  }
  return std::unexpected("invalid duration '" + std::string(text) +
                         "': unknown unit (use e.g. 90, 90s, 500ms, 25m, 1h)");
}

std::expected<std::uint64_t, std::string> parse_size(std::string_view text) {
  auto parsed = split_number(text, "size");
  if (!parsed) {
    return std::unexpected(parsed.error() + " (use e.g. 512, 1KiB, 32MiB, 1GiB)");
  }
  static constexpr std::array<std::pair<std::string_view, double>, 14> k_units{{
      {"", 1.0},
      {"B", 1.0},
      {"K", 1024.0},
      {"KiB", 1024.0},
      {"M", 1048576.0},
      {"MiB", 1048576.0},
      {"G", 1073741824.0},
      {"GiB", 1073741824.0},
      {"T", 1099511627776.0},
      {"TiB", 1099511627776.0},
      {"KB", 1e3},
      {"MB", 1e6},
      {"GB", 1e9},
      {"TB", 1e12},
  }};
  for (const auto& [unit, factor] : k_units) {
    if (parsed->unit == unit) {
      double bytes = std::round(parsed->number * factor);
      if (bytes > 9.0e18) {
        return std::unexpected("size '" + std::string(text) + "' is too large");
      }
      return static_cast<std::uint64_t>(bytes);
    }
  }
  return std::unexpected("invalid size '" + std::string(text) +
                         "': unknown unit (use e.g. 512, 1KiB, 32MiB, 1GiB; KB/MB are decimal)");
}

std::expected<std::uint64_t, std::string> parse_seed(std::string_view text) {
  std::uint64_t seed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || (text.size() > 1 && text[0] == '0')) {
    return std::unexpected("invalid seed '" + std::string(text) +
                           "': write a whole number from 0 to 18446744073709551615 in decimal");
  }
  return seed;
}

} // namespace refbench::util
