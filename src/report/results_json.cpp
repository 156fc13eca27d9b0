#include <refbench/report/results_json.hpp>
#include <refbench/runner/journal.hpp>
#include <refbench/util/error.hpp>
#include <refbench/version.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace refbench::report {
namespace {

using nlohmann::json;
using Fields = util::JsonFields;

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_max_double = std::numeric_limits<double>::max();
// Bounds far above any real run, so a corrupt value is refused before it
// sizes a loop or a table.
constexpr std::int64_t k_max_count = 100000000;
constexpr std::int64_t k_max_replicas = 1000;
constexpr std::int64_t k_max_shards = 100000;

// A number, or null when it is not finite (JSON has no NaN).
json number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json optional_number(const std::optional<double>& value) { return value ? number(*value) : json(nullptr); }

std::string_view unit_name(analysis::Unit unit) {
  return unit == analysis::Unit::seconds ? "seconds" : unit == analysis::Unit::bytes ? "bytes" : "plain";
}

// The unit named `name`, else the unit of a built-in `metric`, else plain.
analysis::Unit unit_of(const std::string& name, const std::string& metric) {
  for (auto unit : {analysis::Unit::seconds, analysis::Unit::bytes, analysis::Unit::plain}) {
    if (unit_name(unit) == name) {
      return unit;
    }
  }
  if (metric == "wall" || metric == "cpu" || metric == "user" || metric == "sys") {
    return analysis::Unit::seconds;
  }
  return metric == "rss" ? analysis::Unit::bytes : analysis::Unit::plain;
}

std::optional<stats::Verdict> verdict_named(const std::string& name) {
  for (auto verdict : {stats::Verdict::error, stats::Verdict::censored, stats::Verdict::regression,
                       stats::Verdict::improved, stats::Verdict::pass, stats::Verdict::inconclusive}) {
    if (stats::verdict_name(verdict) == name) {
      return verdict;
    }
  }
  return std::nullopt;
}

// A number member that may be null (NaN); must be finite otherwise.
double nullable(const Fields& f, std::string_view key) {
  return f.optional_number(key, -k_max_double, k_max_double).value_or(k_nan);
}

json metric_names(const std::vector<runner::Metric>& metrics) {
  json list = json::array();
  for (auto m : metrics) {
    list.push_back(runner::metric_name(m));
  }
  return list;
}

// The metrics named in member `key`, or `fallback` when it is missing;
// names refbench does not measure itself are left out.
std::vector<runner::Metric> metrics_at(const Fields& f, std::string_view key, std::vector<runner::Metric> fallback) {
  if (!f.has(key)) {
    return fallback;
  }
  std::vector<runner::Metric> metrics;
  for (const auto& item : f.part(key, true, false)) {
    if (!item.is_string()) {
      f.fail(fmt::format("{} must hold only strings, got {}", f.name(key), util::json_excerpt(item)));
    }
    if (auto parsed = runner::parse_metric_list(item.get<std::string>())) {
      metrics.insert(metrics.end(), parsed->begin(), parsed->end());
    }
  }
  return metrics;
}

json to_json(const RecordedSettings& s, bool measured) {
  json j{{"min_rounds", s.min_rounds},
         {"threshold", s.threshold},
         {"alpha", s.alpha},
         {"interval", analysis::interval_name(s.interval)}};
  if (measured) {
    j["metrics"] = metric_names(s.metrics);
    j["gate"] = metric_names(s.gate);
  }
  const std::pair<const char*, std::optional<double>> numbers[] = {{"budget_seconds", s.budget_seconds},
                                                                   {"precision", s.precision}};
  for (const auto& [key, value] : numbers) {
    if (value) {
      j[key] = *value;
    }
  }
  const std::pair<const char*, std::optional<int>> counts[] = {
      {"max_rounds", s.max_rounds}, {"warmup", s.warmup}, {"replicas", s.replicas}};
  for (const auto& [key, value] : counts) {
    if (value) {
      j[key] = *value;
    }
  }
  if (s.better) {
    j["better"] = *s.better == analysis::Direction::higher_is_better ? "higher" : "lower";
  }
  return j;
}

std::optional<int> optional_count(const Fields& f, std::string_view key, std::int64_t low) {
  if (!f.has(key)) {
    return std::nullopt;
  }
  return static_cast<int>(f.integer(key, low, k_max_count));
}

RecordedSettings settings_from(const Fields& document) {
  const auto object = document.part("settings", false, false);
  const Fields f = document.inner(object, document.name("settings"));
  RecordedSettings s;
  s.budget_seconds = f.optional_number("budget_seconds", 0.0, util::k_max_recorded_seconds);
  s.max_rounds = optional_count(f, "max_rounds", 0);
  s.min_rounds = static_cast<int>(f.integer("min_rounds", 1, k_max_count, runner::k_default_min_rounds));
  s.warmup = optional_count(f, "warmup", 0);
  if (f.has("replicas")) {
    s.replicas = static_cast<int>(f.integer("replicas", 1, k_max_replicas));
  }
  s.metrics = metrics_at(f, "metrics", {runner::Metric::wall});
  s.gate = metrics_at(f, "gate", {runner::Metric::wall});
  s.threshold = f.number("threshold", 1.0, 1e9, analysis::k_default_threshold);
  s.alpha = f.number("alpha", 0.0, 1.0, analysis::k_default_alpha);
  s.precision = f.optional_number("precision", 0.0, 1e9);
  const auto interval = f.string("interval", "signed-rank");
  const auto method = analysis::parse_interval(interval);
  if (!method) {
    f.fail(fmt::format("{} must be \"signed-rank\" or \"bootstrap\", got \"{}\"", f.name("interval"), interval));
  }
  s.interval = *method;
  if (f.has("better")) {
    const auto better = f.string("better");
    if (better != "lower" && better != "higher") {
      f.fail(fmt::format("{} must be \"lower\" or \"higher\", got \"{}\"", f.name("better"), better));
    }
    s.better = better == "higher" ? analysis::Direction::higher_is_better : analysis::Direction::lower_is_better;
  }
  return s;
}

json to_json(const ArmInfo& arm) {
  json j = json::object();
  const std::pair<const char*, const std::string*> strings[] = {
      {"ref", &arm.ref}, {"name", &arm.name}, {"sha", &arm.sha}, {"dir", &arm.dir}, {"command", &arm.command}};
  for (const auto& [key, value] : strings) {
    if (!value->empty()) {
      j[key] = *value;
    }
  }
  if (arm.build_seconds) {
    j["build_seconds"] = *arm.build_seconds;
  }
  return j;
}

std::optional<ArmInfo> arm_from(const Fields& arms, const char* key) {
  if (!arms.has(key)) {
    return std::nullopt;
  }
  const auto object = arms.part(key, false, false);
  const Fields f = arms.inner(object, arms.name(key));
  return ArmInfo{f.string("ref", ""), f.string("name", ""),    f.string("sha", ""),
                 f.string("dir", ""), f.string("command", ""), f.optional_number("build_seconds", 0.0, 1e9)};
}

json to_json(const IsolationInfo& isolation) {
  json splits = json::array();
  for (const auto& split : isolation.splits) {
    json groups = json::object();
    for (const auto& [name, cpus] : split.groups) {
      groups[name] = cpus;
    }
    splits.push_back({{"cell", split.cell}, {"groups", std::move(groups)}, {"unassigned", split.unassigned}});
  }
  return {{"mode", isolation.mode},
          {"pinned", isolation.pinned},
          {"usable_cpus", isolation.usable_cpus},
          {"refbench_cpus", isolation.refbench_cpus},
          {"benchmark_cpus", isolation.benchmark_cpus},
          {"splits", std::move(splits)},
          {"warning", isolation.warning.empty() ? json(nullptr) : json(isolation.warning)}};
}

IsolationInfo isolation_from(const Fields& f) {
  IsolationInfo info{f.string("mode", ""),          f.boolean("pinned", false),     f.string("usable_cpus", ""),
                     f.string("refbench_cpus", ""), f.string("benchmark_cpus", ""), {},
                     f.string("warning", "")};
  const auto splits = f.part("splits", true, false);
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const Fields split = f.inner(splits[i], fmt::format("{}[{}]", f.name("splits"), i));
    IsolationInfo::Split s{split.string("cell", ""), {}, split.string("unassigned", "")};
    const auto groups = split.part("groups", false, false);
    const Fields g = split.inner(groups, split.name("groups"));
    for (const auto& [name, cpus] : groups.items()) {
      s.groups.emplace(name, g.string(name));
    }
    info.splits.push_back(std::move(s));
  }
  return info;
}

json to_json(const EnvironmentInfo& env) {
  json j{{"kernel", env.kernel}, {"machine", env.machine}, {"cpu_model", env.cpu_model}, {"governor", env.governor}};
  const std::pair<const char*, std::optional<int>> counts[] = {
      {"cpus", env.cpus}, {"cores", env.cores}, {"threads_per_core", env.threads_per_core}};
  for (const auto& [key, value] : counts) {
    if (value) {
      j[key] = *value;
    }
  }
  if (env.isolation) {
    j["isolation"] = to_json(*env.isolation);
  }
  return j;
}

std::optional<EnvironmentInfo> environment_from(const Fields& document) {
  const auto object = document.part("environment", false, false);
  if (object.empty()) {
    return std::nullopt;
  }
  const Fields f = document.inner(object, document.name("environment"));
  auto count = [&](const char* key) {
    return f.has(key) ? std::optional<int>(static_cast<int>(f.integer(key, 0, 1 << 24))) : std::nullopt;
  };
  EnvironmentInfo env{f.string("kernel", ""), f.string("machine", ""),   f.string("cpu_model", ""), count("cpus"),
                      count("cores"),         count("threads_per_core"), f.string("governor", ""),  std::nullopt};
  if (f.has("isolation")) {
    env.isolation = isolation_from(f.inner(f.part("isolation", false, true), f.name("isolation")));
  }
  return env;
}

std::optional<process::RssProbe> rss_from(const Fields& document) {
  if (!document.has("rss")) {
    return std::nullopt;
  }
  const auto object = document.part("rss", false, true);
  const Fields f = document.inner(object, document.name("rss"));
  return process::RssProbe{f.string("method"), f.integer("floor_bytes", 0, INT64_MAX),
                           f.seconds("spawn_resolution_seconds", 0.0)};
}

void check_schema_version(const Fields& document) {
  if (!document.has("schema_version")) {
    document.fail("schema_version is missing: this is no results.json or journal written by refbench");
  }
  const auto version = document.integer("schema_version", 1, INT64_MAX);
  if (version > k_schema_version) {
    document.fail(fmt::format("schema_version {} is newer than this refbench reads ({}): update refbench to read it",
                              version, k_schema_version));
  }
}

json to_json(const DocumentWarning& warning) {
  json j = warning.facts.is_object() ? warning.facts : json::object();
  j["cell"] = warning.cell;
  j["message"] = warning.message;
  return j;
}

DocumentWarning warning_from(const json& entry, const Fields& document, std::size_t i) {
  if (entry.is_string()) {
    return {"", entry.get<std::string>()};
  }
  const Fields f = document.inner(entry, fmt::format("warnings[{}]", i));
  DocumentWarning warning{f.string("cell", ""), f.string("message"), entry};
  warning.facts.erase("cell");
  warning.facts.erase("message");
  return warning;
}

json cells_json(const runner::RunRecord& record) {
  json cells = json::array();
  std::vector<json> samples(record.cells.size(), json::array());
  for (const auto& sample : record.samples) {
    auto s = runner::to_json(sample, record.cells);
    s.erase("type");
    s.erase("cell");
    samples.at(sample.cell).push_back(std::move(s));
  }
  for (std::size_t cell = 0; cell < record.cells.size(); ++cell) {
    auto j = runner::to_json(record.cells[cell]);
    j["samples"] = std::move(samples[cell]);
    cells.push_back(std::move(j));
  }
  return cells;
}

json merged_json(const std::vector<MergedFile>& merged) {
  json list = json::array();
  for (const auto& file : merged) {
    json entry{{"file", file.file}};
    if (file.shard) {
      entry["index"] = file.shard->index;
      entry["count"] = file.shard->count;
    }
    list.push_back(std::move(entry));
  }
  return list;
}

std::vector<MergedFile> merged_from(const Fields& document) {
  std::vector<MergedFile> merged;
  const auto shards = document.part("shards", true, false);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Fields f = document.inner(shards[i], fmt::format("shards[{}]", i));
    MergedFile file{f.string("file", ""), std::nullopt};
    if (f.has("index")) {
      file.shard = runner::Shard{static_cast<std::size_t>(f.integer("index", 1, k_max_shards)),
                                 static_cast<std::size_t>(f.integer("count", 1, k_max_shards))};
    }
    merged.push_back(std::move(file));
  }
  return merged;
}

std::vector<ReplicaInfo> replicas_from(const Fields& document) {
  std::vector<ReplicaInfo> replicas;
  const auto list = document.part("replicas", true, false);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Fields f = document.inner(list[i], fmt::format("replicas[{}]", i));
    replicas.push_back({f.string("cell"), f.string("arm"), static_cast<int>(f.integer("replica", 0, k_max_replicas)),
                        static_cast<std::size_t>(f.integer("n", 0, k_max_count)), f.seconds("median_wall")});
  }
  return replicas;
}

} // namespace

json to_json(const analysis::MetricResult& r) {
  json j{{"cell", r.cell},
         {"metric", r.metric},
         {"unit", unit_name(r.unit)},
         {"control", r.control},
         {"gated", r.gated},
         {"paired", r.paired},
         {"n", r.n},
         {"baseline_median", number(r.baseline_median)},
         {"candidate_median", number(r.candidate_median)},
         {"ratio", number(r.ratio)},
         {"ci_low", number(r.ci_low)},
         {"ci_high", number(r.ci_high)},
         {"p", optional_number(r.p)},
         {"p_bh", optional_number(r.p_bh)},
         {"threshold", r.threshold},
         {"verdict", stats::verdict_name(r.verdict)},
         {"censored", r.censored},
         {"min_detectable_ratio", number(r.min_detectable_ratio)},
         {"noise_floor", optional_number(r.noise_floor)},
         {"better", r.direction == analysis::Direction::higher_is_better ? "higher" : "lower"},
         {"unit_label", r.unit_label}};
  if (r.error) {
    j["error"] = *r.error;
  }
  return j;
}

analysis::MetricResult metric_result_from_json(const Fields& f) {
  analysis::MetricResult r;
  r.cell = f.string("cell");
  r.metric = f.string("metric");
  r.unit = unit_of(f.string("unit", ""), r.metric);
  r.unit_label = f.string("unit_label", "");
  r.direction = f.string("better", "lower") == "higher" ? analysis::Direction::higher_is_better
                                                        : analysis::Direction::lower_is_better;
  r.control = f.boolean("control", false);
  r.gated = f.boolean("gated", false);
  r.paired = f.boolean("paired", true);
  r.n = static_cast<std::size_t>(f.integer("n", 0, INT64_MAX, 0));
  r.baseline_median = nullable(f, "baseline_median");
  r.candidate_median = nullable(f, "candidate_median");
  r.ratio = nullable(f, "ratio");
  r.ci_low = nullable(f, "ci_low");
  r.ci_high = nullable(f, "ci_high");
  r.p = f.optional_number("p", 0.0, 1.0);
  r.p_bh = f.optional_number("p_bh", 0.0, 1.0);
  r.threshold = f.number("threshold", 0.0, k_max_double, analysis::k_default_threshold);
  const auto verdict = f.string("verdict", "INCONCLUSIVE");
  const auto parsed = verdict_named(verdict);
  if (!parsed) {
    f.fail(fmt::format("{}: unknown verdict \"{}\"", f.name("verdict"), verdict));
  }
  r.verdict = *parsed;
  r.censored = f.boolean("censored", false);
  r.min_detectable_ratio = nullable(f, "min_detectable_ratio");
  r.half_width = std::log(r.min_detectable_ratio);
  r.noise_floor = f.optional_number("noise_floor", 0.0, k_max_double);
  if (f.has("error")) {
    r.error = f.string("error");
  }
  return r;
}

json to_json(const RunHeader& h) {
  json j{{"schema_version", k_schema_version},
         {"tool", {{"name", "refbench"}, {"version", h.tool_version.empty() ? k_version : h.tool_version}}},
         {"command", h.command},
         {"seed", h.seed},
         {"settings", to_json(h.settings, h.command != "analyze")},
         {"reproduce", h.reproduce}};
  if (h.baseline || h.candidate) {
    j["arms"] = {{"baseline", to_json(h.baseline.value_or(ArmInfo{}))},
                 {"candidate", to_json(h.candidate.value_or(ArmInfo{}))}};
  }
  if (h.environment) {
    j["environment"] = to_json(*h.environment);
  }
  if (h.rss) {
    j["rss"] = {{"method", h.rss->method},
                {"floor_bytes", h.rss->floor_bytes},
                {"spawn_resolution_seconds", h.rss->spawn_resolution_seconds}};
  }
  if (h.shard) {
    j["shard"] = runner::to_json(*h.shard);
  }
  return j;
}

RunHeader header_from_json(const Fields& f) {
  check_schema_version(f);
  RunHeader h;
  const auto tool = f.part("tool", false, false);
  h.tool_version = f.inner(tool, "tool").string("version", "");
  h.command = f.string("command", "");
  h.seed = f.take(util::unsigned_member(f.object(), "seed", 0));
  h.reproduce = f.string("reproduce", "");
  h.settings = settings_from(f);
  const auto arms = f.part("arms", false, false);
  const Fields a = f.inner(arms, "arms");
  h.baseline = arm_from(a, "baseline");
  h.candidate = arm_from(a, "candidate");
  h.environment = environment_from(f);
  h.rss = rss_from(f);
  if (f.has("shard")) {
    h.shard = runner::shard_identity_from_json(f.part("shard", false, true), f.where());
  }
  return h;
}

json journal_header(const RunHeader& header, const std::vector<runner::CellSpec>& cells) {
  json cell_list = json::array();
  for (const auto& cell : cells) {
    cell_list.push_back({{"name", cell.name}, {"control", cell.control}, {"meta", runner::to_json(cell.meta)}});
  }
  json j = to_json(header);
  j["type"] = "header";
  j["cells"] = std::move(cell_list);
  return j;
}

json to_json(const RunDocument& d) {
  json j = to_json(d.header);
  json analysis = json::array();
  for (const auto& r : d.results) {
    analysis.push_back(to_json(r));
  }
  json warnings = json::array();
  for (const auto& w : d.warnings) {
    warnings.push_back(to_json(w));
  }
  j["verdict"] = analysis::run_verdict_name(d.verdict);
  j["partial"] = d.partial;
  j["analysis"] = std::move(analysis);
  j["warnings"] = std::move(warnings);
  if (!d.header.rss || !d.record.cells.empty()) { // measured here, or cells read back
    j["cells"] = cells_json(d.record);
  }
  const std::pair<const char*, std::optional<double>> seconds[] = {{"elapsed_seconds", d.elapsed_seconds},
                                                                   {"total_seconds", d.total_seconds}};
  for (const auto& [key, value] : seconds) {
    if (value) {
      j[key] = *value;
    }
  }
  if (d.harness_peak_rss_bytes) {
    j["harness_peak_rss_bytes"] = *d.harness_peak_rss_bytes;
  }
  for (const auto& r : d.replicas) {
    j["replicas"].push_back(
        {{"cell", r.cell}, {"arm", r.arm}, {"replica", r.replica}, {"n", r.n}, {"median_wall", r.median_wall}});
  }
  if (!d.merged.empty()) {
    j["shards"] = merged_json(d.merged);
  }
  if (!d.inputs.empty()) {
    j["inputs"] = d.inputs;
  }
  if (!d.config.empty()) {
    j["config"] = d.config;
  }
  if (!d.payloads.is_null()) {
    j["payloads"] = d.payloads;
  }
  return j;
}

RunDocument document_from_json(const json& json_document, const std::string& source) {
  const Fields f(json_document, source, "", runner::k_run_file_hint);
  RunDocument d;
  d.header = header_from_json(f);
  const auto analysis = f.part("analysis", true, false);
  for (std::size_t i = 0; i < analysis.size(); ++i) {
    d.results.push_back(metric_result_from_json(f.inner(analysis[i], fmt::format("analysis[{}]", i))));
  }
  // a missing verdict is derived from the analysis
  const auto verdict =
      f.string("verdict", std::string(analysis::run_verdict_name(analysis::overall_verdict(d.results))));
  const auto run_verdict = analysis::parse_run_verdict(verdict);
  if (!run_verdict) {
    f.fail(fmt::format("verdict: unknown run verdict \"{}\"", verdict));
  }
  d.verdict = *run_verdict;
  d.partial = f.boolean("partial", false);
  d.elapsed_seconds = f.optional_number("elapsed_seconds", 0.0, util::k_max_recorded_seconds);
  d.total_seconds = f.optional_number("total_seconds", 0.0, util::k_max_recorded_seconds);
  if (f.has("harness_peak_rss_bytes")) {
    d.harness_peak_rss_bytes = f.integer("harness_peak_rss_bytes", 0, INT64_MAX);
  }
  d.record.seed = d.header.seed;
  d.record.rss = d.header.rss.value_or(process::RssProbe{});
  d.record.elapsed_seconds = d.elapsed_seconds.value_or(0.0);
  if (f.has("cells") || d.header.rss) { // a run's document has cells; outside data has none
    runner::read_cells(f, d.record);
  }
  const auto warnings = f.part("warnings", true, false);
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    d.warnings.push_back(warning_from(warnings[i], f, i));
  }
  d.replicas = replicas_from(f);
  d.merged = merged_from(f);
  if (f.has("inputs")) {
    for (const auto& input : f.part("inputs", true, false)) {
      d.inputs.push_back(input.is_string() ? input.get<std::string>() : util::json_excerpt(input));
    }
  }
  d.config = f.string("config", "");
  d.payloads = f.has("payloads") ? f.object().at("payloads") : json();
  return d;
}

RunDocument document_from_journal(const runner::ReadJournal& journal, const std::string& source) {
  RunDocument d;
  d.header = header_from_json(Fields(journal.header, source + ":1", "", runner::k_run_file_hint));
  d.record = journal.record;
  d.record.seed = d.header.seed;
  d.record.rss = d.header.rss.value_or(process::RssProbe{});
  d.partial = journal.partial;
  d.from_journal = true;
  return d;
}

RunDocument read_document(const std::string& path, const std::string& text) {
  if (runner::looks_like_journal(path, text)) {
    return document_from_journal(runner::read_journal(text, path), path);
  }
  auto document = util::parse_json(text);
  if (!document) {
    throw UsageError(fmt::format("{}: {}", path, document.error()), runner::k_run_file_hint);
  }
  return document_from_json(*document, path);
}

} // namespace refbench::report
