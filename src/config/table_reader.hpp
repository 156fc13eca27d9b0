#pragma once
// The reading side of refbench.toml shared by config.cpp (the file, [build],
// [run], [payloads]) and cell_config.cpp ([[cell]] with its metrics, CPU
// groups, windows and requirements): one table at a time, errors naming
// file:line:column, unknown keys refused. Private to src/config/.

#include <refbench/config/config.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>

#include <cmath>
#include <fmt/format.h>
#include <set>
#include <toml++/toml.h>

namespace refbench::config::detail {

inline constexpr const char* k_hint = "see the refbench.toml reference, docs/manual/config.md";

inline std::string position(const std::string& source, const toml::source_region& region) {
  return fmt::format("{}:{}:{}", source, region.begin.line, region.begin.column);
}

// Reads one table, remembering which keys were used so the rest can be
// reported as unknown with their positions.
class TableReader {
public:
  TableReader(const toml::table& table, std::string source, std::string name)
      : m_table(table), m_source(std::move(source)), m_name(std::move(name)) {}

  const toml::node* get(std::string_view key) {
    m_used.insert(std::string(key));
    return m_table.get(key);
  }

  [[noreturn]] void fail(const toml::node& node, const std::string& problem) const {
    throw UsageError(fmt::format("{}: {}", position(m_source, node.source()), problem), k_hint);
  }

  std::string key_name(std::string_view key) const {
    return m_name.empty() ? std::string(key) : m_name + "." + std::string(key);
  }

  std::optional<std::string> string(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is_string()) {
      fail(*node, fmt::format("{} must be a string", key_name(key)));
    }
    return node->value<std::string>();
  }

  std::optional<bool> boolean(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is_boolean()) {
      fail(*node, fmt::format("{} must be true or false", key_name(key)));
    }
    return node->value<bool>();
  }

  std::optional<std::int64_t> integer(std::string_view key, std::int64_t low, std::int64_t high) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is_integer()) {
      fail(*node, fmt::format("{} must be an integer", key_name(key)));
    }
    auto value = *node->value<std::int64_t>();
    if (value < low || value > high) {
      fail(*node, fmt::format("{} must be between {} and {}, got {}", key_name(key), low, high, value));
    }
    return value;
  }

  // A finite number (integer or float); its range is the setting's rule
  // (settings.hpp). An integer must be one a double holds exactly (|n| ≤
  // 2^53), never rounded or read as nothing.
  std::optional<double> number(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    return number_of(*node, key_name(key));
  }

  // The value of the number `node` named `what`, as number() reads it.
  double number_of(const toml::node& node, const std::string& what) const {
    constexpr std::int64_t k_exact = std::int64_t{1} << 53;
    if (const auto* integer = node.as_integer()) {
      const std::int64_t value = integer->get();
      if (value > k_exact || value < -k_exact) {
        fail(node, fmt::format("{} must be a number of at most 2^53 ({}) in size, got {}", what, k_exact, value));
      }
      return static_cast<double>(value);
    }
    if (const auto* floating = node.as_floating_point()) {
      if (!std::isfinite(floating->get())) {
        fail(node, fmt::format("{} must be a finite number, got {}", what, floating->get()));
      }
      return floating->get();
    }
    fail(node, fmt::format("{} must be a number", what));
  }

  std::optional<std::chrono::nanoseconds> duration(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    std::string text;
    if (node->is_integer() || node->is_floating_point()) {
      text = fmt::format("{}", number_of(*node, key_name(key)));
    } else if (node->is_string()) {
      text = *node->value<std::string>();
    } else {
      fail(*node, fmt::format("{} must be a duration like \"90s\", \"25m\", \"1h\"", key_name(key)));
    }
    auto parsed = util::parse_duration(text);
    if (!parsed || parsed->count() <= 0) {
      fail(*node, fmt::format("{}: {}", key_name(key), parsed ? "must be greater than 0" : parsed.error()));
    }
    return *parsed;
  }

  std::optional<std::uint64_t> size(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    return size_of(*node, key_name(key));
  }

  std::uint64_t size_of(const toml::node& node, const std::string& what) const {
    std::string text;
    if (node.is_integer()) {
      text = std::to_string(*node.value<std::int64_t>());
    } else if (node.is_string()) {
      text = *node.value<std::string>();
    } else {
      fail(node, fmt::format("{} must be a size like \"1KiB\", \"32MiB\"", what));
    }
    auto parsed = util::parse_size(text);
    if (!parsed) {
      fail(node, fmt::format("{}: {}", what, parsed.error()));
    }
    return *parsed;
  }

  std::vector<std::string> strings(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return {};
    }
    const auto* array = node->as_array();
    if (array == nullptr) {
      fail(*node, fmt::format("{} must be an array of strings", key_name(key)));
    }
    std::vector<std::string> values;
    for (const auto& item : *array) {
      if (!item.is_string()) {
        fail(item, fmt::format("{} must hold only strings", key_name(key)));
      }
      values.push_back(*item.value<std::string>());
    }
    return values;
  }

  std::optional<Command> command(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    Command command;
    if (node->is_string()) {
      command.shell = *node->value<std::string>();
      if (command.shell.empty()) {
        fail(*node, fmt::format("{} must not be empty", key_name(key)));
      }
      return command;
    }
    if (!node->is_array() || node->as_array()->empty()) {
      fail(*node, fmt::format("{} must be a string (run with /bin/sh -c) or a non-empty array (argv)", key_name(key)));
    }
    command.argv = strings(key);
    if (command.argv.empty()) {
      fail(*node, fmt::format("{} must be a string (run with /bin/sh -c) or a non-empty array (argv)", key_name(key)));
    }
    return command;
  }

  // "NAME=value" entries of an inline table of strings.
  std::vector<std::string> environment(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return {};
    }
    const auto* table = node->as_table();
    if (table == nullptr) {
      fail(*node, fmt::format("{} must be a table like {{ NAME = \"value\" }}", key_name(key)));
    }
    std::vector<std::string> env;
    for (const auto& [name, value] : *table) {
      if (!value.is_string()) {
        fail(value, fmt::format("{}.{} must be a string", key_name(key), name.str()));
      }
      env.push_back(std::string(name.str()) + "=" + *value.value<std::string>());
    }
    return env;
  }

  // Fails on the first key that was never asked for.
  void reject_unknown() const {
    for (const auto& [key, node] : m_table) {
      if (!m_used.contains(std::string(key.str()))) {
        throw UsageError(fmt::format("{}: unknown key '{}'{}", position(m_source, key.source()), key.str(),
                                     m_name.empty() ? "" : " in [" + m_name + "]"),
                         "check the spelling; the keys are listed in docs/manual/config.md");
      }
    }
  }

  const toml::table& table() const { return m_table; }

private:
  const toml::table& m_table;
  std::string m_source;
  std::string m_name;
  std::set<std::string> m_used;
};

// Fails at the first key or string under `node` that holds a NUL byte (a
// `\u0000` escape): commands and environment entries would end there.
inline void reject_nul(const toml::node& node, const std::string& source) {
  auto fail = [&](const toml::source_region& where, const std::string& what) {
    throw UsageError(fmt::format("{}: {} holds a NUL character (\\u0000)", position(source, where), what), k_hint);
  };
  if (const auto* table = node.as_table()) {
    for (const auto& [key, value] : *table) {
      if (key.str().find('\0') != std::string_view::npos) {
        fail(key.source(), "a key");
      }
      reject_nul(value, source);
    }
  } else if (const auto* array = node.as_array()) {
    for (const auto& item : *array) {
      reject_nul(item, source);
    }
  } else if (const auto* text = node.as_string(); text != nullptr && text->get().find('\0') != std::string::npos) {
    fail(node.source(), "a string");
  }
}

// One [[cell]] table of `source`, validated (cell_config.cpp).
// One [[cell]] table: one CellConfig, or one per combination of its params.
std::vector<CellConfig> read_cell(const toml::table& table, const std::string& source);

} // namespace refbench::config::detail
