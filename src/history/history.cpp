#include <refbench/formats/results_json.hpp>
#include <refbench/history/history.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/fd.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/sha256.hpp>
#include <refbench/util/strings.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace refbench::history {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

std::optional<double> finite(double value) { return std::isfinite(value) ? std::optional(value) : std::nullopt; }

// The ArmInfo of the candidate a result row belongs to.
const report::ArmInfo* candidate_of(const report::RunHeader& header, const analysis::MetricResult& r) {
  for (const auto& arm : header.candidates) {
    if (arm.label() == r.candidate) {
      return &arm;
    }
  }
  return header.candidate ? &*header.candidate : nullptr;
}

// A member of `line` that must be a string.
std::optional<std::string> text_member(const json& line, const char* key, std::string& problem) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_string()) {
    problem = fmt::format("\"{}\" is missing or not a string", key);
    return std::nullopt;
  }
  return it->get<std::string>();
}

// A member that is a number or null; false (with `problem`) for anything else.
bool number_member(const json& line, const char* key, std::optional<double>& out, std::string& problem) {
  const auto it = line.find(key);
  if (it == line.end() || it->is_null()) {
    out.reset();
    return true;
  }
  if (!it->is_number()) {
    problem = fmt::format("\"{}\" is not a number", key);
    return false;
  }
  out = it->get<double>();
  return true;
}

std::optional<ArmRef> arm_member(const json& line, const char* key, std::string& problem) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_object()) {
    problem = fmt::format("\"{}\" is missing or not an object", key);
    return std::nullopt;
  }
  auto ref = text_member(*it, "ref", problem);
  auto sha = text_member(*it, "sha", problem);
  if (!ref || !sha) {
    problem = fmt::format("\"{}\": {}", key, problem);
    return std::nullopt;
  }
  return ArmRef{*ref, *sha};
}

// The run_ids already in the file open as `fd`.
std::set<std::string> run_ids_in(int fd) {
  std::set<std::string> ids;
  std::string text;
  char buffer[65536];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(got));
  }
  for (const auto& line : util::split(text, '\n')) {
    if (auto parsed = util::parse_json(line);
        parsed && parsed->is_object() && parsed->contains("run_id") && (*parsed)["run_id"].is_string()) {
      ids.insert((*parsed)["run_id"].get<std::string>());
    }
  }
  return ids;
}

} // namespace

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::vector<Record> records_of(const report::RunDocument& document, const std::string& time,
                               const std::string& repository) {
  const std::string run_id = util::sha256_hex(formats::to_json(document).dump()).substr(0, 16);
  const auto& h = document.header;
  const auto& env = h.environment;
  std::vector<Record> records;
  for (const auto& r : document.results) {
    if (r.control || r.candidate_only) {
      continue;
    }
    Record record;
    record.time = time;
    record.run_id = run_id;
    record.repository = repository;
    record.baseline = h.baseline ? ArmRef{h.baseline->ref, h.baseline->sha} : ArmRef{};
    const auto* candidate = candidate_of(h, r);
    record.candidate = candidate ? ArmRef{candidate->ref, candidate->sha} : ArmRef{};
    record.cell = r.cell;
    record.metric = r.metric;
    record.gated = r.gated;
    record.higher_is_better = r.direction == analysis::Direction::higher_is_better;
    record.unit = r.unit_label.empty() ? std::string(analysis::unit_name(r.unit)) : r.unit_label;
    if (r.kind == model::MetricKind::ratio) {
      record.ratio = finite(r.ratio);
      record.ci_low = finite(r.ci_low);
      record.ci_high = finite(r.ci_high);
    }
    record.verdict = std::string(stats::verdict_name(r.verdict));
    record.baseline_median = finite(r.baseline_median);
    record.candidate_median = finite(r.candidate_median);
    record.n = r.n;
    if (std::isfinite(r.threshold) && r.threshold > 0 && r.threshold != h.settings.threshold) {
      record.threshold = r.threshold;
    }
    if (env) {
      record.cpu_model = env->cpu_model;
      record.cpus = env->cpus;
      record.kernel = env->kernel;
    }
    records.push_back(std::move(record));
  }
  return records;
}

json to_json(const Record& r) {
  json machine{{"cpu_model", r.cpu_model}, {"kernel", r.kernel}};
  machine["cpus"] = r.cpus ? json(*r.cpus) : json(nullptr);
  return json{{"schema_version", k_history_version},
              {"time", r.time},
              {"run_id", r.run_id},
              {"repository", r.repository},
              {"baseline", {{"ref", r.baseline.ref}, {"sha", r.baseline.sha}}},
              {"candidate", {{"ref", r.candidate.ref}, {"sha", r.candidate.sha}}},
              {"cell", r.cell},
              {"metric", r.metric},
              {"gated", r.gated},
              {"better", r.higher_is_better ? "higher" : "lower"},
              {"unit", r.unit},
              {"ratio", optional_number(r.ratio)},
              {"ci_low", optional_number(r.ci_low)},
              {"ci_high", optional_number(r.ci_high)},
              {"verdict", r.verdict},
              {"baseline_median", optional_number(r.baseline_median)},
              {"candidate_median", optional_number(r.candidate_median)},
              {"n", r.n},
              {"threshold", optional_number(r.threshold)},
              {"machine", machine}};
}

std::optional<Record> record_from_json(const json& line, std::string& problem) {
  if (!line.is_object()) {
    problem = "not a JSON object";
    return std::nullopt;
  }
  Record r;
  auto time = text_member(line, "time", problem);
  auto run_id = text_member(line, "run_id", problem);
  auto repository = text_member(line, "repository", problem);
  auto cell = text_member(line, "cell", problem);
  auto metric = text_member(line, "metric", problem);
  auto verdict = text_member(line, "verdict", problem);
  auto baseline = arm_member(line, "baseline", problem);
  auto candidate = arm_member(line, "candidate", problem);
  if (!time || !run_id || !repository || !cell || !metric || !verdict || !baseline || !candidate) {
    return std::nullopt;
  }
  r.time = std::move(*time);
  r.run_id = std::move(*run_id);
  r.repository = std::move(*repository);
  r.cell = std::move(*cell);
  r.metric = std::move(*metric);
  r.verdict = std::move(*verdict);
  r.baseline = std::move(*baseline);
  r.candidate = std::move(*candidate);
  r.gated = line.contains("gated") && line["gated"].is_boolean() && line["gated"].get<bool>();
  r.higher_is_better = line.contains("better") && line["better"] == "higher";
  r.unit = line.contains("unit") && line["unit"].is_string() ? line["unit"].get<std::string>() : "";
  for (auto [key, out] : {std::pair{"ratio", &r.ratio}, std::pair{"ci_low", &r.ci_low},
                          std::pair{"ci_high", &r.ci_high}, std::pair{"baseline_median", &r.baseline_median},
                          std::pair{"candidate_median", &r.candidate_median}, std::pair{"threshold", &r.threshold}}) {
    if (!number_member(line, key, *out, problem)) {
      return std::nullopt;
    }
  }
  for (auto [key, value] :
       {std::pair{"ratio", r.ratio}, std::pair{"ci_low", r.ci_low}, std::pair{"ci_high", r.ci_high}}) {
    if (value && !(std::isfinite(*value) && *value > 0)) { // a ratio is positive: the line was not written by refbench
      problem = fmt::format("\"{}\" is {}, not a positive ratio", key, *value);
      return std::nullopt;
    }
  }
  if (r.ci_low && r.ci_high && *r.ci_low > *r.ci_high) {
    problem = fmt::format("\"ci_low\" {} is above \"ci_high\" {}", *r.ci_low, *r.ci_high);
    return std::nullopt;
  }
  if (line.contains("n") && line["n"].is_number_unsigned()) {
    r.n = line["n"].get<std::size_t>();
  }
  if (const auto machine = line.find("machine"); machine != line.end() && !machine->is_null()) {
    // what a reader of the record's machine needs: strings and a CPU count, or the line is skipped
    const auto* cpu_model = util::json_member(*machine, "cpu_model");
    const auto* kernel = util::json_member(*machine, "kernel");
    const auto* cpus = util::json_member(*machine, "cpus");
    if (!machine->is_object() || (cpu_model && !cpu_model->is_string()) || (kernel && !kernel->is_string()) ||
        (cpus && !(cpus->is_number_unsigned() && cpus->get<std::uint64_t>() <= 1u << 20))) {
      problem = "\"machine\" is not an object of strings \"cpu_model\", \"kernel\" and a count \"cpus\"";
      return std::nullopt;
    }
    r.cpu_model = cpu_model ? cpu_model->get<std::string>() : std::string();
    r.kernel = kernel ? kernel->get<std::string>() : std::string();
    if (cpus) {
      r.cpus = static_cast<int>(cpus->get<std::uint64_t>());
    }
  }
  return r;
}

bool append(const fs::path& dir, const std::vector<Record>& records) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path path = dir / k_history_file;
  const util::Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    throw RefusedError(fmt::format("cannot open the history {}: {}", path.string(), std::strerror(errno)),
                       errno == ELOOP ? "history.jsonl is a symlink: remove it, history is a plain file"
                                      : "pass a writable --history directory");
  }
  if (::flock(fd.get(), LOCK_EX) != 0) { // concurrent local runs append one after the other
    throw RefusedError(fmt::format("cannot lock the history {}: {}", path.string(), std::strerror(errno)),
                       "check the --history directory's filesystem");
  }
  if (records.empty() || run_ids_in(fd.get()).contains(records.front().run_id)) {
    return false;
  }
  struct stat before {};
  ::fstat(fd.get(), &before);
  std::string text;
  if (before.st_size > 0) { // a torn last line stays its own, broken line
    char last = '\n';
    if (::pread(fd.get(), &last, 1, before.st_size - 1) == 1 && last != '\n') {
      text += '\n';
    }
  }
  for (const auto& record : records) {
    text += to_json(record).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  if (!util::write_all(fd.get(), text.data(), text.size())) {
    const int saved = errno;
    [[maybe_unused]] int ignored = ::ftruncate(fd.get(), before.st_size); // nothing partial
    throw MeasurementError(fmt::format("cannot append to the history {}: {}", path.string(), std::strerror(saved)),
                           util::out_of_space(saved) ? "free some disk space and rerun"
                                                     : "check the --history directory");
  }
  return true;
}

History read_history(const fs::path& dir, const std::optional<std::string>& repository) {
  History history;
  const fs::path path = dir / k_history_file;
  if (!fs::exists(fs::symlink_status(path))) {
    return history;
  }
  if (fs::is_symlink(fs::symlink_status(path))) {
    throw RefusedError(path.string() + " is a symlink", "history.jsonl is a plain file: remove the link");
  }
  std::optional<std::string> expected = repository;
  std::error_code size_error;
  const auto bytes = fs::file_size(path, size_error);
  // a line holds ≥ 256 bytes of members: room for every record, in pages touched only when filled
  history.records.reserve(size_error ? 0 : std::min<std::uintmax_t>(bytes / 256 + 1, 1u << 22));
  const auto read = util::read_lines(path, [&](std::string_view text, std::size_t number) {
    if (util::trim(text).empty()) {
      return;
    }
    const auto where = [&] { return fmt::format("{}:{}", path.string(), number); };
    auto parsed = util::parse_json(text);
    if (!parsed) {
      history.warnings.push_back(fmt::format("{}: skipped, not a JSON line ({})", where(), parsed.error()));
      return;
    }
    if (parsed->is_object() && parsed->contains("schema_version") &&
        (*parsed)["schema_version"] != json(k_history_version)) {
      throw UsageError(fmt::format("{}: history schema_version {} is not {}, the one this refbench reads", where(),
                                   (*parsed)["schema_version"].dump(), k_history_version),
                       "read it with the refbench that wrote it, or start a new history");
    }
    std::string problem;
    auto record = record_from_json(*parsed, problem);
    if (!record) {
      history.warnings.push_back(fmt::format("{}: skipped, {}", where(), problem));
      return;
    }
    if (expected && record->repository != *expected) {
      throw UsageError(fmt::format("{}: a record of another repository (root commit {}, not {})", where(),
                                   util::printable(record->repository.substr(0, 12)), expected->substr(0, 12)),
                       "keep one history per repository");
    }
    expected = record->repository;
    record->line = number;
    history.records.push_back(std::move(*record));
  });
  if (!read) {
    throw RefusedError(fmt::format("cannot read the history {}: {}", path.string(), read.error()),
                       "check the --history directory");
  }
  return history;
}

} // namespace refbench::history
