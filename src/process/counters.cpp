#include <refbench/process/counters.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/enum_names.hpp>
#include <refbench/util/fd.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace refbench::process {
namespace {

// The cachegrind files of one counted invocation hold a few lines per
// function run; more than this is no file valgrind wrote.
constexpr std::size_t k_max_count_file_bytes = std::size_t{256} << 20;
constexpr std::string_view k_count_prefix = "cachegrind.";

// The first line `valgrind --version` prints, e.g. "valgrind-3.19.0".
std::string tool_version(const std::string& program) {
  model::Invocation version{
      .argv = {program, "--version"}, .timeout = std::chrono::seconds(10), .capture_stdout = true};
  const model::Outcome outcome = run_process(version);
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

namespace {

using FoundTool = std::expected<model::CounterTool, std::string>;

// Where counts come from, one row per model::CounterSource in its order:
// how each finds its counter on this machine, or says why it cannot.
struct CounterSourceInfo {
  model::CounterSource source;
  FoundTool (*find)(const PerfProbe& probe, std::string_view path);
};

// valgrind's cachegrind, found on `path`; `missing` when it is not there.
FoundTool valgrind_tool(const PerfProbe& probe, std::string_view path, std::string missing) {
  const auto program = find_executable("valgrind", path);
  if (!program) {
    return std::unexpected(std::move(missing));
  }
  return model::CounterTool{model::CounterSource::valgrind, probe.answer, tool_version(*program), *program};
}

constexpr std::array<CounterSourceInfo, 3> k_counter_sources{{
    {model::CounterSource::automatic, // valgrind when it is installed; perf counts in no release yet
     [](const PerfProbe& probe, std::string_view path) {
       return valgrind_tool(probe, path,
                            fmt::format("no instruction counter here: valgrind is not on the PATH (apt-get install "
                                        "valgrind) and the perf source is not built yet ({})",
                                        probe.answer));
     }},
    {model::CounterSource::perf,
     [](const PerfProbe& probe, std::string_view) -> FoundTool {
       return std::unexpected(fmt::format("--counters perf: {}; this release counts through valgrind only: use "
                                          "--counters valgrind (apt-get install valgrind)",
                                          probe.available
                                              ? "perf_event_open works here, but counting in the launcher is not "
                                                "built yet"
                                              : probe.answer));
     }},
    {model::CounterSource::valgrind,
     [](const PerfProbe& probe, std::string_view path) {
       return valgrind_tool(probe, path,
                            "--counters valgrind: valgrind is not on the PATH: install it (apt-get install valgrind)");
     }},
}};

// Row i is CounterSource i, and every source has a row.
constexpr bool counter_source_rows_whole() {
  return util::rows_in_enum_order(k_counter_sources, &CounterSourceInfo::source) &&
         k_counter_sources.size() == model::k_counter_source_names.entries().size();
}
static_assert(counter_source_rows_whole(), "k_counter_sources: row i must be CounterSource i, one row per source");

} // namespace

std::expected<model::CounterTool, std::string> find_counter_tool(model::CounterSource source, const PerfProbe& probe,
                                                                 std::string_view path) {
  return k_counter_sources[static_cast<std::size_t>(source)].find(probe, path);
}

model::Invocation counted_invocation(const model::Invocation& invocation, const model::CounterTool& tool,
                                     const std::filesystem::path& dir) {
  model::Invocation counted = invocation;
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

model::Invocation profiled_invocation(const model::Invocation& invocation, const model::CounterTool& tool,
                                      const std::filesystem::path& dir, std::chrono::nanoseconds timeout) {
  model::Invocation profiled = invocation;
  profiled.argv = {tool.program,
                   "-q",
                   "--tool=callgrind",
                   "--trace-children=yes",
                   "--callgrind-out-file=" + (dir / (std::string(k_profile_prefix) + "%p")).string(),
                   "--log-file=" + (dir / "valgrind.%p.log").string()};
  profiled.argv.insert(profiled.argv.end(), invocation.argv.begin(), invocation.argv.end());
  profiled.timeout = timeout;
  profiled.capture_stdout = false;
  return profiled;
}

model::Invocation dumped_invocation(const model::Invocation& invocation, const model::CounterTool& tool,
                                    const std::filesystem::path& dir, std::span<const std::string_view> dumps,
                                    std::chrono::nanoseconds timeout) {
  model::Invocation dumped = profiled_invocation(invocation, tool, dir, timeout);
  // each thread's counts apart: the benchmarks run on the main thread, and a
  // harness's other threads (Criterion's analysis pool) must not land in its runs' dumps
  std::vector<std::string> options{"--separate-threads=yes"};
  for (const auto function : dumps) {
    options.push_back("--dump-before=" + std::string(function));
  }
  // after valgrind's own options, before the command
  const auto command = dumped.argv.end() - static_cast<std::ptrdiff_t>(invocation.argv.size());
  dumped.argv.insert(command, options.begin(), options.end());
  std::erase_if(dumped.env, [](const std::string& entry) { return entry.starts_with("LD_BIND_NOW="); });
  dumped.env.push_back("LD_BIND_NOW=1");
  return dumped;
}

bool clear_counts(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return false;
  }
  // what is in it, not the directory: the box binds this one writable
  // (docs/manual/security.md), and a new one would be read-only there
  std::vector<std::filesystem::path> entries;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    entries.push_back(it->path());
  }
  for (const auto& entry : entries) {
    std::filesystem::remove_all(entry, error);
  }
  return !error;
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

std::expected<std::filesystem::path, std::string> write_allocation_counter(const std::filesystem::path& dir) {
  const auto path = dir / k_allocation_counter_file;
  const auto image = allocation_counter_image();
  const util::Fd fd = util::create_fresh_file(path);
  if (!fd.valid() || !util::write_all(fd.get(), image.data(), image.size())) {
    return std::unexpected(
        fmt::format("cannot write the allocation counter {}: {}", path.string(), std::strerror(errno)));
  }
  return path;
}

model::Invocation allocation_counted_invocation(const model::Invocation& invocation,
                                                const std::filesystem::path& library,
                                                const std::filesystem::path& dir) {
  model::Invocation counted = invocation;
  constexpr std::string_view preload = "LD_PRELOAD=";
  const auto existing = std::find_if(counted.env.begin(), counted.env.end(),
                                     [&](const std::string& entry) { return entry.starts_with(preload); });
  if (existing == counted.env.end()) {
    counted.env.push_back(std::string(preload) + library.string());
  } else if (existing->size() == preload.size()) {
    *existing += library.string();
  } else {
    existing->insert(preload.size(), library.string() + ":");
  }
  std::erase_if(counted.env, [](const std::string& entry) { return entry.starts_with("REFBENCH_ALLOC_DIR="); });
  counted.env.push_back("REFBENCH_ALLOC_DIR=" + dir.string());
  return counted;
}

namespace {

constexpr std::string_view k_allocation_prefix = "alloc.";

// Why no process of `invocation` loaded the allocation counter.
std::string no_allocation_count(const model::Invocation& invocation) {
  const auto path = env_value(invocation.env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  auto program = invocation.argv.empty() ? std::nullopt : find_executable(invocation.argv[0], path);
  if (program && !program->starts_with('/') && !invocation.cwd.empty()) {
    program = (std::filesystem::path(invocation.cwd) / *program).string();
  }
  if (program && statically_linked(*program)) {
    return fmt::format("made no allocation count: {} is statically linked, so the allocation counter (LD_PRELOAD) "
                       "cannot enter it",
                       *program);
  }
  return "made no allocation count: no process of it loaded the allocation counter (LD_PRELOAD): a statically "
         "linked or setuid program, or one that cleared its environment";
}

// The `width`-byte little-endian number at `at` of `bytes`; none past its end.
std::optional<std::uint64_t> little_endian(std::string_view bytes, std::size_t at, std::size_t width) {
  if (at > bytes.size() || bytes.size() - at < width) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

} // namespace

std::expected<AllocationCount, std::string> read_allocation_count(const std::filesystem::path& dir,
                                                                  const model::Invocation& invocation) {
  std::error_code error;
  std::filesystem::directory_iterator entries(dir, error);
  if (error) {
    return std::unexpected(fmt::format("cannot read the counts in {}: {}", dir.string(), error.message()));
  }
  AllocationCount total;
  std::size_t files = 0;
  for (const auto& entry : entries) {
    if (!entry.path().filename().string().starts_with(k_allocation_prefix)) {
      continue;
    }
    const auto bytes = util::read_file(entry.path(), 64, util::Readable::regular_here);
    if (!bytes || bytes->size() != 16) {
      return std::unexpected(fmt::format("left an allocation count {} that is not the counter's ({})",
                                         entry.path().filename().string(),
                                         bytes ? fmt::format("{} bytes", bytes->size()) : bytes.error()));
    }
    total.calls += static_cast<double>(*little_endian(*bytes, 0, 8));
    total.bytes += static_cast<double>(*little_endian(*bytes, 8, 8));
    ++files;
  }
  if (files == 0) {
    return std::unexpected(no_allocation_count(invocation));
  }
  return total;
}

bool statically_linked(const std::filesystem::path& path) {
  // the ELF header and, where linkers put them, the program headers
  std::string head(4096, '\0');
  const util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  const ssize_t got = fd.valid() ? ::pread(fd.get(), head.data(), head.size(), 0) : -1;
  head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  if (!head.starts_with("\x7f"
                        "ELF") ||
      head.size() < 52) {
    return false;
  }
  const bool wide = head[4] == 2; // ELFCLASS64, else ELFCLASS32
  const auto table = little_endian(head, wide ? 32 : 28, wide ? 8 : 4);
  const auto entry_size = little_endian(head, wide ? 54 : 42, 2);
  const auto entries = little_endian(head, wide ? 56 : 44, 2);
  if (!table || !entry_size || !entries || *entries == 0) {
    return false;
  }
  constexpr std::uint64_t pt_interp = 3;
  for (std::uint64_t i = 0; i < *entries; ++i) {
    const auto type = little_endian(head, *table + i * *entry_size, 4);
    if (!type || *type == pt_interp) {
      return false; // an interpreter, or headers past what was read: not known to be static
    }
  }
  return true;
}

} // namespace refbench::process
