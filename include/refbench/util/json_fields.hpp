#pragma once
// The members of one JSON object read with their types and ranges checked,
// every error naming the file (and line) and the member's path, e.g.
// "results.json: cells[2].samples[0].wall must be a number from 0 to 1e9".
// For the files refbench writes and reads back (results.json, journals).

#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>

#include <cstddef>
#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace refbench::util {

class JsonFields {
public:
  // Reads `object`, found at `path` ("" for the document, else e.g.
  // "cells[2]") of `where` ("FILE" or "FILE:LINE"); throws UsageError with
  // `hint` when it is no object, and for every bad member later.
  JsonFields(const nlohmann::json& object, std::string where, std::string path, std::string hint);

  // Throws UsageError "`where`: `problem`" with the hint.
  [[noreturn]] void fail(const std::string& problem) const;

  // `key` as it is named in messages and sub-paths.
  std::string name(std::string_view key) const;

  // The value, or a failure naming this object's path and the member.
  template <class T> T take(std::expected<T, std::string> value) const {
    if (!value) {
      fail(m_path.empty() ? value.error() : m_path + "." + value.error());
    }
    return *std::move(value);
  }

  // Member `key` as a string / boolean / integer in [`low`, `high`] /
  // non-negative number of seconds; `fallback` when missing or null, a
  // failure when there is none.
  std::string string(std::string_view key, std::optional<std::string> fallback = std::nullopt) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::int64_t integer(std::string_view key, std::int64_t low, std::int64_t high,
                       std::optional<std::int64_t> fallback = std::nullopt) const;
  int count(std::string_view key, std::optional<int> fallback = std::nullopt) const;
  double number(std::string_view key, double low, double high, std::optional<double> fallback = std::nullopt) const;
  double seconds(std::string_view key, std::optional<double> fallback = std::nullopt) const;
  // Member `key` as a number in [`low`, `high`]; nullopt when missing or null.
  std::optional<double> optional_number(std::string_view key, double low, double high) const;

  // Whether member `key` is there and not null.
  bool has(std::string_view key) const;

  // The member `key`, which must be an array (`is_array`) or an object; an
  // empty one of that kind when it is missing or null and not `required`.
  nlohmann::json part(std::string_view key, bool is_array, bool required) const;

  const nlohmann::json& object() const { return m_object; }
  // The file (and line) this object is in.
  const std::string& where() const { return m_where; }

  // The fields of `object`, a part of this one named `path`.
  JsonFields inner(const nlohmann::json& object, std::string path) const;
  // Member `key`, an array of objects (none when missing or null), read one
  // element at a time: `read(fields)` for the fields of each, named
  // "KEY[i]", in order; the results in a vector.
  template <class Read> auto each(std::string_view key, Read read) const {
    std::vector<std::invoke_result_t<Read&, const JsonFields&>> out;
    const nlohmann::json list = part(key, true, false);
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      out.push_back(read(inner(list[i], element_name(key, i))));
    }
    return out;
  }
  // "KEY[i]" under this object's path.
  std::string element_name(std::string_view key, std::size_t i) const;

private:
  const nlohmann::json& m_object;
  std::string m_where;
  std::string m_path;
  std::string m_hint;
};

// The largest number of seconds a refbench file may record.
inline constexpr double k_max_recorded_seconds = 1e9;

} // namespace refbench::util
