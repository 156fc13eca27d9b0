#include <refbench/runner/journal.hpp>
#include <refbench/runner/reported.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace refbench::runner {
Journal::Journal(const std::string& path) : m_path(path), m_fd(util::create_fresh_file(path, O_APPEND)) {
  if (!m_fd.valid()) {
    throw RefusedError("cannot create the journal " + path + ": " + std::strerror(errno),
                       "choose a writable --out directory");
  }
}

void Journal::append(const nlohmann::json& line) {
  if (!m_fd.valid()) {
    return;
  }
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (!util::write_all(m_fd.get(), text.data(), text.size())) {
    const int saved = errno;
    // A write cut short (disk full, file-size limit) leaves half a line: cut it off.
    [[maybe_unused]] int ignored = ::ftruncate(m_fd.get(), static_cast<off_t>(m_size));
    if (util::out_of_space(saved)) {
      throw MeasurementError("cannot write the journal " + m_path + ": out of disk space (" + std::strerror(saved) +
                                 ")",
                             "free some space (or raise the file-size limit, ulimit -f) and rerun");
    }
    throw MeasurementError("cannot write the journal " + m_path + ": " + std::strerror(saved),
                           "check the --out directory");
  }
  m_size += text.size();
}

void Journal::sync() {
  if (m_fd.valid()) {
    ::fdatasync(m_fd.get());
  }
}

void name_cell(nlohmann::json& line, const CellRecord& cell) {
  line["cell"] = cell.name;
  if (!cell.meta.candidate.empty()) {
    line["candidate"] = cell.meta.candidate;
  }
}

nlohmann::json to_json(const Sample& sample, const std::vector<CellRecord>& cells) {
  const auto& o = sample.outcome;
  nlohmann::json j{
      {"type", "sample"},         {"arm", arm_name(sample.arm)},    {"round", sample.round},
      {"order", sample.order},    {"warmup", sample.round == 0},    {"status", k_termination_names.name(o.termination)},
      {"exit_code", o.exit_code}, {"rss_floor", o.rss_floor_bytes}, {"replica", sample.replica},
  };
  for (const auto& metric : built_in_metrics()) {
    const double value = metric.value(o.readings);
    j[std::string(metric.name)] =
        metric.integral ? nlohmann::json(static_cast<std::int64_t>(value)) : nlohmann::json(value);
  }
  if (o.termination == process::Termination::signaled) {
    j["signal"] = o.signal;
  }
  if (!sample.values.empty()) {
    j["values"] = sample.values;
  }
  if (!sample.problem.empty()) {
    j["problem"] = sample.problem;
  }
  if (!usable(sample)) {
    j["stderr_tail"] = o.stderr_tail;
  }
  name_cell(j, cells.at(sample.cell));
  return j;
}

nlohmann::json to_json(const CellRecord& cell) {
  nlohmann::json j{
      {"name", cell.name},
      {"control", cell.control},
      {"stop_reason", stop_reason_name(cell.stop)},
      {"rounds", cell.rounds},
  };
  j["meta"] = to_json(cell.meta);
  if (cell.failure) {
    j["failure"] = {
        {"arm", arm_name(cell.failure->arm)},
        {"round", cell.failure->round},
        {"description", cell.failure->description},
        {"stderr_tail", cell.failure->stderr_tail},
    };
    if (!cell.failure->hook.empty()) {
      j["failure"]["hook"] = cell.failure->hook;
    }
  }
  return j;
}

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
  meta.sweep = j.value("sweep", std::string());
  for (const auto& pair : j.value("params", nlohmann::json::array())) {
    meta.params.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  }
  return meta;
}

} // namespace refbench::runner
