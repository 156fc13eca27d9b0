#pragma once
// One table of an enum's words: the word of a value, the value of a word,
// and the words listed for messages and --help. Every enum that is written
// to a file or read from a flag keeps its words in one of these.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace refbench::util {

template <typename Enum, std::size_t N> class EnumNames {
public:
  using Entry = std::pair<Enum, std::string_view>;

  constexpr explicit EnumNames(const std::array<Entry, N>& entries) : m_entries(entries) {}

  // The word of `value`; the first entry's word for a value the table lacks.
  constexpr std::string_view name(Enum value) const {
    for (const auto& [v, word] : m_entries) {
      if (v == value) {
        return word;
      }
    }
    return m_entries[0].second;
  }

  // The value whose word is `word` exactly; none for any other text.
  constexpr std::optional<Enum> parse(std::string_view word) const {
    for (const auto& [v, w] : m_entries) {
      if (w == word) {
        return v;
      }
    }
    return std::nullopt;
  }

  // The words in table order, e.g. "a, b or c" (`last` "or"), or "a|b|c"
  // (`separator` "|", `last` "|") for a flag's help.
  std::string list(std::string_view separator = ", ", std::string_view last = " or ") const {
    std::string text;
    for (std::size_t i = 0; i < N; ++i) {
      text += i == 0 ? "" : i + 1 == N ? last : separator;
      text += m_entries[i].second;
    }
    return text;
  }

  constexpr const std::array<Entry, N>& entries() const { return m_entries; }

private:
  std::array<Entry, N> m_entries;
};

// The table of `entries`: `enum_names<Colour>({{Colour::red, "red"}, …})`.
template <typename Enum, std::size_t N>
constexpr EnumNames<Enum, N> enum_names(const std::pair<Enum, std::string_view> (&entries)[N]) {
  std::array<std::pair<Enum, std::string_view>, N> table{};
  for (std::size_t i = 0; i < N; ++i) {
    table[i] = entries[i];
  }
  return EnumNames<Enum, N>(table);
}

// Whether row i of `table` is the enum's value i by its `key` member: every
// value's row, in the enum's order (a table as long as the enum has one
// row per value). What each table of an extension point asserts.
template <typename Row, std::size_t N, typename Enum>
constexpr bool rows_in_enum_order(const std::array<Row, N>& table, Enum Row::*key) {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].*key != static_cast<Enum>(i)) {
      return false;
    }
  }
  return true;
}

// The words of `table`'s rows: each row's `key` and `word`, in its order.
template <typename Row, std::size_t N, typename Enum>
constexpr EnumNames<Enum, N> names_of_rows(const std::array<Row, N>& table, Enum Row::*key,
                                           std::string_view Row::*word) {
  std::array<std::pair<Enum, std::string_view>, N> words{};
  for (std::size_t i = 0; i < N; ++i) {
    words[i] = {table[i].*key, table[i].*word};
  }
  return EnumNames<Enum, N>(words);
}

} // namespace refbench::util
