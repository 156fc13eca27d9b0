#include "round_runner.hpp"

#include <refbench/process/counters.hpp>
#include <refbench/profile/callgrind.hpp>
#include <refbench/profile/diff.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <numeric>

namespace refbench::runner::detail {
namespace {

// One dump of a counted suite run holds the few functions one run of a
// benchmark's loop calls; more than this is no file valgrind wrote.
constexpr std::size_t k_max_dump_file_bytes = std::size_t{256} << 20;

// The dumps one process of the counted run wrote, by their number.
using ProcessDumps = std::map<std::uint64_t, std::filesystem::path>;

// The main thread's dumps in `dir` ("callgrind.PID.N-01"), by PID; the
// other threads' files and those without ".N" (what ran after the last
// dump) are left out.
std::expected<std::map<std::uint64_t, ProcessDumps>, std::string> dump_files(const std::filesystem::path& dir) {
  std::map<std::uint64_t, ProcessDumps> processes;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view main_thread = "-01";
    if (!name.starts_with(process::k_profile_prefix) || !name.ends_with(main_thread)) {
      continue;
    }
    const std::string_view rest = std::string_view(name).substr(
        process::k_profile_prefix.size(), name.size() - process::k_profile_prefix.size() - main_thread.size());
    std::uint64_t pid = 0;
    std::uint64_t part = 0;
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos ||
        std::from_chars(rest.data(), rest.data() + dot, pid).ptr != rest.data() + dot ||
        std::from_chars(rest.data() + dot + 1, rest.data() + rest.size(), part).ptr != rest.data() + rest.size()) {
      continue;
    }
    processes[pid][part] = it->path();
  }
  if (error) {
    return std::unexpected(fmt::format("cannot read the counts in {}: {}", dir.string(), error.message()));
  }
  return processes;
}

// One dump file: what triggered it and what it counted.
std::expected<suites::CallDump, std::string> read_dump(const std::filesystem::path& file) {
  profile::Profile profile;
  profile::CallgrindReader reader(profile);
  suites::CallDump dump;
  std::string problem;
  auto read = util::read_lines(
      file,
      [&](std::string_view line, std::size_t number) {
        constexpr std::string_view trigger = "desc: Trigger: --dump-before=";
        if (line.starts_with(trigger)) {
          dump.trigger = std::string(line.substr(trigger.size()));
        }
        if (problem.empty()) {
          if (auto ok = reader.line(line); !ok) {
            problem = fmt::format("line {}: {}", number, ok.error());
          }
        }
      },
      k_max_dump_file_bytes, util::Readable::regular_here);
  if (read && problem.empty()) {
    if (auto ok = reader.finish(); !ok) {
      problem = ok.error();
    }
  }
  if (!read || !problem.empty()) {
    return std::unexpected(
        fmt::format("cannot read the count {}: {}", file.filename().string(), read ? problem : read.error()));
  }
  dump.instructions = profile.total;
  const auto sites = profile::allocation_sites(profile);
  dump.allocations =
      std::accumulate(sites.begin(), sites.end(), 0.0, [](double sum, const auto& site) { return sum + site.second; });
  return dump;
}

// The dumps of the one process that ran the benchmarks' loops (a wrapper
// script's own process dumps nothing), in the order they were made.
std::expected<std::vector<suites::CallDump>, std::string> read_dumps(const std::filesystem::path& dir) {
  auto processes = dump_files(dir);
  if (!processes) {
    return std::unexpected(processes.error());
  }
  std::vector<std::vector<suites::CallDump>> dumped;
  for (const auto& [pid, files] : *processes) {
    std::vector<suites::CallDump> dumps;
    for (const auto& [part, file] : files) {
      auto dump = read_dump(file);
      if (!dump) {
        return std::unexpected(dump.error());
      }
      dumps.push_back(std::move(*dump));
    }
    dumped.push_back(std::move(dumps));
  }
  if (dumped.size() > 1) {
    return std::unexpected(fmt::format("{} processes of its command ran benchmarks under callgrind: count a command "
                                       "that runs its benchmarks in one process",
                                       dumped.size()));
  }
  return dumped.empty() ? std::vector<suites::CallDump>{} : std::move(dumped.front());
}

// The counted readings of `counted` that a suite's rows carry.
std::vector<std::pair<model::Reading, std::string_view>>
benchmark_readings(const std::vector<model::Reading>& counted) {
  std::vector<std::pair<model::Reading, std::string_view>> readings;
  for (const auto reading : counted) {
    if (reading == model::Reading::instructions) {
      readings.emplace_back(reading, "instructions");
    } else if (reading == model::Reading::allocations) {
      readings.emplace_back(reading, "allocations");
    }
  }
  return readings;
}

} // namespace

std::optional<Counts> RoundRunner::count_benchmarks(Slot slot, int round) {
  const model::CellSpec& spec = m_cells[slot.cell];
  const auto& counting = suites::harness_info(spec.meta.suite->harness).counting;
  model::Invocation invocation = invocation_of(slot);
  invocation.env.push_back("REFBENCH_PAD=");
  if (counting) {
    invocation.argv.insert(invocation.argv.end(), counting->arguments.begin(), counting->arguments.end());
  }
  const std::string output = fresh_output(slot, round, invocation);
  const bool reads_file = model::reads_output_file(spec.meta);
  // every benchmark the harness ran, --cells' picks or not: the dumps are of all of them, in its order
  model::CellMeta every_benchmark = spec.meta;
  every_benchmark.rows.clear();
  if (!run_hook(slot, model::Hook::prepare, round)) {
    return std::nullopt;
  }
  check_links(round);
  const std::filesystem::path dir = m_settings.counts_dir;
  std::string problem;
  model::Sample sample{.cell = slot.cell, .arm = slot.arm, .round = round};
  if (!counting) {
    problem = suites::why_not_counted(spec.meta.suite->harness, "instructions");
  } else if (!m_settings.counter) {
    problem = "could not be counted: the run has no instruction counter";
  } else if (dir.empty() || !process::clear_counts(dir)) {
    problem = fmt::format("could not be counted: cannot empty {}", dir.string());
  } else {
    auto dumped = process::dumped_invocation(invocation, *m_settings.counter, dir, counting->dumps,
                                             invocation.timeout * process::k_counted_slowdown);
    dumped.capture_stdout = !reads_file;
    sample.outcome = m_executor.run(dumped);
    if (!model::succeeded(sample.outcome)) {
      problem = model::describe(sample.outcome, dumped.timeout);
    } else if (read_report(every_benchmark, sample, reads_file ? output : std::string()); !sample.problem.empty()) {
      problem = sample.problem;
    }
  }
  if (!output.empty()) {
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
  }
  auto dumps = problem.empty() ? read_dumps(dir) : std::vector<suites::CallDump>{};
  if (!dumps) {
    problem = dumps.error();
  }
  if (!problem.empty()) {
    if (!m_record.cells[slot.cell].failure) {
      m_record.cells[slot.cell].failure = model::CellFailure{
          slot.arm, round, problem, sample.outcome.stderr_tail, false, std::string(model::k_counted_run)};
    }
    stop(slot.cell, model::StopReason::error);
    return std::nullopt;
  }
  Counts counts;
  for (const auto& counted : counting->attribute(*dumps, sample.benchmarks)) {
    if (!counted.problem.empty()) {
      counts.uncounted[counted.name] = counted.problem;
      continue;
    }
    auto& readings = counts.benchmarks[counted.name];
    for (const auto& [reading, measure] : benchmark_readings(spec.counted)) {
      readings[reading] = measure == "instructions" ? counted.instructions : counted.allocations;
    }
  }
  return counts;
}

void RoundRunner::add_benchmark_counts(model::Sample& sample, const Counts& counts) const {
  const auto readings = benchmark_readings(m_cells[sample.cell].counted);
  if (readings.empty() || (counts.benchmarks.empty() && counts.uncounted.empty())) {
    return;
  }
  for (auto& benchmark : sample.benchmarks) {
    if (auto counted = counts.benchmarks.find(benchmark.name); counted != counts.benchmarks.end()) {
      for (const auto& [reading, measure] : readings) {
        benchmark.values[std::string(measure)] = counted->second.at(reading);
      }
    } else if (auto why = counts.uncounted.find(benchmark.name); why != counts.uncounted.end()) {
      benchmark.uncounted = why->second;
    } else {
      benchmark.uncounted = "the counted run did not report it";
    }
  }
}

} // namespace refbench::runner::detail
