#include <refbench/model/command_output.hpp>
#include <refbench/model/invocation.hpp>
#include <refbench/model/suite_rows.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace refbench::model {
namespace {

constexpr std::size_t k_found_chars = 60; // of a found value quoted in a message

std::string_view last_line(std::string_view text) {
  text = util::trim(text);
  const auto newline = text.find_last_of('\n');
  return newline == std::string_view::npos ? text : util::trim(text.substr(newline + 1));
}

// `text` shortened for a message, as a JSON string would show it.
std::string shown_value(std::string_view text) {
  std::string shown(text.substr(0, k_found_chars));
  if (text.size() > k_found_chars) {
    shown += "…";
  }
  return nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A JSON value as found: a string quoted, anything else as written (both cut
// to k_found_chars).
std::string shown_json(const nlohmann::json& value) {
  if (value.is_string()) {
    return shown_value(value.get<std::string>());
  }
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > k_found_chars ? text.substr(0, k_found_chars) + "…" : text;
}

// Why the tail `text` of a longer stdout cannot hold what is looked for.
std::string cut_problem(std::string_view what) {
  return fmt::format("reported {} longer than the {} MiB that refbench reads of its stdout: print the values as one "
                     "JSON object on the last line",
                     what, k_stdout_tail_bytes >> 20);
}

// The document `meta`'s values are read from, or why there is none. `cut`:
// `text` is only the end of the command's stdout.
std::expected<nlohmann::json, std::string> document_of(const CellMeta& meta, std::string_view text, bool cut) {
  const bool from_stdout = !reads_output_file(meta);
  const auto body = util::trim_right(text);
  if (from_stdout && cut && body.find('\n') == std::string_view::npos) { // its start is not in `text`
    return std::unexpected(cut_problem("a last line"));
  }
  auto parsed = util::parse_json(from_stdout ? last_line(text) : text);
  if (from_stdout && !(parsed && parsed->is_object())) {
    if (cut) {
      return std::unexpected(cut_problem("a document"));
    }
    auto whole = util::parse_json(text); // a pretty-printed document
    if (whole || !parsed) {
      parsed = std::move(whole);
    }
  }
  if (parsed && parsed->is_object()) {
    return std::move(*parsed);
  }
  const auto shown = util::trim(from_stdout ? last_line(text) : text);
  if (!parsed && parsed.error().starts_with("nested deeper")) { // a document, but not one to read
    return std::unexpected(fmt::format("reported JSON {} in {}", parsed.error(), report_source(meta)));
  }
  if (shown.empty()) {
    return std::unexpected(fmt::format("reported nothing: {} is empty", report_source(meta)));
  }
  return std::unexpected(fmt::format("reported no JSON object: {} is {}", report_source(meta), shown_value(shown)));
}

// The node at `key` of `document`: a top-level name, or for Bencher Metric
// Format "<benchmark>/<measure>" → its "value". Otherwise nullptr, or a
// phrase naming the part of a BMF document that is not as the format says.
std::expected<const nlohmann::json*, std::string> node_at(const nlohmann::json& document, const std::string& key,
                                                          bool bmf) {
  if (!bmf) {
    auto it = document.find(key);
    return it == document.end() ? nullptr : &*it;
  }
  const auto slash = key.rfind('/');
  if (slash == std::string::npos) {
    return nullptr;
  }
  const std::string name = key.substr(0, slash);
  auto benchmark = document.find(name);
  if (benchmark == document.end()) {
    return nullptr;
  }
  if (!benchmark->is_object()) {
    return std::unexpected(fmt::format("`{}` is {}, not an object of measures", name, shown_json(*benchmark)));
  }
  auto measure = benchmark->find(key.substr(slash + 1));
  if (measure == benchmark->end()) {
    return nullptr;
  }
  if (!measure->is_object() || !measure->contains("value")) {
    return std::unexpected(fmt::format("`{}` is {}, not an object with a \"value\"", key, shown_json(*measure)));
  }
  return &measure->at("value");
}

// The number at `key`, or a phrase saying what was found instead.
std::expected<double, std::string> number_at(const nlohmann::json& document, const std::string& key, bool bmf,
                                             const CellMeta& meta) {
  auto node = node_at(document, key, bmf);
  const std::string where = bmf ? fmt::format("`{}` (Bencher Metric Format)", key) : fmt::format("`{}`", key);
  if (!node) {
    return std::unexpected(fmt::format("{} in {}", node.error(), report_source(meta)));
  }
  if (*node == nullptr) {
    return std::unexpected(fmt::format("{} is missing from {}", where, report_source(meta)));
  }
  if (!(*node)->is_number()) {
    return std::unexpected(fmt::format("{} is {} in {}", where, shown_json(**node), report_source(meta)));
  }
  return (*node)->get<double>();
}

// "KEY OP NUMBER" (KEY may be empty) split at its first operator, longest
// operators first; nullopt when the number is missing or not finite.
struct Condition {
  std::string key;
  std::string op;
  double value = 0;
};

std::optional<Condition> split_condition(std::string_view text) {
  static constexpr std::array<std::string_view, 6> k_ops{"==", "!=", "<=", ">=", "<", ">"};
  for (auto op : k_ops) {
    const auto at = text.find(op);
    if (at == std::string_view::npos) {
      continue;
    }
    Condition condition{std::string(util::trim(text.substr(0, at))), std::string(op), 0};
    const auto number = util::trim(text.substr(at + op.size()));
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), condition.value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size() ||
        !std::isfinite(condition.value)) {
      return std::nullopt;
    }
    return condition;
  }
  return std::nullopt;
}

// A suite cell's benchmarks from its harness's output `text` into `sample`,
// or its problem: a malformed output, or a stdout longer than refbench reads.
void read_suite_report(const CellMeta& meta, Sample& sample, std::string_view text, bool cut) {
  const auto harness = suites::harness_name(meta.suite->harness);
  if (cut) {
    sample.problem = fmt::format("printed more than the {} MiB that refbench reads of its stdout: let {} write its "
                                 "report to {{output}} (from = \"file\")",
                                 k_stdout_tail_bytes >> 20, harness);
    return;
  }
  auto benchmarks = suites::read_suite(meta.suite->harness, text, report_source(meta));
  if (!benchmarks) {
    sample.problem = fmt::format("reported no {} results: {}", harness, benchmarks.error());
    return;
  }
  std::erase_if(*benchmarks, [&](const suites::Benchmark& b) { return !wanted(meta, b.name); }); // --cells
  if (benchmarks->size() > suites::k_max_benchmarks) {
    sample.problem = fmt::format("reported {} benchmarks, more than the {} one run judges: pick some with --cells "
                                 "'SUITE/PATTERN'",
                                 benchmarks->size(), suites::k_max_benchmarks);
    return;
  }
  sample.benchmarks = std::move(*benchmarks);
}

} // namespace

bool reads_report(const CellMeta& meta) {
  return !meta.custom.empty() || !meta.window_key.empty() || !meta.require.empty() || meta.suite;
}

bool reads_output_file(const CellMeta& meta) {
  if (meta.suite) {
    return meta.suite->from == ReportSource::file;
  }
  return !meta.custom.empty() && meta.custom.front().from == ReportSource::file;
}

std::string report_source(const CellMeta& meta) {
  return reads_output_file(meta) ? "its {output} file" : meta.suite ? "its stdout" : "the last line of its stdout";
}

std::expected<ReportedValues, std::string> read_reported(const CellMeta& meta, std::string_view text, bool cut) {
  auto document = document_of(meta, text, cut);
  if (!document) {
    return std::unexpected(document.error());
  }
  const bool bmf = !meta.custom.empty() && meta.custom.front().format == ReportFormat::bmf;
  ReportedValues reported;
  for (const auto& metric : meta.custom) {
    auto value = number_at(*document, metric.key, bmf, meta);
    if (!value) {
      return std::unexpected(fmt::format("reported no number for metric `{}`: {}", metric.name, value.error()));
    }
    if (metric.kind == MetricKind::count && (!std::isfinite(*value) || *value < 0)) {
      return std::unexpected(fmt::format("reported metric `{}` = {} in {}; a count is a number ≥ 0", metric.name,
                                         *value, report_source(meta)));
    }
    if (metric.kind == MetricKind::ratio && (!std::isfinite(*value) || *value <= 0)) {
      return std::unexpected(fmt::format("reported metric `{}` = {} in {}; ratios need a positive value (a metric "
                                         "that can be 0, like an error count, is kind = \"count\")",
                                         metric.name, *value, report_source(meta)));
    }
    reported.metrics[metric.name] = *value;
  }
  std::vector<std::string> keys;
  if (!meta.window_key.empty()) {
    keys.push_back(meta.window_key);
  }
  for (const auto& requirement : meta.require) {
    keys.push_back(requirement.key);
  }
  for (const auto& key : keys) {
    auto value = number_at(*document, key, bmf, meta);
    if (!value) {
      return std::unexpected(fmt::format("reported no number for `{}`: {}", key, value.error()));
    }
    reported.keys[key] = *value;
  }
  return reported;
}

std::optional<std::string> window_problem(const CellMeta& meta, const ReportedValues& reported, double wall_seconds) {
  if (meta.min_duration_seconds > 0) {
    const bool reported_window = !meta.window_key.empty();
    const double window = reported_window ? reported.keys.at(meta.window_key) : wall_seconds;
    if (!(window >= meta.min_duration_seconds)) {
      return fmt::format("measured for only {:.3g} s ({}), less than min_duration = {:.3g} s: its figures do not "
                         "cover the window they claim",
                         window,
                         reported_window ? fmt::format("`{}` in {}", meta.window_key, report_source(meta))
                                         : std::string("its wall time"),
                         meta.min_duration_seconds);
    }
  }
  for (const auto& requirement : meta.require) {
    const double value = reported.keys.at(requirement.key);
    if (!condition_holds(value, requirement.op, requirement.value)) {
      return fmt::format("failed the requirement `{}`: `{}` = {} in {}", requirement_text(requirement), requirement.key,
                         value, report_source(meta));
    }
  }
  return std::nullopt;
}

bool condition_holds(double value, std::string_view op, double limit) {
  return op == "=="   ? value == limit
         : op == "!=" ? value != limit
         : op == "<"  ? value < limit
         : op == "<=" ? value <= limit
         : op == ">"  ? value > limit
         : op == ">=" ? value >= limit
                      : false;
}

void read_sample_report(const CellMeta& meta, Sample& sample, std::string_view text, bool cut) {
  if (meta.suite) {
    read_suite_report(meta, sample, text, cut);
    return;
  }
  auto reported = read_reported(meta, text, cut);
  if (!reported) {
    sample.problem = reported.error();
    return;
  }
  if (auto problem = window_problem(meta, *reported, sample.outcome.readings[Reading::wall])) {
    sample.problem = *problem;
    return;
  }
  sample.values = std::move(reported->metrics);
}

std::expected<Requirement, std::string> parse_requirement(std::string_view text) {
  if (auto condition = split_condition(text); condition && !condition->key.empty()) {
    return Requirement{condition->key, condition->op, condition->value};
  }
  return std::unexpected(fmt::format("'{}' is not a requirement like \"errors == 0\" (KEY OP NUMBER, OP one of "
                                     "== != < <= > >=)",
                                     text));
}

std::expected<Slo, std::string> parse_slo(std::string_view text) {
  if (auto condition = split_condition(text); condition && condition->key.empty()) {
    return Slo{condition->op, condition->value};
  }
  return std::unexpected(
      fmt::format("'{}' is not an SLO like \"<= 5000\" (OP NUMBER, OP one of == != < <= > >=)", text));
}

std::string slo_text(const Slo& slo) { return fmt::format("{} {}", slo.op, slo.value); }

std::string requirement_text(const Requirement& requirement) {
  return fmt::format("{} {} {}", requirement.key, requirement.op, requirement.value);
}

} // namespace refbench::model
