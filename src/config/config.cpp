#include "table_reader.hpp"

#include <refbench/config/cells.hpp>
#include <refbench/config/config.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>

namespace refbench::config {
namespace {

using detail::k_hint;
using detail::position;
using detail::read_cell;
using detail::TableReader;

const toml::table* sub_table(TableReader& parent, std::string_view key) {
  const auto* node = parent.get(key);
  if (node == nullptr) {
    return nullptr;
  }
  if (!node->is_table()) {
    parent.fail(*node, fmt::format("{} must be a table ([{}])", key, key));
  }
  return node->as_table();
}

BuildConfig read_build(const toml::table& table, const std::string& source) {
  TableReader r(table, source, "build");
  BuildConfig build;
  build.command = r.command("command");
  build.env = r.environment("env");
  build.timeout = r.duration("timeout");
  build.parallel = r.boolean("parallel").value_or(false);
  build.disk = r.size("disk");
  r.reject_unknown();
  return build;
}

RunConfig read_run(const toml::table& table, const std::string& source) {
  TableReader r(table, source, "run");
  RunConfig run;
  run.source = source;
  for (const auto& [key, node] : table) {
    run.where[std::string(key.str())] = position(source, node.source());
  }
  // one rule per setting, shared with the flags (settings.cpp)
  auto checked = [&](std::string_view key, auto value) {
    if (value) {
      if (auto problem = number_problem(key, static_cast<double>(*value))) {
        r.fail(*r.table().get(key), fmt::format("run.{} {}", key, *problem));
      }
    }
    return value;
  };
  auto as_int = [](std::optional<std::int64_t> v) {
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  };
  run.budget = r.duration("budget");
  if (run.budget) {
    checked("budget", std::optional(util::to_seconds(*run.budget)));
  }
  run.max_rounds = checked("max_rounds", as_int(r.integer("max_rounds", INT32_MIN, INT32_MAX)));
  run.min_rounds = as_int(r.integer("min_rounds", 1, k_max_rounds_limit));
  run.precision = checked("precision", r.number("precision"));
  run.threshold = checked("threshold", r.number("threshold"));
  run.alpha = checked("alpha", r.number("alpha"));
  run.warmup = checked("warmup", as_int(r.integer("warmup", INT32_MIN, INT32_MAX)));
  run.timeout = r.duration("timeout");
  if (auto seed = r.integer("seed", 0, INT64_MAX)) {
    run.seed = static_cast<std::uint64_t>(*seed);
  }
  run.control = r.boolean("control");
  run.control_cell = r.string("control_cell");
  run.isolate = r.string("isolate");
  if (auto counters = r.string("counters")) {
    run.counters = model::k_counter_source_names.parse(*counters);
    if (!run.counters) {
      r.fail(*r.table().get("counters"),
             fmt::format("run.counters must be {}, got \"{}\"", model::k_counter_source_names.list(), *counters));
    }
  }
  if (auto explain = r.string("explain")) {
    run.explain = model::k_explain_mode_names.parse(*explain);
    if (!run.explain) {
      r.fail(*r.table().get("explain"),
             fmt::format("run.explain must be {}, got \"{}\"", model::k_explain_mode_names.list(), *explain));
    }
  }
  run.scrub_env = r.strings("scrub_env");
  run.replicas = checked("replicas", as_int(r.integer("replicas", INT32_MIN, INT32_MAX)));
  run.replicate = r.strings("replicate");
  run.writable = r.strings("writable");
  if (auto sandbox = r.string("sandbox")) {
    run.sandbox = model::k_sandbox_mode_names.parse(*sandbox);
    if (!run.sandbox) {
      r.fail(*r.table().get("sandbox"),
             fmt::format("run.sandbox must be {}, got \"{}\"", model::k_sandbox_mode_names.list(), *sandbox));
    }
  }
  run.candidates = r.strings("candidates");
  for (const auto& ref : run.candidates) {
    if (ref.empty()) {
      r.fail(*r.table().get("candidates"), "run.candidates: a ref must not be empty");
    }
  }
  if (run.isolate && *run.isolate != "auto" && *run.isolate != "off" && !process::parse_cpu_list(*run.isolate)) {
    r.fail(*r.table().get("isolate"), "run.isolate must be \"auto\", \"off\" or a cpu list like \"2-3\"");
  }
  if (run.min_rounds && run.max_rounds && *run.min_rounds > *run.max_rounds) {
    r.fail(*r.table().get("min_rounds"), "run.min_rounds must not exceed run.max_rounds");
  }
  r.reject_unknown();
  return run;
}

std::vector<PayloadSize> read_payloads(const toml::table& table, const std::string& source) {
  TableReader r(table, source, "payloads");
  std::vector<PayloadSize> sizes;
  if (const auto* node = r.get("sizes")) {
    const auto* array = node->as_array();
    if (array == nullptr) {
      r.fail(*node, "payloads.sizes must be an array like [\"1KiB\", \"1MiB\"]");
    }
    for (const auto& item : *array) {
      std::string label =
          item.is_string() ? *item.value<std::string>() : fmt::format("{}", item.value_or<std::int64_t>(0));
      auto bytes = r.size_of(item, "payloads.sizes");
      if (bytes == 0) {
        r.fail(item, "payloads.sizes: a payload must be at least 1 byte");
      }
      sizes.push_back({label, bytes});
    }
  }
  r.reject_unknown();
  return sizes;
}

ArmSettings read_arm(const toml::table& table, const std::string& source, const std::string& name) {
  TableReader r(table, source, "arms." + name);
  ArmSettings arm;
  arm.env = r.environment("env");
  arm.args = r.strings("args");
  r.reject_unknown();
  return arm;
}

// [arms.baseline] and [arms.candidate]; any other arm name is refused.
void read_arms(TableReader& parent, const toml::table& table, const std::string& source, Config& config) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (name != "baseline" && name != "candidate") {
      parent.fail(node, fmt::format("[arms.{}]: the arms are baseline and candidate", util::printable(name)));
    }
    if (!node.is_table()) {
      parent.fail(node, fmt::format("arms.{} must be a table ([arms.{}])", name, name));
    }
    (name == "baseline" ? config.baseline_arm : config.candidate_arm) = read_arm(*node.as_table(), source, name);
  }
}

// Whether toml++ 3 would reach __builtin_unreachable asking if `cp` is
// whitespace: its table leaves out U+00A1…U+0499, U+2C5E…U+3057 (but
// U+3000) and U+FB26…U+FEFE.
bool unclassified(char32_t cp) {
  return (cp > 0xA0 && cp < 0x49A) || (cp >= 0x2C5E && cp < 0x3058 && cp != 0x3000) || (cp >= 0xFB26 && cp < 0xFEFF);
}

// The code point of the UTF-8 sequence at `text[i]` and its length (1 for
// ASCII or a byte that starts no sequence).
std::pair<char32_t, std::size_t> code_point_at(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (length == 1 || i + length > text.size()) {
    return {lead, 1};
  }
  char32_t cp = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  }
  return {cp, length};
}

// Where a quote opens a string, as toml++ 3 scans: after `=`, `,`, `{` or
// a line's start, after a `[` that stands where a value or a table header
// may start, and after the dot of a dotted key; never right after the
// characters of a bare value (`1.'x'`, `1['x'`), which it scans as part
// of that value.
class QuoteContext {
public:
  bool may_start() const { return may_start_; }
  // `c`: a character outside strings and comments that is not a blank.
  void see(char c);
  void string_ended() { may_start_ = false; }

private:
  std::vector<char> nest_; // the [ of arrays and { of inline tables in a value
  bool in_value_ = false;  // after `=`, until the value ends
  bool may_start_ = true;
};

void QuoteContext::see(char c) {
  const bool before = may_start_;
  may_start_ = false;
  switch (c) {
  case '\n':
    may_start_ = true;
    in_value_ = in_value_ && !nest_.empty();
    break;
  case '=':
    may_start_ = true;
    in_value_ = true;
    break;
  case ',':
    may_start_ = true;
    in_value_ = !nest_.empty() && nest_.back() == '[';
    break;
  case '{':
    may_start_ = true;
    if (in_value_) {
      nest_.push_back('{');
      in_value_ = false;
    }
    break;
  case '[':
    may_start_ = before;
    if (in_value_) {
      nest_.push_back('[');
    }
    break;
  case ']':
  case '}':
    if (!nest_.empty() && nest_.back() == (c == ']' ? '[' : '{')) {
      nest_.pop_back();
      in_value_ = true;
    }
    break;
  case '.':
    may_start_ = !in_value_;
    break;
  default:
    break;
  }
}

// `text` made safe for toml++ 3, which asks whether a character is
// whitespace outside strings and after a line-ending backslash of a
// multi-line string, and reaches __builtin_unreachable for the code points
// of `unclassified`. After such a backslash that code point is written as
// the escape \UXXXXXXXX (the same string); outside strings and comments,
// where TOML allows no such character, the file is refused (UsageError at
// source:line:column).
std::string safe_for_toml(std::string_view text, const std::string& source) {
  enum class In { code, comment, basic, literal, multi_basic, multi_literal };
  In in = In::code;
  QuoteContext quote;
  bool trimming = false; // after a line-ending backslash of a multi-line basic string
  std::size_t line = 1;
  std::size_t column = 1;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto [cp, length] = code_point_at(text, i);
    const bool triple = i + 2 < text.size() && text[i + 1] == c && text[i + 2] == c;
    std::size_t take = length;
    if (trimming && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      trimming = false;
      if (unclassified(cp)) {
        out += fmt::format("\\U{:08X}", static_cast<std::uint32_t>(cp));
        i += length;
        ++column;
        continue;
      }
    }
    if (in == In::code) {
      if (unclassified(cp)) {
        throw UsageError(fmt::format("{}:{}:{}: the character U+{:04X} may stand only in a string or a comment", source,
                                     line, column, static_cast<std::uint32_t>(cp)),
                         "fix the TOML syntax");
      }
      if (c == '#') {
        in = In::comment;
      } else if ((c == '"' || c == '\'') && quote.may_start()) {
        in = triple ? (c == '"' ? In::multi_basic : In::multi_literal) : (c == '"' ? In::basic : In::literal);
        take = triple ? 3 : 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        quote.see(c);
      }
    } else if (in == In::comment) {
      if (c == '\n') {
        in = In::code;
        quote.see(c);
      }
    } else if ((in == In::basic || in == In::multi_basic) && c == '\\' && i + 1 < text.size()) {
      const std::size_t next = text.find_first_not_of(" \t\r", i + 1);
      trimming = in == In::multi_basic && next != std::string_view::npos && text[next] == '\n';
      take = trimming ? 1 : 2; // an escape: its next byte ends nothing
    } else if ((in == In::basic && c == '"') || (in == In::literal && c == '\'') || (in <= In::literal && c == '\n')) {
      in = In::code;
      quote.string_ended();
      if (c == '\n') {
        quote.see(c);
      }
    } else if ((in == In::multi_basic && c == '"' && triple) || (in == In::multi_literal && c == '\'' && triple)) {
      in = In::code;
      quote.string_ended();
      take = 3;
    }
    for (std::size_t k = 0; k < take && i < text.size(); ++k, ++i) {
      out += text[i];
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        ++column;
      }
    }
  }
  return out;
}

} // namespace

Config parse_config(const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(safe_for_toml(util::without_bom(text), source), source);
  } catch (const toml::parse_error& error) {
    throw UsageError(fmt::format("{}: {}", position(source, error.source()), error.description()),
                     "fix the TOML syntax");
  }
  detail::reject_nul(root, source);
  Config config;
  config.path = source;
  TableReader r(root, source, "");
  if (const auto* build = sub_table(r, "build")) {
    config.build = read_build(*build, source);
  }
  if (const auto* run = sub_table(r, "run")) {
    config.run = read_run(*run, source);
  }
  if (const auto* history = sub_table(r, "history")) {
    TableReader h(*history, source, "history");
    config.history_dir = h.string("dir");
    if (config.history_dir && config.history_dir->empty()) {
      h.fail(*h.table().get("dir"), "history.dir must not be empty");
    }
    if (const auto window = h.integer("window", 0, 1000000)) {
      config.history_window = static_cast<std::size_t>(*window);
    }
    h.reject_unknown();
  }
  if (const auto* arms = sub_table(r, "arms")) {
    read_arms(r, *arms, source, config);
  }
  if (const auto* payloads = sub_table(r, "payloads")) {
    config.payload_sizes = read_payloads(*payloads, source);
  }
  if (const auto* cells = r.get("cell")) {
    const auto* array = cells->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      r.fail(*cells, "cells are written as [[cell]] tables");
    }
    for (const auto& cell : *array) {
      for (auto& expanded : read_cell(*cell.as_table(), source)) {
        config.cells.push_back(std::move(expanded));
      }
    }
  }
  r.reject_unknown();
  if (config.cells.empty()) {
    throw UsageError(source + ": no [[cell]] — refbench needs at least one cell to measure", k_hint);
  }
  check_cell_names(config.cells, config.payload_sizes);
  return config;
}

Config load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UsageError("cannot read the config file " + path,
                     "pass --config FILE, or create refbench.toml in the repository");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

} // namespace refbench::config
