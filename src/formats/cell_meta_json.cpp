// The JSON form of a cell's meta (what the config said about it), in the
// journal's cell lines and results.json's cells; records.cpp checks it
// member by member before cell_meta_from_json reads it.
#include <refbench/formats/records.hpp>
#include <refbench/model/command_output.hpp>
#include <refbench/util/json_input.hpp>

namespace refbench::formats {

using namespace model; // the record types whose JSON forms these are

nlohmann::json to_json(const CellMeta& meta) {
  nlohmann::json j = nlohmann::json::object();
  if (meta.metrics) {
    j["metrics"] = *meta.metrics;
  }
  if (meta.gate) {
    j["gate"] = *meta.gate;
  }
  if (!meta.threshold.empty()) {
    j["threshold"] = meta.threshold;
  }
  if (!meta.family.empty()) {
    j["family"] = meta.family;
    j["payload_bytes"] = meta.payload_bytes;
  }
  for (const auto& metric : meta.custom) {
    nlohmann::json entry{{"name", metric.name},
                         {"from", report_source_name(metric.from)},
                         {"format", report_format_name(metric.format)},
                         {"key", metric.key},
                         {"better", metric.higher_is_better ? "higher" : "lower"},
                         {"unit", metric.unit},
                         {"kind", metric_kind_name(metric.kind)}};
    if (metric.kind == MetricKind::count) {
      entry["max_increase"] = metric.max_increase;
    }
    if (metric.censor_above) {
      entry["censor_above"] = *metric.censor_above;
    }
    if (metric.censor_below) {
      entry["censor_below"] = *metric.censor_below;
    }
    if (metric.slo) {
      entry["slo"] = slo_text(*metric.slo);
    }
    if (metric.base != Unit::plain) {
      entry["base"] = unit_name(metric.base);
    }
    if (metric.counted) {
      entry["counted"] = true;
    }
    j["custom"].push_back(std::move(entry));
  }
  if (meta.min_duration_seconds > 0) {
    j["min_duration"] = meta.min_duration_seconds;
  }
  if (!meta.window_key.empty()) {
    j["window"] = meta.window_key;
  }
  for (const auto& requirement : meta.require) {
    j["require"].push_back(requirement_text(requirement));
  }
  if (meta.candidate_only) {
    j["new"] = true;
  }
  if (!meta.candidate.empty()) {
    j["candidate"] = meta.candidate;
  }
  if (meta.suite) {
    j["suite"] = {{"harness", suites::harness_name(meta.suite->harness)},
                  {"from", report_source_name(meta.suite->from)}};
  }
  if (!meta.benchmark.empty()) {
    j["benchmark"] = meta.benchmark;
  }
  if (!meta.rows.empty()) {
    j["rows"] = meta.rows;
  }
  if (!meta.sweep.empty()) {
    j["sweep"] = meta.sweep;
    j["params"] = nlohmann::json::array();
    for (const auto& [name, value] : meta.params) {
      j["params"].push_back({name, value});
    }
  }
  return j;
}

CellMeta cell_meta_from_json(const nlohmann::json& j) {
  CellMeta meta;
  if (!j.is_object()) {
    return meta;
  }
  if (j.contains("metrics")) {
    meta.metrics = j.at("metrics").get<std::vector<std::string>>();
  }
  if (j.contains("gate")) {
    meta.gate = j.at("gate").get<std::vector<std::string>>();
  }
  meta.threshold = j.value("threshold", std::map<std::string, double>{});
  meta.family = j.value("family", std::string());
  meta.payload_bytes = j.value("payload_bytes", std::uint64_t{0});
  for (const auto& metric : j.value("custom", nlohmann::json::array())) {
    CustomMetric custom{metric.at("name").get<std::string>(),
                        parse_report_source(metric.value("from", "")).value_or(ReportSource::stdout_line),
                        parse_report_format(metric.value("format", "")).value_or(ReportFormat::json),
                        metric.at("key").get<std::string>(),
                        metric.value("better", std::string("lower")) == "higher",
                        metric.value("unit", std::string())};
    custom.kind = parse_metric_kind(metric.value("kind", "")).value_or(MetricKind::ratio);
    custom.max_increase = metric.value("max_increase", 0.0);
    if (metric.contains("censor_above")) {
      custom.censor_above = metric.at("censor_above").get<double>();
    }
    if (metric.contains("censor_below")) {
      custom.censor_below = metric.at("censor_below").get<double>();
    }
    if (auto slo = parse_slo(metric.value("slo", std::string()))) {
      custom.slo = *slo;
    }
    custom.base = k_unit_names.parse(metric.value("base", std::string("plain"))).value_or(Unit::plain);
    custom.counted = metric.value("counted", false);
    meta.custom.push_back(std::move(custom));
  }
  meta.min_duration_seconds = j.value("min_duration", 0.0);
  meta.window_key = j.value("window", std::string());
  for (const auto& text : j.value("require", std::vector<std::string>{})) {
    if (auto requirement = parse_requirement(text)) {
      meta.require.push_back(*requirement);
    }
  }
  meta.candidate_only = j.value("new", false);
  meta.candidate = j.value("candidate", std::string());
  if (const auto* suite = util::json_member(j, "suite")) {
    meta.suite = SuiteSpec{suites::parse_harness(suite->value("harness", "")).value_or(suites::Harness::bmf),
                           parse_report_source(suite->value("from", "stdout")).value_or(ReportSource::stdout_line)};
  }
  meta.benchmark = j.value("benchmark", std::string());
  meta.rows = j.value("rows", std::vector<std::string>{});
  meta.sweep = j.value("sweep", std::string());
  for (const auto& pair : j.value("params", nlohmann::json::array())) {
    meta.params.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  }
  return meta;
}

} // namespace refbench::formats
