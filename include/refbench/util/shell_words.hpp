#pragma once
// Splitting a command string into argv with POSIX shell-word rules, so a
// command runs without a shell (docs/manual/commands.md, `compare`).

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refbench::util {

// Splits `command` into words: blanks separate, '…' is literal, "…" allows
// \" \\ \$ \` escapes, a backslash outside quotes escapes the next character.
// Unquoted shell syntax that needs a real shell (| & ; < > ( ) $ ` * ? [ ~ #,
// newlines) and unterminated quotes are errors naming the problem.
std::expected<std::vector<std::string>, std::string> split_shell_words(std::string_view command);

// Quotes `word` so split_shell_words gives it back unchanged (for printing
// reproducible command lines).
std::string quote_shell_word(std::string_view word);

// `words` quoted with quote_shell_word and joined with single spaces.
std::string join_shell_words(const std::vector<std::string>& words);

// `script` (a /bin/sh -c string) with each occurrence of a placeholder of
// `values` (pairs of placeholder and value, e.g. {"{arm}", "/w/a"}) replaced
// in one pass by its value quoted for where it stands: a shell word outside
// quotes, escaped for the quotes around it inside '…' or "…". The value
// never becomes shell syntax, and is never searched for placeholders.
std::string fill_shell_script(std::string_view script, const std::vector<std::pair<std::string, std::string>>& values);

} // namespace refbench::util
