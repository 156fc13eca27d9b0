#include <refbench/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <optional>

namespace refbench::util {
namespace {

bool continues_sequence(char byte) { return (static_cast<unsigned char>(byte) & 0xC0U) == 0x80U; }

// The control character that starts `text` at `at` (C0, DEL, or a C1 such
// as CSI as its two UTF-8 bytes) as visible text (`\n`, `\x1b`, `\u009b`),
// advancing `at`; nullopt for any other character.
std::optional<std::string> visible_control(std::string_view text, std::size_t& at) {
  const auto c = static_cast<unsigned char>(text[at]);
  if (c < 0x20 || c == 0x7f) {
    ++at;
    return c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : fmt::format("\\x{:02x}", c);
  }
  if (c == 0xc2 && at + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[at + 1]);
    if (next >= 0x80 && next <= 0x9f) {
      at += 2;
      return fmt::format("\\u{:04x}", next);
    }
  }
  return std::nullopt;
}

} // namespace

std::string_view without_bom(std::string_view text) {
  constexpr std::string_view k_bom = "\xEF\xBB\xBF";
  return text.starts_with(k_bom) ? text.substr(k_bom.size()) : text;
}

std::string_view trim(std::string_view text, std::string_view chars) {
  return trim_right(trim_left(text, chars), chars);
}

std::string_view trim_left(std::string_view text, std::string_view chars) {
  text.remove_prefix(std::min(text.find_first_not_of(chars), text.size()));
  return text;
}

std::string_view trim_right(std::string_view text, std::string_view chars) {
  const auto last = text.find_last_not_of(chars);
  return text.substr(0, last == std::string_view::npos ? 0 : last + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) {
      return pieces;
    }
    start = end + 1;
  }
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::size_t code_points(std::string_view text) {
  std::size_t count = 0;
  for (char byte : text) {
    count += continues_sequence(byte) ? 0 : 1;
  }
  return count;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) {
    return text;
  }
  std::size_t end = max_bytes;
  while (end > 0 && continues_sequence(text[end])) {
    --end;
  }
  return text.substr(0, end);
}

std::string_view first_code_points(std::string_view text, std::size_t count) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!continues_sequence(text[i]) && seen++ == count) {
      return text.substr(0, i);
    }
  }
  return text;
}

std::string_view last_code_points(std::string_view text, std::size_t count) {
  const std::size_t total = code_points(text);
  if (total <= count) {
    return text;
  }
  const std::size_t skip = first_code_points(text, total - count).size();
  return text.substr(skip);
}

std::string elide_middle(std::string_view text, std::size_t width) {
  if (code_points(text) <= width) {
    return std::string(text);
  }
  if (width <= 1) {
    return "…";
  }
  const std::size_t tail = (width - 1) / 2; // the end carries what tells levels apart
  const std::size_t head = width - 1 - tail;
  return std::string(first_code_points(text, head)) + "…" + std::string(last_code_points(text, tail));
}

std::string ascii_lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return text;
}

std::string printable(std::string_view text, std::string_view kept) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    if (kept.find(text[at]) == std::string_view::npos) {
      if (auto control = visible_control(text, at)) {
        out += *control;
        continue;
      }
    }
    out += text[at++];
  }
  return out;
}

std::string without_workflow_commands(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size() - 1) + 1;
    const std::string_view line = text.substr(start, end - start);
    if (trim_left(line, " \t").starts_with("::")) {
      out += '\\';
    }
    out += line;
    start = end;
  }
  return out;
}

} // namespace refbench::util
