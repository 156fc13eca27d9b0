#pragma once
// Small string helpers.

#include <string>
#include <string_view>
#include <vector>

namespace refbench::util {

// `text` without a leading UTF-8 byte order mark (EF BB BF), which
// spreadsheets write at the start of "CSV UTF-8"; every reader of a text
// input calls it first.
std::string_view without_bom(std::string_view text);

// The characters `trim` and its halves remove by default: blanks and line
// breaks.
inline constexpr std::string_view k_blank_chars = " \t\r\n";

// `text` without the leading and trailing characters that are in `chars`.
std::string_view trim(std::string_view text, std::string_view chars = k_blank_chars);

// `text` without the leading characters that are in `chars`.
std::string_view trim_left(std::string_view text, std::string_view chars = k_blank_chars);

// `text` without the trailing characters that are in `chars`.
std::string_view trim_right(std::string_view text, std::string_view chars = k_blank_chars);

// The pieces of `text` between occurrences of `separator`, in order: n + 1
// pieces for n separators ("a\n" gives "a" and "").
std::vector<std::string_view> split(std::string_view text, char separator);

// `text` with every occurrence of `from` replaced by `to` (`from` non-empty).
std::string replace_all(std::string text, std::string_view from, std::string_view to);

// `text` with A–Z turned into a–z and every other byte kept (header names,
// URL schemes and hosts, API messages).
std::string ascii_lower(std::string text);

// The number of code points in UTF-8 `text` (bytes that do not continue a
// sequence), a monospace display width for text without wide characters.
std::size_t code_points(std::string_view text);

// The longest prefix of UTF-8 `text` of at most `max_bytes` bytes that does
// not end inside a multi-byte sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// The first `count` code points of UTF-8 `text` (all of it if shorter).
std::string_view first_code_points(std::string_view text, std::size_t count);

// The last `count` code points of UTF-8 `text` (all of it if shorter).
std::string_view last_code_points(std::string_view text, std::size_t count);

// `text` in at most `width` code points (width ≥ 1): as it is when it fits,
// else its start and its end around one "…", so names that differ only at
// the end ("…_ms_100", "…_ms_1000") stay distinct.
std::string elide_middle(std::string_view text, std::size_t width);

// `text` with its control characters (C0, DEL, and C1 such as CSI as their
// two UTF-8 bytes) shown as visible text (`\n`, `\x1b`, `\u009b`), except
// those in `kept`: safe to print to a terminal or a CI log.
std::string printable(std::string_view text, std::string_view kept = "");

// `text` with a backslash before every line that would otherwise start
// (after blanks) with "::", so no line of it is read as a CI workflow
// command when printed to a GitHub Actions log.
std::string without_workflow_commands(std::string_view text);

} // namespace refbench::util
