#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>

namespace refbench::util {
namespace {

constexpr std::string_view k_needs_shell = "|&;<>()$`*?[~#\n";
constexpr std::string_view k_blanks = " \t";

bool is_blank(char c) { return k_blanks.find(c) != std::string_view::npos; }

} // namespace

std::expected<std::vector<std::string>, std::string> split_shell_words(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (is_blank(c)) {
      if (in_word) {
        words.push_back(std::move(word));
        word.clear();
        in_word = false;
      }
      continue;
    }
    if (c == '#' && in_word) {
      word += c; // '#' only starts a comment at the start of a word
      continue;
    }
    if (k_needs_shell.find(c) != std::string_view::npos) {
      std::string shown = c == '\n' ? "a newline" : std::string("'") + c + "'";
      return std::unexpected("uses shell syntax (" + shown + ")");
    }
    in_word = true;
    if (c == '\\') {
      if (++i == command.size()) {
        return std::unexpected("ends with a lone backslash");
      }
      if (command[i] != '\n') {
        word += command[i];
      }
    } else if (c == '\'') {
      auto close = command.find('\'', i + 1);
      if (close == std::string_view::npos) {
        return std::unexpected("has an unterminated single quote");
      }
      word.append(command.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      ++i;
      for (; i < command.size() && command[i] != '"'; ++i) {
        char q = command[i];
        if (q == '$' || q == '`') {
          return std::unexpected(std::string("uses shell syntax ('") + q + "' inside double quotes)");
        }
        if (q == '\\' && i + 1 < command.size() &&
            std::string_view("\"\\$`\n").find(command[i + 1]) != std::string_view::npos) {
          ++i;
          if (command[i] != '\n') {
            word += command[i];
          }
          continue;
        }
        word += q;
      }
      if (i == command.size()) {
        return std::unexpected("has an unterminated double quote");
      }
    } else {
      word += c;
    }
  }
  if (in_word) {
    words.push_back(std::move(word));
  }
  if (words.empty()) {
    return std::unexpected("is empty");
  }
  return words;
}

std::string quote_shell_word(std::string_view word) {
  bool plain = !word.empty();
  for (char c : word) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    plain = plain && safe;
  }
  if (plain) {
    return std::string(word);
  }
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string join_shell_words(const std::vector<std::string>& words) {
  std::string joined;
  for (const auto& word : words) {
    joined += (joined.empty() ? "" : " ") + quote_shell_word(word);
  }
  return joined;
}

std::string fill_shell_script(std::string_view script, const std::vector<std::pair<std::string, std::string>>& values) {
  enum class Quote { none, single, double_ };
  Quote quote = Quote::none;
  std::string out;
  for (std::size_t at = 0; at < script.size();) {
    const auto placeholder = std::find_if(values.begin(), values.end(), [&](const auto& v) {
      return !v.first.empty() && script.substr(at).starts_with(v.first);
    });
    if (placeholder != values.end()) {
      const std::string& value = placeholder->second;
      if (quote == Quote::none) {
        out += quote_shell_word(value);
      } else if (quote == Quote::single) {
        out += replace_all(value, "'", "'\\''"); // close, an escaped quote, reopen
      } else {
        for (char c : value) {
          if (c == '\\' || c == '"' || c == '$' || c == '`') {
            out += '\\';
          }
          out += c;
        }
      }
      at += placeholder->first.size();
      continue;
    }
    const char c = script[at];
    out += c;
    ++at;
    if (c == '\\' && quote != Quote::single && at < script.size()) {
      out += script[at++]; // an escaped character, never a quote
    } else if (c == '\'' && quote != Quote::double_) {
      quote = quote == Quote::single ? Quote::none : Quote::single;
    } else if (c == '"' && quote != Quote::single) {
      quote = quote == Quote::double_ ? Quote::none : Quote::double_;
    }
  }
  return out;
}

} // namespace refbench::util
