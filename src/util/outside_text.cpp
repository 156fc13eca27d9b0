#include <refbench/util/outside_text.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>

namespace refbench::util {
namespace {

// U+200B ZERO WIDTH SPACE: after an '@' it keeps the name from being a
// mention (GitHub's mentions are found in the rendered text, where neither
// "\@" nor "&#64;" is left; dependabot and Renovate do the same).
constexpr std::string_view k_zero_width_space = "\xE2\x80\x8B";

bool ascii_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// An '_' between two letters or digits can neither open nor close emphasis.
bool intraword(std::string_view text, std::size_t at) {
  return at > 0 && at + 1 < text.size() && ascii_alnum(text[at - 1]) && ascii_alnum(text[at + 1]);
}

// Where the text, put at the start of a line, would begin a construct of its
// own: the position of a leading "- ", "+ ", "--" (a list item, a rule), '='
// (a setext underline), "::" (a line a log reads as a workflow command), or
// of the '.' or ')' after leading digits (an ordered list item); npos when
// there is none.
std::size_t block_marker(std::string_view text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) {
    return std::string_view::npos;
  }
  const std::string_view rest = text.substr(first);
  if (rest.starts_with("- ") || rest.starts_with("+ ") || rest.starts_with("--") || rest.starts_with("::") ||
      rest == "-" || rest == "+" || rest.starts_with('=')) {
    return first;
  }
  std::size_t after = first;
  while (after < text.size() && text[after] >= '0' && text[after] <= '9') {
    ++after;
  }
  return after > first && after < text.size() && (text[after] == '.' || text[after] == ')') ? after
                                                                                            : std::string_view::npos;
}

std::size_t longest_backtick_run(std::string_view text) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

std::string workflow_escape(std::string_view text, bool property) {
  std::string out;
  for (char c : printable(text, "\r\n")) {
    switch (c) {
    case '%':
      out += "%25";
      break;
    case '\r':
      out += "%0D";
      break;
    case '\n':
      out += "%0A";
      break;
    case ':':
      out += property ? "%3A" : ":";
      break;
    case ',':
      out += property ? "%2C" : ",";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace

std::string markdown_text(std::string_view raw) {
  const std::string text = replace_all(printable(raw, "\n"), "\n", " "); // no ESC/BEL into a terminal or log
  const std::size_t marker = block_marker(text);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
    case '\\':
    case '|':
    case '`':
    case '*':
    case '[':
    case ']':
    case '~':
    case '#':
      out += '\\';
      out += c;
      break;
    case '_':
      out += intraword(text, i) ? "_" : "\\_";
      break;
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '@':
      out += '@';
      out += k_zero_width_space;
      break;
    default:
      out += i == marker ? std::string{'\\', c} : std::string{c};
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  std::string content = printable(replace_all(std::string(text), "\n", " "));
  const bool all_spaces = content.find_first_not_of(' ') == std::string::npos;
  const bool pad = content.empty() || content.front() == '`' || content.back() == '`' ||
                   (!all_spaces && content.front() == ' ' && content.back() == ' ');
  const std::string fence(longest_backtick_run(content) + 1, '`');
  return pad ? fence + " " + content + " " + fence : fence + content + fence;
}

std::string markdown_code_block(std::string_view text, std::string_view info) {
  const std::string fence(std::max<std::size_t>(3, longest_backtick_run(text) + 1), '`');
  std::string body = printable(text, "\n\t"); // a command's stderr: no ESC/BEL into a terminal or log
  if (!body.empty() && body.back() != '\n') {
    body += '\n';
  }
  return fence + std::string(info) + "\n" + body + fence + "\n";
}

std::string html_text(std::string_view raw) {
  std::string out;
  for (char c : printable(raw)) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string workflow_data(std::string_view text) { return workflow_escape(text, false); }

std::string workflow_property(std::string_view text) { return workflow_escape(text, true); }

} // namespace refbench::util
