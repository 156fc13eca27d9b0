#include <refbench/process/counters.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/strings.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace refbench::process {
namespace {

// The cachegrind files of one counted invocation hold a few lines per
// function run; more than this is no file valgrind wrote.
constexpr std::size_t k_max_count_file_bytes = std::size_t{256} << 20;
constexpr std::string_view k_count_prefix = "cachegrind.";

// The first line `valgrind --version` prints, e.g. "valgrind-3.19.0".
std::string tool_version(const std::string& program) {
  Invocation version{.argv = {program, "--version"}, .timeout = std::chrono::seconds(10), .capture_stdout = true};
  const Outcome outcome = run_process(version);
  if (!succeeded(outcome)) {
    return "unknown (valgrind --version " + describe(outcome, version.timeout) + ")";
  }
  return std::string(util::trim(outcome.stdout_text.substr(0, outcome.stdout_text.find('\n'))));
}

std::string perf_hint(int error_number) {
  if (error_number == ENOENT || error_number == EOPNOTSUPP || error_number == ENODEV) {
    return " (no PMU under /sys/bus/event_source/devices: a VM or hosted runner)";
  }
  if (error_number == EACCES || error_number == EPERM) {
    return " (on a self-hosted runner: sysctl kernel.perf_event_paranoid=1)";
  }
  return "";
}

} // namespace

PerfProbe perf_probe() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof(attr);
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    const int error_number = errno;
    return {false, fmt::format("perf_event_open: {}{}", std::strerror(error_number), perf_hint(error_number))};
  }
  close(static_cast<int>(fd));
  return {true, "opened"};
}

std::expected<CounterTool, std::string> find_counter_tool(CounterSource source, const PerfProbe& probe,
                                                          std::string_view path) {
  if (source == CounterSource::perf) {
    return std::unexpected(fmt::format(
        "--counters perf: {}; this release counts through valgrind only: use --counters valgrind (apt-get install "
        "valgrind)",
        probe.available ? "perf_event_open works here, but counting in the launcher is not built yet" : probe.answer));
  }
  const auto program = find_executable("valgrind", path);
  if (!program) {
    if (source == CounterSource::valgrind) {
      return std::unexpected("--counters valgrind: valgrind is not on the PATH: install it (apt-get install valgrind)");
    }
    return std::unexpected(fmt::format(
        "no instruction counter here: valgrind is not on the PATH (apt-get install valgrind) and the perf source "
        "is not built yet ({})",
        probe.answer));
  }
  return CounterTool{CounterSource::valgrind, probe.answer, tool_version(*program), *program};
}

Invocation counted_invocation(const Invocation& invocation, const CounterTool& tool, const std::filesystem::path& dir) {
  Invocation counted = invocation;
  counted.argv = {tool.program,
                  "-q",
                  "--tool=cachegrind",
                  "--cache-sim=no",
                  "--trace-children=yes",
                  "--cachegrind-out-file=" + (dir / (std::string(k_count_prefix) + "%p")).string(),
                  "--log-file=" + (dir / "valgrind.%p.log").string()};
  counted.argv.insert(counted.argv.end(), invocation.argv.begin(), invocation.argv.end());
  counted.timeout = invocation.timeout * k_counted_slowdown;
  return counted;
}

bool clear_counts(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  return !error && std::filesystem::create_directories(dir, error) && !error;
}

std::expected<double, std::string> read_instruction_count(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::directory_iterator entries(dir, error);
  if (error) {
    return std::unexpected(fmt::format("cannot read the counts in {}: {}", dir.string(), error.message()));
  }
  double total = 0;
  std::size_t files = 0;
  for (const auto& entry : entries) {
    if (!entry.path().filename().string().starts_with(k_count_prefix)) {
      continue;
    }
    std::optional<double> summary;
    auto read = util::read_lines(
        entry.path(),
        [&](std::string_view line, std::size_t) {
          constexpr std::string_view prefix = "summary: ";
          std::uint64_t value = 0;
          if (line.starts_with(prefix) &&
              std::from_chars(line.data() + prefix.size(), line.data() + line.size(), value).ec == std::errc{}) {
            summary = static_cast<double>(value);
          }
        },
        k_max_count_file_bytes, util::Readable::regular_here);
    if (!read) {
      return std::unexpected(fmt::format("cannot read the count {}: {}", entry.path().string(), read.error()));
    }
    if (!summary) {
      return std::unexpected(
          fmt::format("valgrind's count {} has no summary line (did the process die under valgrind?)",
                      entry.path().filename().string()));
    }
    total += *summary;
    ++files;
  }
  if (files == 0) {
    return std::unexpected("valgrind wrote no count: the program did not run under valgrind");
  }
  return total;
}

} // namespace refbench::process
