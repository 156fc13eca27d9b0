#pragma once
// JSON that comes from outside (files a user passes, event payloads):
// parsing that turns every failure into a message, and members read with
// their type and range checked, so a reader can name the field.

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace refbench::util {

// Deepest nesting of arrays and objects `parse_json` accepts.
inline constexpr std::size_t k_max_json_depth = 128;

// The largest document `parse_json` takes by default (1 GiB: a results.json
// of 10^6 pairs is a few hundred MiB); readers of smaller documents (API
// answers, events, a command's report) pass their own bound.
inline constexpr std::size_t k_max_json_bytes = std::size_t{1} << 30;

// The document in `text` (a UTF-8 BOM skipped), or why it is none: longer
// than `max_bytes`, a syntax error with its byte, a number beyond a double,
// nesting deeper than `k_max_json_depth`. The one parser of every document
// that comes from outside (docs/manual/security.md): the depth bound keeps
// every later copy, comparison and dump of the document off a deep stack.
std::expected<nlohmann::json, std::string> parse_json(std::string_view text, std::size_t max_bytes = k_max_json_bytes);

// Member `key` of `object` when `object` is an object that has it and it is
// not null; nullptr otherwise. Never a copy: a document's members may be large.
const nlohmann::json* json_member(const nlohmann::json& object, std::string_view key);

// Member `key` of `object` as an integer in [`low`, `high`]; `fallback`
// when it is missing or null (an error when there is none). Errors start
// with `key`, e.g. "rounds must be an integer from 0 to 1000000, got -1".
std::expected<std::int64_t, std::string> integer_member(const nlohmann::json& object, std::string_view key,
                                                        std::int64_t low, std::int64_t high,
                                                        std::optional<std::int64_t> fallback = std::nullopt);

// Member `key` of `object` as an unsigned 64-bit integer (a seed), or
// `fallback` when missing or null; errors start with `key`.
std::expected<std::uint64_t, std::string> unsigned_member(const nlohmann::json& object, std::string_view key,
                                                          std::optional<std::uint64_t> fallback = std::nullopt);

// Member `key` of `object` as a number in [`low`, `high`], or `fallback`
// when missing or null; errors start with `key`.
std::expected<double, std::string> number_member(const nlohmann::json& object, std::string_view key, double low,
                                                 double high, std::optional<double> fallback = std::nullopt);

// Member `key` of `object` as a string, or `fallback` when missing or null;
// errors start with `key`.
std::expected<std::string, std::string> string_member(const nlohmann::json& object, std::string_view key,
                                                      std::optional<std::string> fallback = std::nullopt);

// Member `key` of `object` as a boolean, or `fallback` when missing or null.
std::expected<bool, std::string> bool_member(const nlohmann::json& object, std::string_view key,
                                             std::optional<bool> fallback = std::nullopt);

// A short quote of `value` for messages (at most 40 bytes of its JSON).
std::string json_excerpt(const nlohmann::json& value);

} // namespace refbench::util
