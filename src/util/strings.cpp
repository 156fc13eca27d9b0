#include <refbench/util/strings.hpp>

namespace refbench::util {
namespace {

bool continues_sequence(char byte) { return (static_cast<unsigned char>(byte) & 0xC0U) == 0x80U; }

} // namespace

std::string_view without_bom(std::string_view text) {
  constexpr std::string_view k_bom = "\xEF\xBB\xBF";
  return text.starts_with(k_bom) ? text.substr(k_bom.size()) : text;
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

} // namespace refbench::util
