#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/model/command_output.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include "document_limits.hpp"
#include <refbench/model/suite_rows.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace refbench::formats {

using namespace report; // the document whose JSON this is
namespace {

using nlohmann::json;
using Fields = util::JsonFields;

using limits::k_max_count;
using limits::k_max_replicas;
using limits::k_max_shards;
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_max_double = std::numeric_limits<double>::max();

// A number, or null when it is not finite (JSON has no NaN).
json number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json optional_number(const std::optional<double>& value) { return value ? number(*value) : json(nullptr); }

// The unit named `name`, else the unit of a built-in `metric`, else plain.
analysis::Unit unit_of(const std::string& name, const std::string& metric) {
  for (auto unit : {analysis::Unit::seconds, analysis::Unit::bytes, analysis::Unit::plain}) {
    if (analysis::unit_name(unit) == name) {
      return unit;
    }
  }
  if (metric == "wall" || metric == "cpu" || metric == "user" || metric == "sys") {
    return analysis::Unit::seconds;
  }
  return metric == "rss" ? analysis::Unit::bytes : analysis::Unit::plain;
}

std::optional<stats::Verdict> verdict_named(const std::string& name) {
  for (auto verdict :
       {stats::Verdict::error, stats::Verdict::censored, stats::Verdict::regression, stats::Verdict::improved,
        stats::Verdict::pass, stats::Verdict::inconclusive, stats::Verdict::new_cell}) {
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

json cells_json(const model::RunRecord& record) {
  json cells = json::array();
  std::vector<json> samples(record.cells.size(), json::array());
  for (const auto& sample : record.samples) {
    auto s = formats::to_json(sample, record.cells);
    s.erase("type");
    s.erase("cell");
    samples.at(sample.cell).push_back(std::move(s));
  }
  for (std::size_t cell = 0; cell < record.cells.size(); ++cell) {
    auto j = formats::to_json(record.cells[cell]);
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

// One entry of "shards": a file merged into this document.
MergedFile merged_file_from(const Fields& f) {
  MergedFile file{f.string("file", ""), std::nullopt};
  if (f.has("index")) {
    file.shard = model::Shard{static_cast<std::size_t>(f.integer("index", 1, k_max_shards)),
                              static_cast<std::size_t>(f.integer("count", 1, k_max_shards))};
  }
  return file;
}

// One entry of "replicas": a replica's median wall time.
ReplicaInfo replica_from(const Fields& f) {
  return {f.string("cell"), f.string("arm"), static_cast<int>(f.integer("replica", 0, k_max_replicas)),
          static_cast<std::size_t>(f.integer("n", 0, k_max_count)), f.seconds("median_wall")};
}

} // namespace

json to_json(const analysis::MetricResult& r) {
  json j{{"cell", r.cell},
         {"metric", r.metric},
         {"unit", analysis::unit_name(r.unit)},
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
         {"p_improved", optional_number(r.p_improved)},
         {"p_improved_bh", optional_number(r.p_improved_bh)},
         {"p_better", optional_number(r.p_better)},
         {"p_better_bh", optional_number(r.p_better_bh)},
         {"threshold", r.threshold},
         {"verdict", stats::verdict_name(r.verdict)},
         {"censored", r.censored},
         {"min_detectable_ratio", number(r.min_detectable_ratio)},
         {"interval_reaches_confidence", r.interval_reaches_confidence},
         {"noise_floor", optional_number(r.noise_floor)},
         {"better", r.direction == analysis::Direction::higher_is_better ? "higher" : "lower"},
         {"unit_label", r.unit_label},
         {"kind", model::metric_kind_name(r.kind)}};
  if (r.kind == model::MetricKind::count) {
    j["difference"] = number(r.difference);
    j["diff_ci_low"] = number(r.diff_low);
    j["diff_ci_high"] = number(r.diff_high);
    j["max_increase"] = r.max_increase;
  }
  if (!r.censor_limit.empty()) {
    j["censor_limit"] = r.censor_limit;
  }
  if (r.slo) {
    j["slo"] = model::slo_text(*r.slo);
    j["baseline_slo_share"] = optional_number(r.baseline_slo_share);
    j["candidate_slo_share"] = optional_number(r.candidate_slo_share);
    j["slo_broken"] = r.slo_broken;
  }
  if (r.candidate_only) {
    j["new"] = true;
  }
  if (r.exact) {
    j["exact"] = true;
  }
  if (!r.candidate.empty()) {
    j["candidate"] = r.candidate;
  }
  if (r.error) {
    j["error"] = *r.error;
  }
  return j;
}

namespace {

// The kind, count, censoring and SLO members of an "analysis" entry into `r`.
void read_metric_kind(const Fields& f, analysis::MetricResult& r) {
  const auto kind = f.string("kind", "ratio");
  const auto parsed = model::parse_metric_kind(kind);
  if (!parsed) {
    f.fail(fmt::format("{}: unknown kind \"{}\" (ratio or count)", f.name("kind"), kind));
  }
  r.kind = *parsed;
  if (r.kind == model::MetricKind::count) {
    r.difference = nullable(f, "difference");
    r.diff_low = nullable(f, "diff_ci_low");
    r.diff_high = nullable(f, "diff_ci_high");
    r.max_increase = f.number("max_increase", 0.0, k_max_double, 0.0);
    r.half_width = (r.diff_high - r.diff_low) / 2;
  }
  r.censor_limit = f.string("censor_limit", "");
  if (f.has("slo")) {
    const auto text = f.string("slo");
    auto slo = model::parse_slo(text);
    if (!slo) {
      f.fail(fmt::format("{}: {}", f.name("slo"), slo.error()));
    }
    r.slo = *slo;
    r.baseline_slo_share = f.optional_number("baseline_slo_share", 0.0, 1.0);
    r.candidate_slo_share = f.optional_number("candidate_slo_share", 0.0, 1.0);
    r.slo_broken = f.boolean("slo_broken", false);
  }
}

} // namespace

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
  r.p_improved = f.optional_number("p_improved", 0.0, 1.0);
  r.p_improved_bh = f.optional_number("p_improved_bh", 0.0, 1.0);
  r.p_better = f.optional_number("p_better", 0.0, 1.0);
  r.p_better_bh = f.optional_number("p_better_bh", 0.0, 1.0);
  r.threshold = f.number("threshold", 0.0, k_max_double, model::k_default_threshold);
  const auto verdict = f.string("verdict", "INCONCLUSIVE");
  const auto parsed = verdict_named(verdict);
  if (!parsed) {
    f.fail(fmt::format("{}: unknown verdict \"{}\"", f.name("verdict"), verdict));
  }
  r.verdict = *parsed;
  r.censored = f.boolean("censored", false);
  r.min_detectable_ratio = nullable(f, "min_detectable_ratio");
  r.half_width = std::log(r.min_detectable_ratio);
  r.interval_reaches_confidence = f.boolean("interval_reaches_confidence", true);
  r.exact = f.boolean("exact", false);
  r.noise_floor = f.optional_number("noise_floor", 0.0, k_max_double);
  if (f.has("error")) {
    r.error = f.string("error");
  }
  read_metric_kind(f, r);
  r.candidate_only = f.boolean("new", false);
  r.candidate = f.string("candidate", "");
  return r;
}

json to_json(const std::vector<model::ExplainedEntry>& entries) {
  json list = json::array();
  for (const auto& e : entries) {
    list.push_back({{"function", e.function},
                    {"object", e.object},
                    {"baseline", number(e.baseline)},
                    {"candidate", number(e.candidate)},
                    {"delta", number(e.delta)}});
  }
  return list;
}

// docs/manual/explanations.md: results.json's "explanations"
json to_json(const model::Explanation& e) {
  json j = {{"cell", e.cell}, {"source", e.source}, {"seconds", number(e.seconds)}};
  if (!e.problem.empty()) {
    j["problem"] = e.problem;
    return j;
  }
  j["instructions"] = {{"baseline", number(e.baseline_instructions)}, {"candidate", number(e.candidate_instructions)}};
  j["functions"] = to_json(e.functions);
  j["allocation_sites"] = to_json(e.allocation_sites);
  if (!e.graph.empty()) {
    j["graph"] = e.graph;
  }
  if (!e.scope.empty()) {
    j["scope"] = e.scope;
  }
  return j;
}

model::ExplainedEntry explained_entry_from(const Fields& f) {
  return {.function = f.string("function"),
          .object = f.string("object", ""),
          .baseline = f.number("baseline", 0.0, k_max_double),
          .candidate = f.number("candidate", 0.0, k_max_double),
          .delta = f.number("delta", -k_max_double, k_max_double)};
}

model::Explanation explanation_from(const Fields& f) {
  model::Explanation e{.cell = f.string("cell"),
                       .source = f.string("source", "callgrind"),
                       .seconds = f.number("seconds", 0.0, util::k_max_recorded_seconds, 0.0),
                       .graph = f.string("graph", ""),
                       .scope = f.string("scope", ""),
                       .problem = f.string("problem", "")};
  if (f.has("instructions")) {
    const json part = f.part("instructions", false, true);
    const auto instructions = f.inner(part, f.name("instructions"));
    e.baseline_instructions = instructions.number("baseline", 0.0, k_max_double);
    e.candidate_instructions = instructions.number("candidate", 0.0, k_max_double);
  }
  // a picture refbench wrote is why/FILE.svg; anything else is no link the report may carry
  const bool plain =
      e.graph.starts_with("why/") && e.graph.ends_with(".svg") && std::ranges::all_of(e.graph.substr(4), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
      });
  if (!e.graph.empty() && (!plain || e.graph.find("..") != std::string::npos)) {
    f.fail(fmt::format("{} must be a picture under why/, got \"{}\"", f.name("graph"), util::printable(e.graph)));
  }
  e.functions = f.each("functions", explained_entry_from);
  e.allocation_sites = f.each("allocation_sites", explained_entry_from);
  return e;
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
  if (!d.explanations.empty()) {
    json explanations = json::array();
    for (const auto& e : d.explanations) {
      explanations.push_back(to_json(e));
    }
    j["explanations"] = std::move(explanations);
  }
  return j;
}

RunDocument document_from_json(const json& json_document, const std::string& source) {
  const Fields f(json_document, source, "", formats::k_run_file_hint);
  if (json_document.is_object() && !f.has("cells") && !f.has("analysis")) { // {"schema_version": 1}, say
    f.fail("has neither `cells` nor `analysis`: no run to read");
  }
  RunDocument d;
  d.header = header_from_json(f);
  d.results = f.each("analysis", metric_result_from_json);
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
  d.record.rss = d.header.rss.value_or(model::RssProbe{});
  d.record.elapsed_seconds = d.elapsed_seconds.value_or(0.0);
  if (f.has("cells") || d.header.rss) { // a run's document has cells; outside data has none
    formats::read_cells(f, d.record);
  }
  const auto warnings = f.part("warnings", true, false);
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    d.warnings.push_back(warning_from(warnings[i], f, i));
  }
  d.replicas = f.each("replicas", replica_from);
  d.merged = f.each("shards", merged_file_from);
  if (f.has("inputs")) {
    for (const auto& input : f.part("inputs", true, false)) {
      d.inputs.push_back(input.is_string() ? input.get<std::string>() : util::json_excerpt(input));
    }
  }
  d.config = f.string("config", "");
  d.payloads = f.has("payloads") ? f.object().at("payloads") : json();
  d.explanations = f.each("explanations", explanation_from);
  return d;
}

RunDocument document_from_journal(const formats::ReadJournal& journal, const std::string& source) {
  RunDocument d;
  d.header = header_from_json(Fields(journal.header, source + ":1", "", formats::k_run_file_hint));
  d.record = journal.record;
  d.record.seed = d.header.seed;
  d.record.rss = d.header.rss.value_or(model::RssProbe{});
  model::to_rows(d.record, d.header.removed_cells); // docs/manual/suites.md: every benchmark a row
  d.partial = journal.partial;
  d.from_journal = true;
  return d;
}

RunDocument read_document(const std::string& path, const std::string& text) {
  if (formats::looks_like_journal(path, text)) {
    return document_from_journal(formats::read_journal(text, path), path);
  }
  auto document = util::parse_json(text);
  if (!document) {
    throw UsageError(fmt::format("{}: {}", path, document.error()), formats::k_run_file_hint);
  }
  if (document->is_object() && !document->contains("analysis") && !document->contains("cells")) {
    throw UsageError(fmt::format("{}: no \"analysis\" and no \"cells\": not a run's results", path),
                     formats::k_run_file_hint);
  }
  auto read = document_from_json(*document, path);
  if (auto disagreement = verdict_disagreement(read)) {
    throw UsageError(fmt::format("{}: {}: the file was edited or is damaged", path, *disagreement),
                     "re-render the run from its journal (refbench report journal.jsonl), or re-run it");
  }
  return read;
}

} // namespace refbench::formats
