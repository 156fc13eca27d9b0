#include <refbench/util/json_fields.hpp>

#include <climits>
#include <fmt/format.h>

namespace refbench::util {

JsonFields::JsonFields(const nlohmann::json& object, std::string where, std::string path, std::string hint)
    : m_object(object), m_where(std::move(where)), m_path(std::move(path)), m_hint(std::move(hint)) {
  if (!object.is_object()) {
    fail(fmt::format("{} must be an object, got {}", m_path.empty() ? "the document" : m_path, json_excerpt(object)));
  }
}

void JsonFields::fail(const std::string& problem) const {
  throw UsageError(fmt::format("{}: {}", m_where, problem), m_hint);
}

std::string JsonFields::name(std::string_view key) const {
  return m_path.empty() ? std::string(key) : fmt::format("{}.{}", m_path, key);
}

std::string JsonFields::element_name(std::string_view key, std::size_t i) const {
  return fmt::format("{}[{}]", name(key), i);
}

std::string JsonFields::string(std::string_view key, std::optional<std::string> fallback) const {
  return take(string_member(m_object, key, std::move(fallback)));
}

bool JsonFields::boolean(std::string_view key, bool fallback) const {
  return take(bool_member(m_object, key, fallback));
}

std::int64_t JsonFields::integer(std::string_view key, std::int64_t low, std::int64_t high,
                                 std::optional<std::int64_t> fallback) const {
  return take(integer_member(m_object, key, low, high, fallback));
}

int JsonFields::count(std::string_view key, std::optional<int> fallback) const {
  return static_cast<int>(integer(key, 0, INT_MAX, fallback));
}

double JsonFields::number(std::string_view key, double low, double high, std::optional<double> fallback) const {
  return take(number_member(m_object, key, low, high, fallback));
}

double JsonFields::seconds(std::string_view key, std::optional<double> fallback) const {
  return number(key, 0.0, k_max_recorded_seconds, fallback);
}

std::optional<double> JsonFields::optional_number(std::string_view key, double low, double high) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return number(key, low, high);
}

bool JsonFields::has(std::string_view key) const {
  auto it = m_object.find(key);
  return it != m_object.end() && !it->is_null();
}

nlohmann::json JsonFields::part(std::string_view key, bool is_array, bool required) const {
  auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) {
    if (required) {
      fail(fmt::format("{} is missing", name(key)));
    }
    return is_array ? nlohmann::json::array() : nlohmann::json::object();
  }
  if (is_array ? !it->is_array() : !it->is_object()) {
    fail(fmt::format("{} must be an {}, got {}", name(key), is_array ? "array" : "object", json_excerpt(*it)));
  }
  return *it;
}

JsonFields JsonFields::inner(const nlohmann::json& object, std::string path) const {
  return JsonFields(object, m_where, std::move(path), m_hint);
}

} // namespace refbench::util
