#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>

#include "document_limits.hpp"
#include <refbench/model/command_output.hpp>
#include <refbench/util/error.hpp>

#include <refbench/util/json_fields.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <climits>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace refbench::formats {

using namespace model; // the record types whose JSON forms these are
namespace {

using limits::k_max_count;
using limits::k_max_replicas;

using Fields = util::JsonFields;

Arm sample_arm_of(const Fields& f) {
  const std::string arm = f.string("arm");
  if (arm != "baseline" && arm != "candidate") {
    f.fail(fmt::format("{} must be \"baseline\" or \"candidate\", got \"{}\"", f.name("arm"), arm));
  }
  return arm == "candidate" ? Arm::candidate : Arm::baseline;
}

// Every member of `object` must be a string: metric names.
void check_strings(const Fields& f, std::string_view key) {
  for (const auto& item : f.part(key, true, false)) {
    if (!item.is_string()) {
      f.fail(fmt::format("{} must hold only strings, got {}", f.name(key), util::json_excerpt(item)));
    }
  }
}

// A metric → number table (sample values, per-metric thresholds) whose
// numbers lie in [`low`, `high`].
std::map<std::string, double> number_table(const Fields& f, std::string_view key, double low, double high) {
  std::map<std::string, double> table;
  const auto part = f.part(key, false, false);
  const Fields entries = f.inner(part, f.name(key));
  for (const auto& [name, value] : part.items()) {
    table[name] = entries.take(util::number_member(part, name, low, high));
  }
  return table;
}

// The "hook" of a failure or a journal "hook" line: "setup", "prepare",
// "cleanup", or "" (none: the cell's command).
std::string hook_from(const Fields& f) {
  auto hook = f.string("hook", "");
  if (!hook.empty() && hook != hook_name(Hook::setup) && hook != hook_name(Hook::prepare) &&
      hook != hook_name(Hook::cleanup) && hook != k_tree_check && hook != k_counted_run && hook != k_allocation_run &&
      hook != k_benchmark_count) {
    f.fail(fmt::format("{}: unknown hook \"{}\" (setup, prepare or cleanup)", f.name("hook"), hook));
  }
  return hook;
}

// A cell's "meta" (what the config said about it), checked before it is read.
CellMeta meta_from(const Fields& cell) {
  const auto meta = cell.part("meta", false, false);
  const Fields f = cell.inner(meta, cell.name("meta"));
  check_strings(f, "metrics");
  check_strings(f, "gate");
  number_table(f, "threshold", 1.0, 1e9);
  f.string("family", "");
  f.take(util::unsigned_member(meta, "payload_bytes", 0));
  f.seconds("min_duration", 0.0);
  f.string("window", "");
  check_strings(f, "require");
  f.string("sweep", "");
  f.boolean("new", false);
  f.string("candidate", "");
  f.string("benchmark", "");
  check_strings(f, "rows");
  if (meta.contains("suite")) {
    const auto part = f.part("suite", false, false);
    const Fields suite = f.inner(part, f.name("suite"));
    if (!suites::parse_harness(suite.string("harness"))) {
      suite.fail(fmt::format("{}: unknown harness \"{}\" ({})", suite.name("harness"), suite.string("harness"),
                             suites::k_harness_names.list()));
    }
    if (!parse_report_source(suite.string("from", "stdout"))) {
      suite.fail(fmt::format("{} must be \"stdout\" or \"file\"", suite.name("from")));
    }
  }
  const auto params = f.part("params", true, false);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_array() || params[i].size() != 2 || !params[i][0].is_string() || !params[i][1].is_string()) {
      f.fail(fmt::format("{}[{}] must be a [name, value] pair of strings", f.name("params"), i));
    }
  }
  const auto custom = f.part("custom", true, false);
  for (std::size_t i = 0; i < custom.size(); ++i) {
    const Fields metric = f.inner(custom[i], fmt::format("{}[{}]", f.name("custom"), i));
    metric.string("name");
    metric.string("key");
    for (const char* key : {"from", "format", "better", "unit"}) {
      metric.string(key, "");
    }
    const auto kind = metric.string("kind", "ratio");
    if (!parse_metric_kind(kind)) {
      metric.fail(fmt::format("{}: unknown kind \"{}\" (ratio or count)", metric.name("kind"), kind));
    }
    metric.number("max_increase", 0.0, std::numeric_limits<double>::max(), 0.0);
    if (const auto base = metric.string("base", "plain"); !k_unit_names.parse(base)) {
      metric.fail(fmt::format("{}: unknown unit \"{}\" (seconds, bytes or plain)", metric.name("base"), base));
    }
    metric.boolean("counted", false);
    for (const char* key : {"censor_above", "censor_below"}) {
      metric.optional_number(key, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
    }
    if (const auto slo = metric.string("slo", ""); !slo.empty() && !parse_slo(slo)) {
      metric.fail(fmt::format("{}: {}", metric.name("slo"), parse_slo(slo).error()));
    }
  }
  return cell_meta_from_json(meta);
}

// A sample object (journal line or results.json entry) as a Sample of `cell`.
Sample sample_from(const Fields& f, std::size_t cell) {
  Sample s;
  s.cell = cell;
  s.arm = sample_arm_of(f);
  s.round = f.count("round");
  s.order = static_cast<std::size_t>(f.integer("order", 0, k_max_count));
  auto& o = s.outcome;
  o.termination = k_termination_names.parse(f.string("status")).value_or(model::Termination::spawn_failed);
  o.exit_code = static_cast<int>(f.integer("exit_code", INT_MIN, INT_MAX, 0));
  o.signal = static_cast<int>(f.integer("signal", 0, 1024, 0));
  for (const auto& metric : built_in_metrics()) {
    if (!metric.stored || (model::counted(metric) && !f.object().contains(metric.name))) {
      continue; // made of others, or a counted reading the sample has none of
    }
    o.readings[*metric.stored] =
        metric.integral ? static_cast<double>(f.integer(metric.name, 0, INT64_MAX)) : f.seconds(metric.name);
  }
  o.rss_floor_bytes = f.integer("rss_floor", 0, INT64_MAX, 0);
  o.stderr_tail = f.string("stderr_tail", "");
  s.values = number_table(f, "values", -std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
  s.problem = f.string("problem", "");
  s.replica = static_cast<int>(f.integer("replica", 0, k_max_replicas, 0));
  if (f.object().contains("benchmarks")) {
    const auto benchmarks = f.part("benchmarks", true, false);
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      const Fields b = f.inner(benchmarks[i], fmt::format("{}[{}]", f.name("benchmarks"), i));
      s.benchmarks.push_back(
          {b.string("name"),
           number_table(b, "values", -std::numeric_limits<double>::max(), std::numeric_limits<double>::max()),
           b.string("error", ""), 0, 0, b.string("uncounted", "")});
    }
  }
  return s;
}

std::optional<CellFailure> failure_from(const Fields& cell) {
  if (!cell.object().contains("failure") || cell.object()["failure"].is_null()) {
    return std::nullopt;
  }
  const auto failure = cell.part("failure", false, true);
  const Fields f = cell.inner(failure, cell.name("failure"));
  return CellFailure{sample_arm_of(f), f.count("round"), f.string("description"), f.string("stderr_tail", ""), false,
                     hook_from(f)};
}

} // namespace

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
    if (std::isnan(value)) {
      continue; // a counted metric this sample has no count of
    }
    j[std::string(metric.name)] =
        metric.integral ? nlohmann::json(static_cast<std::int64_t>(value)) : nlohmann::json(value);
  }
  if (o.termination == model::Termination::signaled) {
    j["signal"] = o.signal;
  }
  if (!sample.values.empty()) {
    j["values"] = sample.values;
  }
  if (!sample.problem.empty()) {
    j["problem"] = sample.problem;
  }
  for (const auto& benchmark : sample.benchmarks) {
    nlohmann::json entry{{"name", benchmark.name}, {"values", benchmark.values}};
    if (!benchmark.error.empty()) {
      entry["error"] = benchmark.error;
    }
    if (!benchmark.uncounted.empty()) {
      entry["uncounted"] = benchmark.uncounted;
    }
    j["benchmarks"].push_back(std::move(entry));
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

void JournalWriter::header(const report::RunHeader& header, const std::vector<CellSpec>& cells) {
  m_journal.append(journal_header(header, cells));
}

void JournalWriter::sample(const Sample& sample, const std::vector<CellRecord>& cells) {
  m_journal.append(to_json(sample, cells));
}

void JournalWriter::hook(const HookRun& run, const CellRecord& cell) {
  nlohmann::json line{{"type", "hook"}, {"arm", arm_name(run.arm)}, {"hook", hook_name(run.hook)}, {"round", run.round},
                      {"ok", run.ok},   {"wall", run.wall}};
  if (!run.ok) {
    line["description"] = run.description;
    line["stderr_tail"] = run.stderr_tail;
  }
  name_cell(line, cell);
  m_journal.append(line);
}

void JournalWriter::control_added(const CellRecord& control, const std::string& of) {
  m_journal.append(
      {{"type", "cell"}, {"name", control.name}, {"control", true}, {"of", of}, {"meta", to_json(control.meta)}});
}

void JournalWriter::stopped(const CellRecord& cell) {
  nlohmann::json line{{"type", "stop"}, {"reason", stop_reason_name(cell.stop)}, {"rounds", cell.rounds}};
  name_cell(line, cell);
  m_journal.append(line);
}

void JournalWriter::tree_changed(int round, const std::string& change) {
  m_journal.append({{"type", "tree_changed"}, {"round", round}, {"change", change}});
}

void read_cells(const util::JsonFields& document, RunRecord& record) {
  const auto cells = document.part("cells", true, true);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const Fields cell = document.inner(cells[c], fmt::format("cells[{}]", c));
    const std::size_t index = record.cells.size();
    record.cells.push_back({cell.string("name"), cell.boolean("control", false),
                            parse_stop_reason(cell.string("stop_reason", "")).value_or(StopReason::running),
                            cell.count("rounds", 0), failure_from(cell), meta_from(cell)});
    const auto samples = cell.part("samples", true, true);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      record.samples.push_back(
          sample_from(cell.inner(samples[i], fmt::format("{}[{}]", cell.name("samples"), i)), index));
    }
  }
}

namespace {

// The run a journal's lines build up, one line at a time (docs/manual/output-files.md details): each line type is one
// method.
class JournalReader {
public:
  JournalReader() { m_run.partial = true; }

  // Takes in line `j` of `type` (`parsed` is its whole JSON).
  void take(const Fields& j, const std::string& type, const nlohmann::json& parsed) {
    if (type == "header") {
      header(j, parsed);
    } else if (type == "sample") {
      sample(j);
    } else if (type == "cell") { // a cell added during the run (the automatic A/A control)
      auto meta = meta_from(j);
      auto& added = m_run.record.cells[cell_named(j.string("name"), meta.candidate)];
      added.control = j.boolean("control", false);
      added.meta = std::move(meta);
    } else if (type == "hook") {
      hook(j);
    } else if (type == "tree_changed") {
      tree_changed(j);
    } else if (type == "stop") {
      auto& cell = m_run.record.cells[cell_of(j)];
      cell.stop = parse_stop_reason(j.string("reason")).value_or(StopReason::running);
    }
  }

  // The run read; a journal without a stop line for every cell is a run that was killed.
  ReadJournal finish() && {
    m_run.partial = m_run.record.cells.empty() ||
                    std::any_of(m_run.record.cells.begin(), m_run.record.cells.end(),
                                [](const CellRecord& c) { return c.stop == StopReason::interrupted; });
    return std::move(m_run);
  }

private:
  // The index of the cell `name` of `candidate` (a cell is its name and, in
  // a run of several candidates, its candidate), added when new.
  std::size_t cell_named(const std::string& name, const std::string& candidate) {
    auto [it, inserted] = m_cell_index.try_emplace({name, candidate}, m_run.record.cells.size());
    if (inserted) {
      m_run.record.cells.push_back({name, false, StopReason::interrupted, 0, std::nullopt});
      m_run.record.cells.back().meta.candidate = candidate;
    }
    return it->second;
  }
  std::size_t cell_of(const Fields& line) { return cell_named(line.string("cell"), line.string("candidate", "")); }

  void header(const Fields& j, const nlohmann::json& parsed) {
    m_run.header = parsed;
    const auto cells = j.part("cells", true, false);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const Fields cell = j.inner(cells[c], fmt::format("cells[{}]", c));
      auto meta = meta_from(cell);
      auto& read = m_run.record.cells[cell_named(cell.string("name"), meta.candidate)];
      read.control = cell.boolean("control", false);
      read.meta = std::move(meta);
    }
  }

  // A sample; the first failed or unusable one is its cell's failure.
  void sample(const Fields& j) {
    auto sample = sample_from(j, cell_of(j));
    auto& cell = m_run.record.cells[sample.cell];
    cell.rounds = std::max(cell.rounds, sample.round);
    if (!model::succeeded(sample.outcome) && !cell.failure &&
        sample.outcome.termination != model::Termination::cancelled) {
      std::string what = sample.outcome.termination == model::Termination::timed_out
                             ? std::string("timed out")
                             : model::describe(sample.outcome, {});
      cell.failure = CellFailure{sample.arm, sample.round, what, sample.outcome.stderr_tail, false};
    } else if (!sample.problem.empty() && !cell.failure) {
      cell.failure = CellFailure{sample.arm, sample.round, sample.problem, sample.outcome.stderr_tail, false};
    }
    m_run.record.samples.push_back(std::move(sample));
  }

  // A setup, prepare or cleanup hook ran; a failed one is its cell's failure.
  void hook(const Fields& j) {
    auto& cell = m_run.record.cells[cell_of(j)];
    const auto hook = hook_from(j);
    if (!j.boolean("ok", true) && !cell.failure) {
      cell.failure = CellFailure{
          sample_arm_of(j), j.count("round"), j.string("description", ""), j.string("stderr_tail", ""), false, hook};
    }
  }

  // The arms' trees changed: every cell is an ERROR naming it.
  void tree_changed(const Fields& j) {
    const int round = j.count("round");
    const auto change = j.string("change");
    for (auto& cell : m_run.record.cells) {
      if (!cell.failure) {
        cell.failure = CellFailure{Arm::baseline, round, change, "", false, std::string(k_tree_check)};
      }
      cell.stop = StopReason::error;
    }
  }

  ReadJournal m_run;
  std::map<std::pair<std::string, std::string>, std::size_t> m_cell_index;
};

} // namespace

ReadJournal read_journal(const std::string& text, const std::string& source) {
  JournalReader reader;
  const std::string_view body = util::without_bom(text);
  std::size_t line_number = 0;
  std::size_t start = 0;
  bool have_header = false;
  while (start < body.size()) {
    std::size_t end = body.find('\n', start);
    const bool torn = end == std::string::npos; // the last write of a killed run
    const std::string_view line = body.substr(start, torn ? std::string::npos : end - start);
    start = torn ? body.size() : end + 1;
    ++line_number;
    if (line.empty()) {
      continue;
    }
    const std::string where = fmt::format("{}:{}", source, line_number);
    auto parsed = util::parse_json(line);
    if (!parsed) {
      if (torn) {
        break;
      }
      throw UsageError(fmt::format("{}: not a refbench journal line: {}", where, parsed.error()), k_run_file_hint);
    }
    const Fields j(*parsed, where, "", k_run_file_hint);
    const std::string type = j.string("type");
    if (!have_header && type != "header") {
      throw UsageError(where + ": not a refbench journal (no header line before it)", k_run_file_hint);
    }
    have_header = true;
    reader.take(j, type, *parsed);
  }
  if (!have_header) {
    throw UsageError(source + ": not a refbench journal (no header line)", k_run_file_hint);
  }
  return std::move(reader).finish();
}

bool looks_like_journal(const std::string& path, const std::string& text) {
  const std::string_view body = util::without_bom(text);
  const auto first = body.find_first_not_of(" \t\r\n");
  return path.ends_with(".jsonl") || (first != std::string::npos && body[first] == '{' && body.find("\"type\"") < 64);
}

} // namespace refbench::formats
