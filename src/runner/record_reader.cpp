#include <refbench/runner/journal.hpp>
#include <refbench/runner/record_reader.hpp>
#include <refbench/util/error.hpp>

#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <climits>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace refbench::runner {
namespace {

process::Termination termination_from(const std::string& status) {
  if (status == "exited") {
    return process::Termination::exited;
  }
  if (status == "signaled") {
    return process::Termination::signaled;
  }
  if (status == "timed-out") {
    return process::Termination::timed_out;
  }
  if (status == "cancelled") {
    return process::Termination::cancelled;
  }
  return process::Termination::spawn_failed;
}

constexpr const char* k_hint = "pass a results.json or journal.jsonl written by refbench";
// Bounds far above any real run, so a corrupt count is refused before it
// sizes a loop or a table.
constexpr std::int64_t k_max_count = 100000000;
constexpr std::int64_t k_max_replicas = 1000;
constexpr double k_max_seconds = 1e9;
// The most shards a merge may list (as `run --shard K/N` accepts).
constexpr std::int64_t k_max_shards = 100000;

// Reads the members of one object of `where` ("FILE" or "FILE:LINE"),
// naming `path` (e.g. "cells[2].samples[0]") in every error.
class Fields {
public:
  Fields(const nlohmann::json& object, std::string where, std::string path)
      : m_object(object), m_where(std::move(where)), m_path(std::move(path)) {
    if (!object.is_object()) {
      fail(fmt::format("{} must be an object, got {}", m_path.empty() ? "the document" : m_path,
                       util::json_excerpt(object)));
    }
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError(fmt::format("{}: {}", m_where, problem), k_hint);
  }

  // `key` as it is named in messages and sub-paths.
  std::string name(std::string_view key) const {
    return m_path.empty() ? std::string(key) : fmt::format("{}.{}", m_path, key);
  }

  template <class T> T take(std::expected<T, std::string> value) const {
    if (!value) {
      fail(m_path.empty() ? value.error() : m_path + "." + value.error());
    }
    return *std::move(value);
  }

  std::string string(std::string_view key, std::optional<std::string> fallback = std::nullopt) const {
    return take(util::string_member(m_object, key, std::move(fallback)));
  }
  bool boolean(std::string_view key, bool fallback) const { return take(util::bool_member(m_object, key, fallback)); }
  std::int64_t integer(std::string_view key, std::int64_t low, std::int64_t high,
                       std::optional<std::int64_t> fallback = std::nullopt) const {
    return take(util::integer_member(m_object, key, low, high, fallback));
  }
  int count(std::string_view key, std::optional<int> fallback = std::nullopt) const {
    return static_cast<int>(integer(key, 0, INT_MAX, fallback));
  }
  double seconds(std::string_view key, std::optional<double> fallback = std::nullopt) const {
    return take(util::number_member(m_object, key, 0.0, k_max_seconds, fallback));
  }
  std::uint64_t seed() const { return take(util::unsigned_member(m_object, "seed")); }

  // The member `key`, which must be of `kind` ("object" or "array"); an
  // empty one of that kind when it is missing and `required` is false.
  nlohmann::json part(std::string_view key, bool is_array, bool required) const {
    auto it = m_object.find(key);
    if (it == m_object.end() || it->is_null()) {
      if (required) {
        fail(fmt::format("{} is missing", name(key)));
      }
      return is_array ? nlohmann::json::array() : nlohmann::json::object();
    }
    if (is_array ? !it->is_array() : !it->is_object()) {
      fail(fmt::format("{} must be an {}, got {}", name(key), is_array ? "array" : "object", util::json_excerpt(*it)));
    }
    return *it;
  }

  const nlohmann::json& object() const { return m_object; }

  // The fields of `object`, a part of this one named `path`.
  Fields inner(const nlohmann::json& object, std::string path) const {
    return Fields(object, m_where, std::move(path));
  }

private:
  const nlohmann::json& m_object;
  std::string m_where;
  std::string m_path;
};

Arm arm_of(const Fields& f) {
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

// The settings a run recorded, checked where analysis and the report read them.
nlohmann::json settings_from(const Fields& document) {
  auto settings = document.part("settings", false, true);
  const Fields f = document.inner(settings, document.name("settings"));
  f.integer("min_rounds", 1, k_max_count, 10);
  f.integer("max_rounds", 0, k_max_count, 0);
  f.integer("warmup", 0, k_max_count, 0);
  f.integer("replicas", 1, k_max_replicas, 1);
  f.seconds("budget_seconds", 0.0);
  // checked when present; the readers of the analysis settings fill in what is missing
  for (const auto& [key, low, high] :
       {std::tuple{"threshold", 1.0, 1e9}, {"alpha", 0.0, 1.0}, {"precision", 0.0, 1e9}}) {
    if (settings.contains(key)) {
      f.take(util::number_member(settings, key, low, high));
    }
  }
  f.string("interval", "signed-rank");
  check_strings(f, "metrics");
  check_strings(f, "gate");
  return settings;
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
  const auto custom = f.part("custom", true, false);
  for (std::size_t i = 0; i < custom.size(); ++i) {
    const Fields metric = f.inner(custom[i], fmt::format("{}[{}]", f.name("custom"), i));
    metric.string("name");
    metric.string("key");
    for (const char* key : {"from", "format", "better", "unit"}) {
      metric.string(key, "");
    }
  }
  return cell_meta_from_json(meta);
}

// A sample object (journal line or results.json entry) as a Sample of `cell`.
Sample sample_from(const Fields& f, std::size_t cell) {
  Sample s;
  s.cell = cell;
  s.arm = arm_of(f);
  s.round = f.count("round");
  s.order = static_cast<std::size_t>(f.integer("order", 0, k_max_count));
  auto& o = s.outcome;
  o.termination = termination_from(f.string("status"));
  o.exit_code = static_cast<int>(f.integer("exit_code", INT_MIN, INT_MAX, 0));
  o.signal = static_cast<int>(f.integer("signal", 0, 1024, 0));
  o.wall_seconds = f.seconds("wall");
  o.user_seconds = f.seconds("user");
  o.sys_seconds = f.seconds("sys");
  o.peak_rss_bytes = f.integer("rss", 0, INT64_MAX);
  o.rss_floor_bytes = f.integer("rss_floor", 0, INT64_MAX, 0);
  o.stderr_tail = f.string("stderr_tail", "");
  s.values = number_table(f, "values", -std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
  s.problem = f.string("problem", "");
  s.replica = static_cast<int>(f.integer("replica", 0, k_max_replicas, 0));
  return s;
}

std::optional<CellFailure> failure_from(const Fields& cell) {
  if (!cell.object().contains("failure") || cell.object()["failure"].is_null()) {
    return std::nullopt;
  }
  const auto failure = cell.part("failure", false, true);
  const Fields f = cell.inner(failure, cell.name("failure"));
  return CellFailure{arm_of(f), f.count("round"), f.string("description"), f.string("stderr_tail", ""), false};
}

// The rss probe of a header or results.json: method, floor and resolution.
process::RssProbe rss_from(const Fields& document) {
  const auto rss = document.part("rss", false, true);
  const Fields f = document.inner(rss, document.name("rss"));
  return {f.string("method"), f.integer("floor_bytes", 0, INT64_MAX), f.seconds("spawn_resolution_seconds", 0.0)};
}

// The header facts both kinds of file share: seed, rss, settings and the
// labels the report shows.
void header_from(const Fields& f, ReadRun& run) {
  run.record.seed = f.seed();
  run.record.rss = rss_from(f);
  run.settings = settings_from(f);
  for (const char* key : {"command", "reproduce"}) {
    f.string(key, "");
  }
  run.environment = f.part("environment", false, false);
}

// A merge's list of shards: index and count in range, so the report can
// count the missing ones.
void check_shards(const Fields& document) {
  const auto shards = document.part("shards", true, false);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Fields f = document.inner(shards[i], fmt::format("shards[{}]", i));
    f.integer("index", 1, k_max_shards, 1);
    f.integer("count", 1, k_max_shards, 1);
  }
}

} // namespace

ReadRun read_results(const nlohmann::json& document, const std::string& source) {
  const Fields f(document, source, "");
  ReadRun run;
  header_from(f, run);
  run.record.elapsed_seconds = f.seconds("elapsed_seconds", 0.0);
  run.arms = f.part("arms", false, false);
  run.partial = f.boolean("partial", false);
  check_shards(f);
  run.header = document;
  const auto cells = f.part("cells", true, true);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const Fields cell(cells[c], source, fmt::format("cells[{}]", c));
    const std::size_t index = run.record.cells.size();
    run.record.cells.push_back({cell.string("name"), cell.boolean("control", false),
                                parse_stop_reason(cell.string("stop_reason", "")).value_or(StopReason::running),
                                cell.count("rounds", 0), failure_from(cell), meta_from(cell)});
    const auto samples = cell.part("samples", true, true);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      run.record.samples.push_back(
          sample_from(Fields(samples[i], source, fmt::format("{}[{}]", cell.name("samples"), i)), index));
    }
  }
  return run;
}

ReadRun read_journal(const std::string& text, const std::string& source) {
  ReadRun run;
  run.partial = true;
  std::map<std::string, std::size_t> cell_index;
  auto cell_of = [&](const std::string& name) {
    auto [it, inserted] = cell_index.try_emplace(name, run.record.cells.size());
    if (inserted) {
      run.record.cells.push_back({name, false, StopReason::interrupted, 0, std::nullopt});
    }
    return it->second;
  };
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
      throw UsageError(fmt::format("{}: not a refbench journal line: {}", where, parsed.error()), k_hint);
    }
    const Fields j(*parsed, where, "");
    const std::string type = j.string("type");
    if (!have_header && type != "header") {
      throw UsageError(where + ": not a refbench journal (no header line before it)", k_hint);
    }
    if (type == "header") {
      have_header = true;
      run.header = *parsed;
      header_from(j, run);
      const auto baseline = j.string("baseline", "");
      const auto candidate = j.string("candidate", "");
      run.arms = {{"baseline", {{"command", baseline}}}, {"candidate", {{"command", candidate}}}};
      const auto cells = j.part("cells", true, false);
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const Fields cell = j.inner(cells[c], fmt::format("cells[{}]", c));
        auto& read = run.record.cells[cell_of(cell.string("name"))];
        read.control = cell.boolean("control", false);
        read.meta = meta_from(cell);
      }
    } else if (type == "sample") {
      auto sample = sample_from(j, cell_of(j.string("cell")));
      auto& cell = run.record.cells[sample.cell];
      cell.rounds = std::max(cell.rounds, sample.round);
      if (!process::succeeded(sample.outcome) && !cell.failure &&
          sample.outcome.termination != process::Termination::cancelled) {
        std::string what = sample.outcome.termination == process::Termination::timed_out
                               ? std::string("timed out")
                               : process::describe(sample.outcome, {});
        cell.failure = CellFailure{sample.arm, sample.round, what, sample.outcome.stderr_tail, false};
      } else if (!sample.problem.empty() && !cell.failure) {
        cell.failure = CellFailure{sample.arm, sample.round, sample.problem, sample.outcome.stderr_tail, false};
      }
      run.record.samples.push_back(std::move(sample));
    } else if (type == "cell") { // a cell added during the run (the automatic A/A control)
      auto& added = run.record.cells[cell_of(j.string("name"))];
      added.control = j.boolean("control", false);
      added.meta = meta_from(j);
    } else if (type == "stop") {
      auto& cell = run.record.cells[cell_of(j.string("cell"))];
      cell.stop = parse_stop_reason(j.string("reason")).value_or(StopReason::running);
    }
  }
  if (!have_header) {
    throw UsageError(source + ": not a refbench journal (no header line)", k_hint);
  }
  // a journal without a stop line for every cell is a run that was killed
  run.partial =
      run.record.cells.empty() || std::any_of(run.record.cells.begin(), run.record.cells.end(),
                                              [](const CellRecord& c) { return c.stop == StopReason::interrupted; });
  return run;
}

bool looks_like_journal(const std::string& path, const std::string& text) {
  const std::string_view body = util::without_bom(text);
  const auto first = body.find_first_not_of(" \t\r\n");
  return path.ends_with(".jsonl") || (first != std::string::npos && body[first] == '{' && body.find("\"type\"") < 64);
}

ReadRun read_run(const std::string& path, const std::string& text) {
  if (looks_like_journal(path, text)) {
    return read_journal(text, path);
  }
  auto document = util::parse_json(text);
  if (!document) {
    throw UsageError(fmt::format("{}: {}", path, document.error()), k_hint);
  }
  return read_results(*document, path);
}

} // namespace refbench::runner
