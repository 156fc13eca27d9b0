#include <refbench/config/config.hpp>
#include <refbench/runner/reported.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

namespace refbench::config {
namespace {

constexpr const char* k_hint = "see the refbench.toml reference in the README";

std::string position(const std::string& source, const toml::source_region& region) {
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

  std::optional<double> number(std::string_view key, double low_exclusive, double high_exclusive) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is_number()) {
      fail(*node, fmt::format("{} must be a number", key_name(key)));
    }
    double value = *node->value<double>();
    if (!std::isfinite(value) || value <= low_exclusive || value >= high_exclusive) {
      fail(*node, fmt::format("{} must be above {} and below {}, got {}", key_name(key), low_exclusive, high_exclusive,
                              value));
    }
    return value;
  }

  std::optional<std::chrono::nanoseconds> duration(std::string_view key) {
    const auto* node = get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    std::string text;
    if (node->is_integer() || node->is_floating_point()) {
      text = fmt::format("{}", *node->value<double>());
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
    command.argv = strings(key);
    if (!node->is_array() || command.argv.empty()) {
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
                         "check the spelling; the keys are listed in the README's refbench.toml reference");
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
  run.budget = r.duration("budget");
  auto as_int = [](std::optional<std::int64_t> v) {
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  };
  run.max_rounds = as_int(r.integer("max_rounds", 1, 1000000));
  run.min_rounds = as_int(r.integer("min_rounds", 1, 1000000));
  run.precision = r.number("precision", 0.0, 10.0);
  run.threshold = r.number("threshold", 1.0, 1e9);
  run.alpha = r.number("alpha", 0.0, 1.0);
  run.warmup = as_int(r.integer("warmup", 0, 1000000));
  run.timeout = r.duration("timeout");
  if (auto seed = r.integer("seed", 0, INT64_MAX)) {
    run.seed = static_cast<std::uint64_t>(*seed);
  }
  run.control = r.boolean("control");
  run.control_cell = r.string("control_cell");
  run.isolate = r.string("isolate");
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

// `cpus = { NAME = COUNT | "rest", ... }` of a cell, groups in the order written.
std::vector<process::CpuGroup> read_cpu_groups(TableReader& r) {
  const auto* node = r.get("cpus");
  if (node == nullptr) {
    return {};
  }
  const auto* table = node->as_table();
  if (table == nullptr || table->empty()) {
    r.fail(*node, "cell.cpus must be a table like { service = 3, client = \"rest\" }");
  }
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [name, value] : *table) {
    entries.emplace_back(&name, &value);
  }
  auto before = [](const toml::source_position& a, const toml::source_position& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  };
  std::sort(entries.begin(), entries.end(),
            [&](const auto& a, const auto& b) { return before(a.first->source().begin, b.first->source().begin); });
  std::vector<process::CpuGroup> groups;
  bool rest = false;
  for (const auto& [name, value] : entries) {
    const std::string group(name->str());
    if (group.empty() || group.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                             std::string::npos) {
      r.fail(*value, fmt::format("cell.cpus: the group name '{}' may use only letters, digits, '_' and '-'", group));
    }
    if (value->is_string() && value->value<std::string>() == "rest") {
      if (rest) {
        r.fail(*value, fmt::format("cell.cpus.{}: only one group can be \"rest\"", group));
      }
      rest = true;
      groups.push_back({group, std::nullopt});
    } else if (value->is_integer() && *value->value<std::int64_t>() >= 1 && *value->value<std::int64_t>() <= 65536) {
      groups.push_back({group, static_cast<unsigned>(*value->value<std::int64_t>())});
    } else {
      r.fail(*value, fmt::format("cell.cpus.{} must be a number of CPUs (1 or more) or \"rest\"", group));
    }
  }
  return groups;
}

// Fails on a {cpus.NAME} in `text` that names no group of `groups`.
void check_cpu_placeholders(TableReader& r, const toml::node& node, const std::string& text,
                            const std::vector<process::CpuGroup>& groups) {
  constexpr std::string_view k_prefix = "{cpus.";
  for (auto at = text.find(k_prefix); at != std::string::npos; at = text.find(k_prefix, at + 1)) {
    auto end = text.find('}', at);
    std::string name = text.substr(at + k_prefix.size(), end == std::string::npos ? end : end - at - k_prefix.size());
    if (std::none_of(groups.begin(), groups.end(), [&](const auto& g) { return g.name == name; })) {
      r.fail(node, fmt::format("{{cpus.{}}} names no group of the cell's cpus{}", name,
                               groups.empty() ? " (add cpus = { " + name + " = 1, ... } to the cell)" : ""));
    }
  }
}

const std::set<std::string> k_metrics{"wall", "cpu", "user", "sys", "rss"};

// One [[cell.metric]] table (SPEC §3.8).
runner::CustomMetric read_custom_metric(const toml::table& table, const std::string& source) {
  TableReader r(table, source, "cell.metric");
  runner::CustomMetric metric;
  auto name = r.string("name");
  if (!name || name->empty() || name->find_first_of(",{} \t") != std::string::npos) {
    r.fail(name ? *r.table().get("name") : static_cast<const toml::node&>(table),
           "a [[cell.metric]] needs a name without spaces, commas or braces, like \"throughput\"");
  }
  if (k_metrics.contains(*name)) {
    r.fail(*r.table().get("name"),
           fmt::format("cell.metric.name '{}' is a built-in metric; name yours otherwise", *name));
  }
  metric.name = *name;
  auto pick = [&](std::string_view key, std::string fallback, std::initializer_list<std::string_view> allowed) {
    auto value = r.string(key).value_or(fallback);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (auto a : allowed) {
        list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
      }
      r.fail(*r.table().get(key), fmt::format("cell.metric.{} must be one of {}, got \"{}\"", key, list, value));
    }
    return value;
  };
  metric.from = pick("from", "stdout", {"stdout", "file"});
  metric.format = pick("format", "json", {"json", "bmf"});
  metric.key = r.string("key").value_or(metric.name);
  if (metric.format == "bmf" && metric.key.find('/') == std::string::npos) {
    r.fail(r.table().get("key") ? *r.table().get("key") : static_cast<const toml::node&>(table),
           fmt::format("cell.metric.key for format = \"bmf\" is \"<benchmark>/<measure>\", got \"{}\"", metric.key));
  }
  metric.higher_is_better = pick("better", "lower", {"lower", "higher"}) == "higher";
  metric.unit = r.string("unit").value_or("");
  r.reject_unknown();
  return metric;
}

// The [[cell.metric]] tables of `r`'s cell and its window and requirement
// keys (min_duration, window, require) into `cell`.
void read_reported_keys(TableReader& r, CellConfig& cell, const std::string& source) {
  if (const auto* node = r.get("metric")) {
    const auto* array = node->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      r.fail(*node, "custom metrics are written as [[cell.metric]] tables");
    }
    for (const auto& item : *array) {
      auto metric = read_custom_metric(*item.as_table(), source);
      if (std::any_of(cell.custom.begin(), cell.custom.end(), [&](const auto& m) { return m.name == metric.name; })) {
        r.fail(item, fmt::format("cell.metric '{}' is declared twice", metric.name));
      }
      if (!cell.custom.empty() &&
          (metric.from != cell.custom.front().from || metric.format != cell.custom.front().format)) {
        r.fail(item, fmt::format("cell.metric '{}': a cell's metrics come from one report, so from and format must "
                                 "match those of '{}'",
                                 metric.name, cell.custom.front().name));
      }
      cell.custom.push_back(std::move(metric));
    }
  }
  if (auto min_duration = r.duration("min_duration")) {
    cell.min_duration_seconds = std::chrono::duration<double>(*min_duration).count();
  }
  cell.window_key = r.string("window").value_or("");
  if (!cell.window_key.empty() && cell.min_duration_seconds == 0) {
    r.fail(*r.table().get("window"), "cell.window names the reported window length; it needs a min_duration");
  }
  for (const auto& text : r.strings("require")) {
    auto requirement = runner::parse_requirement(text);
    if (!requirement) {
      r.fail(*r.table().get("require"), "cell.require: " + requirement.error());
    }
    cell.require.push_back(*requirement);
  }
}

CellConfig read_cell(const toml::table& table, const std::string& source) {
  TableReader r(table, source, "cell");
  CellConfig cell;
  cell.where = position(source, table.source());
  auto name = r.string("name");
  if (!name || name->empty()) {
    throw UsageError(cell.where + ": a [[cell]] needs a non-empty name", k_hint);
  }
  cell.name = *name;
  auto command = r.command("command");
  if (!command) {
    throw UsageError(cell.where + ": cell '" + cell.name + "' needs a command", k_hint);
  }
  cell.command = *command;
  cell.env = r.environment("env");
  read_reported_keys(r, cell, source);
  const auto& words = cell.command.is_shell() ? std::vector<std::string>{cell.command.shell} : cell.command.argv;
  if (!cell.custom.empty() && cell.custom.front().from == "file" &&
      std::none_of(words.begin(), words.end(), [](const auto& w) { return w.contains("{output}"); })) {
    throw UsageError(fmt::format("{}: cell '{}' reads its metrics from {{output}} (from = \"file\"), but its command "
                                 "never mentions {{output}}",
                                 cell.where, cell.name),
                     "pass {output} to the command as the path to write its report to");
  }
  auto known = [&](const std::string& metric) {
    return k_metrics.contains(metric) ||
           std::any_of(cell.custom.begin(), cell.custom.end(), [&](const auto& m) { return m.name == metric; });
  };
  for (const char* key : {"metrics", "gate"}) {
    auto names = r.strings(key);
    for (const auto& metric : names) {
      if (!known(metric)) {
        r.fail(*r.table().get(key), fmt::format("cell.{}: unknown metric '{}' (use wall, cpu, user, sys, rss or a "
                                                "[[cell.metric]] of this cell)",
                                                key, metric));
      }
    }
    (std::string_view(key) == "metrics" ? cell.metrics : cell.gate) = names;
  }
  if (cell.metrics.empty()) {
    cell.metrics = {"wall", "cpu", "rss"};
    for (const auto& metric : cell.custom) {
      cell.metrics.push_back(metric.name);
    }
  }
  if (cell.gate.empty()) {
    cell.gate = {"wall"};
  }
  for (const auto& gated : cell.gate) {
    if (std::find(cell.metrics.begin(), cell.metrics.end(), gated) == cell.metrics.end()) {
      r.fail(*r.table().get("gate"), fmt::format("cell.gate: '{}' is not among the cell's metrics", gated));
    }
  }
  if (const auto* node = r.get("threshold")) {
    const auto* thresholds = node->as_table();
    if (thresholds == nullptr) {
      r.fail(*node, "cell.threshold must be a table like { wall = 1.15, rss = 1.10 }");
    }
    for (const auto& [metric, value] : *thresholds) {
      double ratio = value.value_or(0.0);
      if (!known(std::string(metric.str())) || !value.is_number() || !(ratio > 1.0) || !std::isfinite(ratio)) {
        r.fail(value, fmt::format("cell.threshold.{} must be a ratio above 1 for a known metric", metric.str()));
      }
      cell.threshold[std::string(metric.str())] = ratio;
    }
  }
  cell.check_output = r.boolean("check_output").value_or(false);
  cell.cpus = read_cpu_groups(r);
  if (const auto* node = r.get("command"); node != nullptr) {
    for (const auto& word :
         cell.command.is_shell() ? std::vector<std::string>{cell.command.shell} : cell.command.argv) {
      check_cpu_placeholders(r, *node, word, cell.cpus);
    }
  }
  if (const auto* node = r.get("env"); node != nullptr) {
    for (const auto& [variable, value] : *node->as_table()) {
      check_cpu_placeholders(r, value, *value.value<std::string>(), cell.cpus);
    }
  }
  r.reject_unknown();
  return cell;
}

} // namespace

Config parse_config(const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    throw UsageError(fmt::format("{}: {}", position(source, error.source()), error.description()),
                     "fix the TOML syntax");
  }
  Config config;
  config.path = source;
  TableReader r(root, source, "");
  if (const auto* build = sub_table(r, "build")) {
    config.build = read_build(*build, source);
  }
  if (const auto* run = sub_table(r, "run")) {
    config.run = read_run(*run, source);
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
      config.cells.push_back(read_cell(*cell.as_table(), source));
    }
  }
  r.reject_unknown();
  if (config.cells.empty()) {
    throw UsageError(source + ": no [[cell]] — refbench needs at least one cell to measure", k_hint);
  }
  std::set<std::string> names;
  for (const auto& cell : config.cells) {
    if (!names.insert(cell.name).second) {
      throw UsageError(fmt::format("{}: a cell named '{}' appears twice", cell.where, cell.name),
                       "give each cell its own name");
    }
  }
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
