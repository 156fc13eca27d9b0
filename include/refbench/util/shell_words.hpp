#pragma once
// Splitting a command string into argv with POSIX shell-word rules, so a
// command runs without a shell (README: the commands, `compare`).

#include <expected>
#include <string>
#include <string_view>
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

} // namespace refbench::util
