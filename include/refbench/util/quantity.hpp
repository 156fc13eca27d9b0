#pragma once
// Parsing of the human-written quantities of docs/manual/commands.md: durations and sizes.

#include <chrono>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace refbench::util {

// Parses a duration: a non-negative decimal number with an optional unit
// `ms`, `s`, `m` or `h` (none = seconds), e.g. `90`, `1.5s`, `25m`, `1h`.
// Returns a message naming the bad text on failure.
std::expected<std::chrono::nanoseconds, std::string> parse_duration(std::string_view text);

// Parses a size in bytes: a non-negative number with an optional unit; `B`,
// binary `KiB MiB GiB TiB` (also `K M G T`), decimal `KB MB GB TB`.
// Returns a message naming the bad text on failure.
std::expected<std::uint64_t, std::string> parse_size(std::string_view text);

// Parses a seed: decimal digits (no sign, no leading zero) of a value from
// 0 to 2^64-1. Returns a message naming the bad text on failure.
std::expected<std::uint64_t, std::string> parse_seed(std::string_view text);

// Seconds as a double, for arithmetic on budgets.
inline double to_seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

} // namespace refbench::util
