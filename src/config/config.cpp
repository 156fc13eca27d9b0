#include "table_reader.hpp"

#include <refbench/config/cells.hpp>
#include <refbench/config/config.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

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
  run.scrub_env = r.strings("scrub_env");
  run.replicas = checked("replicas", as_int(r.integer("replicas", INT32_MIN, INT32_MAX)));
  run.replicate = r.strings("replicate");
  run.writable = r.strings("writable");
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

} // namespace

Config parse_config(const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(util::without_bom(text), source);
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
