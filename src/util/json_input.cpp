#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <cmath>
#include <fmt/format.h>

namespace refbench::util {
namespace {

using nlohmann::json;

// The byte at which `text` nests arrays and objects deeper than `limit`
// (strings skipped), or nullopt.
std::optional<std::size_t> too_deep(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) {
        return i;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// The member `key` of `object`; nullptr when `object` is no object, lacks
// it or holds null there.
const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string missing(std::string_view key) { return fmt::format("{} is missing", key); }

} // namespace

std::expected<json, std::string> parse_json(std::string_view text, std::size_t max_bytes) {
  text = without_bom(text);
  if (text.size() > max_bytes) {
    return std::unexpected(fmt::format("{} bytes, more than the {} a document may have", text.size(), max_bytes));
  }
  if (auto at = too_deep(text, k_max_json_depth)) {
    return std::unexpected(fmt::format("nested deeper than {} levels at byte {}", k_max_json_depth, *at));
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& error) {
    return std::unexpected(fmt::format("invalid JSON at byte {}: {}", error.byte, error.what()));
  } catch (const json::exception& error) { // out_of_range.406: a number beyond a double
    return std::unexpected(fmt::format("invalid JSON: {}", error.what()));
  }
}

const json* json_member(const json& object, std::string_view key) { return member(object, key); }

std::expected<std::int64_t, std::string> integer_member(const json& object, std::string_view key, std::int64_t low,
                                                        std::int64_t high, std::optional<std::int64_t> fallback) {
  const json* value = member(object, key);
  if (value == nullptr) {
    return fallback ? std::expected<std::int64_t, std::string>(*fallback) : std::unexpected(missing(key));
  }
  std::optional<std::int64_t> integer;
  if (value->is_number_unsigned()) {
    const auto u = value->get<std::uint64_t>();
    integer = u <= static_cast<std::uint64_t>(INT64_MAX) ? std::optional<std::int64_t>(static_cast<std::int64_t>(u))
                                                         : std::nullopt;
  } else if (value->is_number_integer()) {
    integer = value->get<std::int64_t>();
  } else if (value->is_number_float()) { // 3.0 is an integer; 3.5 and 1e300 are not
    const double d = value->get<double>();
    if (std::trunc(d) == d && std::fabs(d) < 9.0e15) {
      integer = static_cast<std::int64_t>(d);
    }
  }
  if (!integer || *integer < low || *integer > high) {
    return std::unexpected(
        fmt::format("{} must be an integer from {} to {}, got {}", key, low, high, json_excerpt(*value)));
  }
  return *integer;
}

std::expected<std::uint64_t, std::string> unsigned_member(const json& object, std::string_view key,
                                                          std::optional<std::uint64_t> fallback) {
  const json* value = member(object, key);
  if (value == nullptr) {
    return fallback ? std::expected<std::uint64_t, std::string>(*fallback) : std::unexpected(missing(key));
  }
  // parsed text holds a non-negative integer as unsigned; a built document may hold it signed
  const bool non_negative =
      value->is_number_unsigned() || (value->is_number_integer() && value->get<std::int64_t>() >= 0);
  if (!non_negative) {
    return std::unexpected(
        fmt::format("{} must be an integer from 0 to {}, got {}", key, UINT64_MAX, json_excerpt(*value)));
  }
  return value->get<std::uint64_t>();
}

std::expected<double, std::string> number_member(const json& object, std::string_view key, double low, double high,
                                                 std::optional<double> fallback) {
  const json* value = member(object, key);
  if (value == nullptr) {
    return fallback ? std::expected<double, std::string>(*fallback) : std::unexpected(missing(key));
  }
  const double number = value->is_number() ? value->get<double>() : std::nan("");
  if (!(number >= low && number <= high)) {
    return std::unexpected(
        fmt::format("{} must be a number from {} to {}, got {}", key, low, high, json_excerpt(*value)));
  }
  return number;
}

std::expected<std::string, std::string> string_member(const json& object, std::string_view key,
                                                      std::optional<std::string> fallback) {
  const json* value = member(object, key);
  if (value == nullptr) {
    return fallback ? std::expected<std::string, std::string>(*fallback) : std::unexpected(missing(key));
  }
  if (!value->is_string()) {
    return std::unexpected(fmt::format("{} must be a string, got {}", key, json_excerpt(*value)));
  }
  return value->get<std::string>();
}

std::expected<bool, std::string> bool_member(const json& object, std::string_view key, std::optional<bool> fallback) {
  const json* value = member(object, key);
  if (value == nullptr) {
    return fallback ? std::expected<bool, std::string>(*fallback) : std::unexpected(missing(key));
  }
  if (!value->is_boolean()) {
    return std::unexpected(fmt::format("{} must be true or false, got {}", key, json_excerpt(*value)));
  }
  return value->get<bool>();
}

std::string json_excerpt(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= 40 ? text : std::string(utf8_prefix(text, 37)) + "...";
}

} // namespace refbench::util
