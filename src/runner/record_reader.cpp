#include <refbench/runner/journal.hpp>
#include <refbench/runner/record_reader.hpp>
#include <refbench/util/error.hpp>

#include <fmt/format.h>
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

StopReason stop_from(const std::string& reason) {
  for (auto r : {StopReason::precision, StopReason::max_rounds, StopReason::budget, StopReason::error,
                 StopReason::interrupted, StopReason::aborted}) {
    if (stop_reason_name(r) == reason) {
      return r;
    }
  }
  return StopReason::running;
}

// A sample object (journal line or results.json entry) as a Sample of `cell`.
Sample sample_from(const nlohmann::json& j, std::size_t cell) {
  Sample s;
  s.cell = cell;
  s.arm = j.at("arm").get<std::string>() == "candidate" ? Arm::candidate : Arm::baseline;
  s.round = j.at("round").get<int>();
  s.order = j.at("order").get<std::size_t>();
  auto& o = s.outcome;
  o.termination = termination_from(j.at("status").get<std::string>());
  o.exit_code = j.value("exit_code", 0);
  o.signal = j.value("signal", 0);
  o.wall_seconds = j.at("wall").get<double>();
  o.user_seconds = j.at("user").get<double>();
  o.sys_seconds = j.at("sys").get<double>();
  o.peak_rss_bytes = j.at("rss").get<std::int64_t>();
  o.rss_floor_bytes = j.value("rss_floor", std::int64_t{0});
  o.stderr_tail = j.value("stderr_tail", std::string());
  s.values = j.value("values", std::map<std::string, double>{});
  s.problem = j.value("problem", std::string());
  return s;
}

std::optional<CellFailure> failure_from(const nlohmann::json& cell) {
  if (!cell.contains("failure")) {
    return std::nullopt;
  }
  const auto& f = cell["failure"];
  return CellFailure{f.at("arm").get<std::string>() == "candidate" ? Arm::candidate : Arm::baseline,
                     f.at("round").get<int>(), f.at("description").get<std::string>(),
                     f.value("stderr_tail", std::string()), false};
}

} // namespace

ReadRun read_results(const nlohmann::json& document, const std::string& source) {
  try {
    ReadRun run;
    run.record.seed = document.at("seed").get<std::uint64_t>();
    run.record.rss = {document.at("rss").at("method").get<std::string>(),
                      document.at("rss").at("floor_bytes").get<std::int64_t>(),
                      document.at("rss").value("spawn_resolution_seconds", 0.0)};
    run.record.elapsed_seconds = document.value("elapsed_seconds", 0.0);
    run.settings = document.at("settings");
    run.arms = document.value("arms", nlohmann::json::object());
    run.environment = document.value("environment", nlohmann::json::object());
    run.partial = document.value("partial", false);
    run.header = document;
    for (const auto& cell : document.at("cells")) {
      std::size_t index = run.record.cells.size();
      run.record.cells.push_back({cell.at("name").get<std::string>(), cell.value("control", false),
                                  stop_from(cell.value("stop_reason", std::string())), cell.value("rounds", 0),
                                  failure_from(cell), cell_meta_from_json(cell.value("meta", nlohmann::json()))});
      for (const auto& sample : cell.at("samples")) {
        run.record.samples.push_back(sample_from(sample, index));
      }
    }
    return run;
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(fmt::format("{}: not a refbench results.json: {}", source, error.what()),
                     "pass a results.json or journal.jsonl written by refbench");
  }
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
  std::size_t line_number = 0;
  std::size_t start = 0;
  bool have_header = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool torn = end == std::string::npos; // the last write of a killed run
    std::string line = text.substr(start, torn ? std::string::npos : end - start);
    start = torn ? text.size() : end + 1;
    ++line_number;
    if (line.empty()) {
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
      const std::string type = j.at("type").get<std::string>();
      if (!have_header && type != "header") {
        throw UsageError(fmt::format("{}:{}: not a refbench journal (no header line before it)", source, line_number),
                         "pass a journal.jsonl written by refbench");
      }
      if (type == "header") {
        have_header = true;
        run.header = j;
        run.record.seed = j.at("seed").get<std::uint64_t>();
        run.record.rss = {j.at("rss").at("method").get<std::string>(),
                          j.at("rss").at("floor_bytes").get<std::int64_t>(),
                          j.at("rss").value("spawn_resolution_seconds", 0.0)};

        run.settings = j.at("settings");
        run.arms = {{"baseline", {{"command", j.value("baseline", std::string())}}},
                    {"candidate", {{"command", j.value("candidate", std::string())}}}};
        run.environment = j.value("environment", nlohmann::json::object());
        for (const auto& cell : j.value("cells", nlohmann::json::array())) {
          auto& read = run.record.cells[cell_of(cell.at("name").get<std::string>())];
          read.control = cell.value("control", false);
          read.meta = cell_meta_from_json(cell.value("meta", nlohmann::json()));
        }
      } else if (type == "sample") {
        auto sample = sample_from(j, cell_of(j.at("cell").get<std::string>()));
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
        auto& added = run.record.cells[cell_of(j.at("name").get<std::string>())];
        added.control = j.value("control", false);
        added.meta = cell_meta_from_json(j.value("meta", nlohmann::json()));
      } else if (type == "stop") {
        auto& cell = run.record.cells[cell_of(j.at("cell").get<std::string>())];
        cell.stop = stop_from(j.at("reason").get<std::string>());
      }
    } catch (const nlohmann::json::exception& error) {
      if (torn) {
        break;
      }
      throw UsageError(fmt::format("{}:{}: not a refbench journal line: {}", source, line_number, error.what()),
                       "pass a journal.jsonl written by refbench");
    }
  }
  if (!have_header) {
    throw UsageError(source + ": not a refbench journal (no header line)", "pass a journal.jsonl written by refbench");
  }
  // a journal without a stop line for every cell is a run that was killed
  run.partial =
      run.record.cells.empty() || std::any_of(run.record.cells.begin(), run.record.cells.end(),
                                              [](const CellRecord& c) { return c.stop == StopReason::interrupted; });
  return run;
}

bool looks_like_journal(const std::string& path, const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return path.ends_with(".jsonl") || (first != std::string::npos && text[first] == '{' && text.find("\"type\"") < 64);
}

ReadRun read_run(const std::string& path, const std::string& text) {
  if (looks_like_journal(path, text)) {
    return read_journal(text, path);
  }
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw UsageError(fmt::format("{}: invalid JSON at byte {}: {}", path, error.byte, error.what()),
                     "pass a results.json or journal.jsonl written by refbench");
  }
  return read_results(document, path);
}

} // namespace refbench::runner
