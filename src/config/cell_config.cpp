// [[cell]] tables of refbench.toml: command, environment, metrics and gate,
// custom metrics (docs/manual/config.md#custom-metrics-windows-and-requirements), windows and requirements, CPU groups
// (docs/manual/measurement.md#cpu-isolation).
#include "table_reader.hpp"

#include <refbench/model/command_output.hpp>
#include <refbench/suites/suite.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>

namespace refbench::config::detail {
namespace {

// The entries of an inline table in the order they are written (toml++
// keeps them sorted by key).
std::vector<std::pair<const toml::key*, const toml::node*>> written_order(const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [name, value] : table) {
    entries.emplace_back(&name, &value);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto &x = a.first->source().begin, &y = b.first->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return entries;
}

std::vector<process::CpuGroup> read_cpu_groups(TableReader& r) {
  const auto* node = r.get("cpus");
  if (node == nullptr) {
    return {};
  }
  const auto* table = node->as_table();
  if (table == nullptr || table->empty()) {
    r.fail(*node, "cell.cpus must be a table like { service = 3, client = \"rest\" }");
  }
  const auto entries = written_order(*table);
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

// A metric's kind, its count gate, its censoring limits and its SLO
// (docs/manual/config.md#metric-kinds-ceilings-and-slos, ceilings and SLOs) into `metric`.
void read_metric_kind(TableReader& r, model::CustomMetric& metric, const std::string& kind) {
  metric.kind = *model::parse_metric_kind(kind);
  const bool count = metric.kind == model::MetricKind::count;
  if (auto max_increase = r.number("max_increase")) {
    if (!count) {
      r.fail(*r.get("max_increase"), fmt::format("cell.metric.max_increase gates a count metric; '{}' is a ratio "
                                                 "metric (add kind = \"count\", or set its ratio in cell.threshold)",
                                                 metric.name));
    }
    if (*max_increase < 0) {
      r.fail(*r.get("max_increase"), "cell.metric.max_increase must be 0 or more: the increase that is tolerated");
    }
    metric.max_increase = *max_increase;
  }
  metric.censor_above = r.number("censor_above");
  metric.censor_below = r.number("censor_below");
  for (const char* key : {"censor_above", "censor_below"}) {
    if (count && r.get(key) != nullptr) {
      r.fail(*r.get(key), fmt::format("cell.metric.{}: a count metric is compared by its difference, where a "
                                      "limit hides nothing; censor a ratio metric, or gate the count with max_increase",
                                      key));
    }
  }
  if (metric.censor_above && metric.censor_below && !(*metric.censor_below < *metric.censor_above)) {
    r.fail(*r.get("censor_below"), "cell.metric.censor_below must be below censor_above");
  }
  if (metric.kind == model::MetricKind::ratio && metric.censor_below && *metric.censor_below < 0) {
    r.fail(*r.get("censor_below"),
           "cell.metric.censor_below must be 0 or more: a ratio metric's readings are positive");
  }
  if (auto slo = r.string("slo")) {
    auto parsed = model::parse_slo(*slo);
    if (!parsed) {
      r.fail(*r.get("slo"), "cell.metric.slo: " + parsed.error());
    }
    metric.slo = *parsed;
  }
}

// One [[cell.metric]] table (docs/manual/config.md#custom-metrics-windows-and-requirements).
model::CustomMetric read_custom_metric(const toml::table& table, const std::string& source) {
  TableReader r(table, source, "cell.metric");
  model::CustomMetric metric;
  auto name = r.string("name");
  if (!name || name->empty() || name->find_first_of(",{} \t") != std::string::npos) {
    r.fail(name ? *r.table().get("name") : static_cast<const toml::node&>(table),
           "a [[cell.metric]] needs a name without spaces, commas or braces, like \"throughput\"");
  }
  if (model::parse_metric(*name)) {
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
  metric.from = *model::parse_report_source(pick("from", "stdout", {"stdout", "file"}));
  metric.format = *model::parse_report_format(pick("format", "json", {"json", "bmf"}));
  metric.key = r.string("key").value_or(metric.name);
  if (metric.format == model::ReportFormat::bmf && metric.key.find('/') == std::string::npos) {
    r.fail(r.table().get("key") ? *r.table().get("key") : static_cast<const toml::node&>(table),
           fmt::format("cell.metric.key for format = \"bmf\" is \"<benchmark>/<measure>\", got \"{}\"", metric.key));
  }
  metric.higher_is_better = pick("better", "lower", {"lower", "higher"}) == "higher";
  metric.unit = r.string("unit").value_or("");
  read_metric_kind(r, metric, pick("kind", "ratio", {"ratio", "count"}));
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
    auto requirement = model::parse_requirement(text);
    if (!requirement) {
      r.fail(*r.table().get("require"), "cell.require: " + requirement.error());
    }
    cell.require.push_back(*requirement);
  }
  if (!cell.custom.empty() && cell.custom.front().format == model::ReportFormat::bmf) {
    // a BMF report holds only <benchmark>/<measure> values
    auto flat_key = [&](const char* key) {
      r.fail(*r.get(key), fmt::format("cell.{}: this cell's report is Bencher Metric Format, so its keys are "
                                      "\"<benchmark>/<measure>\" like \"load/errors\"",
                                      key));
    };
    if (!cell.window_key.empty() && !cell.window_key.contains('/')) {
      flat_key("window");
    }
    if (std::any_of(cell.require.begin(), cell.require.end(), [](const auto& q) { return !q.key.contains('/'); })) {
      flat_key("require");
    }
  }
}

// cell.threshold: a ratio above 1 per ratio metric `known` to the cell.
template <typename Known> void read_thresholds(TableReader& r, CellConfig& cell, const Known& known) {
  if (const auto* node = r.get("threshold")) {
    const auto* thresholds = node->as_table();
    if (thresholds == nullptr) {
      r.fail(*node, "cell.threshold must be a table like { wall = 1.2, rss = 1.1 }");
    }
    for (const auto& [metric, value] : *thresholds) {
      const std::string name = "cell.threshold." + std::string(metric.str());
      const double ratio = value.is_number() ? r.number_of(value, name) : 0.0;
      if (!known(std::string(metric.str())) || !(ratio > 1.0) || !(ratio < 1e9)) {
        r.fail(value, fmt::format("cell.threshold.{} must be a ratio above 1 for a known metric", metric.str()));
      }
      if (std::any_of(cell.custom.begin(), cell.custom.end(),
                      [&](const auto& m) { return m.name == metric.str() && m.kind == model::MetricKind::count; })) {
        r.fail(value, fmt::format("cell.threshold.{}: '{}' is a count metric, gated by its max_increase in "
                                  "[[cell.metric]], not by a ratio",
                                  metric.str(), metric.str()));
      }
      cell.threshold[std::string(metric.str())] = ratio;
    }
  }
}

// The words {NAME} must not stand for: the placeholders refbench fills itself.
const std::set<std::string> k_reserved_params{"arm", "payload", "size", "output", "round", "cpus"};
constexpr std::size_t k_max_sweep_cells = 1000;

using Axis = std::pair<std::string, std::vector<std::string>>;

// One axis value: an integer, or a short string without braces or control characters.
std::string read_param_value(TableReader& r, const toml::node& value, const std::string& axis) {
  if (value.is_integer()) {
    return std::to_string(*value.value<std::int64_t>());
  }
  const auto text = value.value<std::string>();
  if (!value.is_string() || text->empty() || text->size() > 64 || std::any_of(text->begin(), text->end(), [](char c) {
        return c == '{' || c == '}' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      })) {
    r.fail(value, fmt::format("cell.params.{}: a value is an integer or a string of 1–64 characters without braces "
                              "or control characters",
                              axis));
  }
  return *text;
}

// params = { users = [8, 32, 128], mode = ["a", "b"] }: the axes in the order written.
std::vector<Axis> read_params(TableReader& r) {
  const auto* node = r.get("params");
  if (node == nullptr) {
    return {};
  }
  const auto* table = node->as_table();
  if (table == nullptr || table->empty()) {
    r.fail(*node, "cell.params must be a table of arrays like { users = [8, 32, 128] }");
  }
  const auto entries = written_order(*table);
  std::vector<Axis> axes;
  for (const auto& [key, value] : entries) {
    const std::string name(key->str());
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                            std::string::npos) {
      r.fail(*value, fmt::format("cell.params: the parameter name '{}' may use only letters, digits and '_'", name));
    }
    if (k_reserved_params.contains(name)) {
      r.fail(*value, fmt::format("cell.params.{}: {{{}}} is one of refbench's own placeholders; name the parameter "
                                 "otherwise",
                                 name, name));
    }
    const auto* array = value->as_array();
    if (array == nullptr || array->empty()) {
      r.fail(*value, fmt::format("cell.params.{} must be a non-empty array of integers or strings", name));
    }
    Axis axis{name, {}};
    for (const auto& item : *array) {
      axis.second.push_back(read_param_value(r, item, name));
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

// `cell` once per combination of `axes` (the last axis varying fastest), its
// name's {NAME}s filled in; `cell` itself when there are no axes.
std::vector<CellConfig> expand_params(TableReader& r, const CellConfig& cell, const std::vector<Axis>& axes) {
  if (axes.empty()) {
    return {cell};
  }
  std::size_t total = 1;
  for (const auto& [name, values] : axes) {
    if (!cell.name.contains("{" + name + "}")) {
      r.fail(*r.get("params"), fmt::format("cell '{}' has the parameter '{}', so its name must contain {{{}}}: every "
                                           "combination needs a name of its own",
                                           cell.name, name, name));
    }
    total *= values.size();
    if (total > k_max_sweep_cells) {
      r.fail(*r.get("params"),
             fmt::format("cell.params of '{}' make more than {} cells", cell.name, k_max_sweep_cells));
    }
  }
  std::vector<CellConfig> cells;
  for (std::size_t index = 0; index < total; ++index) {
    CellConfig expanded = cell;
    expanded.sweep = cell.name;
    std::size_t rest = index;
    std::vector<std::pair<std::string, std::string>> params(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      params[a] = {axes[a].first, axes[a].second[rest % axes[a].second.size()]};
      rest /= axes[a].second.size();
    }
    for (const auto& [name, value] : params) {
      expanded.name = util::replace_all(std::move(expanded.name), "{" + name + "}", value);
    }
    expanded.params = std::move(params);
    cells.push_back(std::move(expanded));
  }
  return cells;
}

// suite = "google-benchmark" and its from (docs/manual/suites.md) into `cell`;
// what a suite cannot have besides.
void read_suite(TableReader& r, CellConfig& cell, const std::vector<std::string>& words) {
  const auto harness = r.string("suite");
  const auto from = r.string("from");
  if (!harness) {
    if (from) {
      r.fail(*r.get("from"), "cell.from says where a suite's harness writes its results; this cell has no suite "
                             "(custom metrics take from in [[cell.metric]])");
    }
    return;
  }
  auto parsed = suites::parse_harness(*harness);
  if (!parsed) {
    r.fail(*r.get("suite"), fmt::format("cell.suite must be one of {}, got \"{}\"",
                                        suites::k_harness_names.list(", ", " or "), *harness));
  }
  model::SuiteSpec suite{*parsed, model::ReportSource::stdout_line};
  if (from) {
    auto source = model::parse_report_source(*from);
    if (!source) {
      r.fail(*r.get("from"), fmt::format("cell.from must be \"stdout\" or \"file\", got \"{}\"", *from));
    }
    suite.from = *source;
  }
  if (suite.from == model::ReportSource::file &&
      std::none_of(words.begin(), words.end(), [](const auto& w) { return w.contains("{output}"); })) {
    r.fail(*r.get("from"), fmt::format("cell '{}' reads its {} results from {{output}} (from = \"file\"), but its "
                                       "command never mentions {{output}}: pass it where the harness writes its "
                                       "report, like --benchmark_out={{output}}",
                                       cell.name, *harness));
  }
  for (const char* key : {"metric", "window", "require", "min_duration"}) {
    if (const auto* node = r.get(key)) {
      r.fail(*node, fmt::format("cell.{}: a suite's figures are its harness's measures; a suite cell takes no {}", key,
                                std::string_view(key) == "metric" ? "[[cell.metric]]" : key));
    }
  }
  cell.suite = suite;
}

// The cell's `metrics` and `gate` (the defaults when it names none; a suite
// shows every measure and gates its harness's primary one), each a metric
// the cell has (`known`), every gated one shown.
template <typename Known> void read_metric_lists(TableReader& r, CellConfig& cell, const Known& known) {
  const toml::table& table = r.table();
  for (const char* key : {"metrics", "gate"}) {
    auto names = r.strings(key);
    for (const auto& metric : names) {
      if (!known(metric)) {
        r.fail(*r.table().get(key),
               fmt::format("cell.{}: unknown metric '{}' (use {} or a [[cell.metric]] of this cell)", key, metric,
                           model::metric_choices()));
      }
      // docs/manual/suites.md#counts-per-benchmark: a suite's counts are per benchmark and
      // iteration, where its harness has a way to count them; elsewhere refused rather than leave a gate that names
      // nothing
      const auto built_in = model::parse_metric(metric);
      if (cell.suite && built_in && model::counted(model::metric_info(*built_in))) {
        if (const auto why = suites::why_not_counted(cell.suite->harness, metric); !why.empty()) {
          r.fail(*r.table().get(key), fmt::format("cell.{}: '{}' is not counted per benchmark: {}", key, metric, why));
        }
      }
    }
    (std::string_view(key) == "metrics" ? cell.metrics : cell.gate) = names;
  }
  // a suite shows every measure unless its metrics says otherwise, and
  // gates its harness's primary one unless its gate does
  if (cell.metrics.empty() && !cell.suite) {
    for (const auto metric : model::k_default_metrics) {
      cell.metrics.emplace_back(model::metric_name(metric));
    }
    for (const auto& metric : cell.custom) {
      cell.metrics.push_back(metric.name);
    }
  }
  if (cell.gate.empty() && !cell.suite) {
    for (const auto metric : model::k_default_gate) {
      cell.gate.emplace_back(model::metric_name(metric));
    }
  }
  for (const auto& gated : cell.gate) {
    if (!(cell.suite && cell.metrics.empty()) &&
        std::find(cell.metrics.begin(), cell.metrics.end(), gated) == cell.metrics.end()) {
      if (const auto* node = r.get("gate"); node != nullptr) {
        r.fail(*node, fmt::format("cell.gate: '{}' is not among the cell's metrics", gated));
      }
      r.fail(table, fmt::format("cell '{}' does not show {}, the default gate; add gate = [...] naming the "
                                "metrics that may fail the run",
                                cell.name, model::metric_list_text(model::k_default_gate)));
    }
  }
}

// `check_output`, which needs an {output} that is not the cell's report,
// and `cpus`, whose groups the command's and env's {cpus.NAME} must name.
void read_output_and_cpus(TableReader& r, CellConfig& cell, const std::vector<std::string>& words) {
  cell.check_output = r.boolean("check_output").value_or(false);
  if (cell.check_output &&
      std::none_of(words.begin(), words.end(), [](const auto& w) { return w.contains("{output}"); })) {
    r.fail(*r.get("check_output"), "cell.check_output compares the arms' {output} files, but the command never "
                                   "mentions {output}; pass {output} as the path to write to, or drop check_output");
  }
  const bool report_file = cell.suite ? cell.suite->from == model::ReportSource::file
                                      : !cell.custom.empty() && cell.custom.front().from == model::ReportSource::file;
  if (cell.check_output && report_file) {
    r.fail(*r.get("check_output"), "cell.check_output compares the arms' {output} files, but this cell's {output} is "
                                   "its metric report; use from = \"stdout\" or drop check_output");
  }
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
}

} // namespace

std::vector<CellConfig> read_cell(const toml::table& table, const std::string& source) {
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
  cell.setup = r.command("setup");
  cell.prepare = r.command("prepare");
  cell.cleanup = r.command("cleanup");
  cell.env = r.environment("env");
  const auto& words = cell.command.is_shell() ? std::vector<std::string>{cell.command.shell} : cell.command.argv;
  read_suite(r, cell, words);
  read_reported_keys(r, cell, source);
  if (!cell.custom.empty() && cell.custom.front().from == model::ReportSource::file &&
      std::none_of(words.begin(), words.end(), [](const auto& w) { return w.contains("{output}"); })) {
    throw UsageError(fmt::format("{}: cell '{}' reads its metrics from {{output}} (from = \"file\"), but its command "
                                 "never mentions {{output}}",
                                 cell.where, cell.name),
                     "pass {output} to the command as the path to write its report to");
  }
  auto known = [&](const std::string& metric) {
    return cell.suite || model::parse_metric(metric) ||
           std::any_of(cell.custom.begin(), cell.custom.end(), [&](const auto& m) { return m.name == metric; });
  };
  read_metric_lists(r, cell, known);
  read_thresholds(r, cell, known);
  read_output_and_cpus(r, cell, words);
  const auto axes = read_params(r);
  r.reject_unknown();
  return expand_params(r, cell, axes);
}

} // namespace refbench::config::detail
