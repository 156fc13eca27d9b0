#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/process/counters.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/files.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>

using namespace refbench;
using model::CounterSource;

namespace {

const process::PerfProbe k_no_pmu{false, "perf_event_open: No such file or directory (no PMU)"};

// A directory holding an executable `valgrind` script that prints `version`.
void plant_valgrind(const test::ScratchDir& dir, const std::string& version) {
  const auto path = dir / "valgrind";
  test::write_file(path, "#!/bin/sh\necho " + version + "\n");
  ::chmod(path.c_str(), 0755);
}

} // namespace

TEST_CASE("process::find_counter_tool: auto takes valgrind, and says what to install when there is none") {
  test::ScratchDir with;
  plant_valgrind(with, "valgrind-9.8.7");
  test::ScratchDir without;

  const auto found = process::find_counter_tool(CounterSource::automatic, k_no_pmu, with.path().string());
  REQUIRE(found.has_value());
  CHECK(found->source == CounterSource::valgrind);
  CHECK(found->program == with / "valgrind");
  CHECK(found->version == "valgrind-9.8.7");
  CHECK(found->probe == k_no_pmu.answer); // recorded, whatever the source

  const auto none = process::find_counter_tool(CounterSource::automatic, k_no_pmu, without.path().string());
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().find("apt-get install valgrind") != std::string::npos);
  CHECK(none.error().find(k_no_pmu.answer) != std::string::npos); // both sources are named

  const auto asked = process::find_counter_tool(CounterSource::valgrind, k_no_pmu, without.path().string());
  REQUIRE_FALSE(asked.has_value());
  CHECK(asked.error() == "--counters valgrind: valgrind is not on the PATH: install it (apt-get install valgrind)");
}

TEST_CASE("process::find_counter_tool: perf is refused with its probe's answer, and points at valgrind") {
  test::ScratchDir with;
  plant_valgrind(with, "valgrind-9.8.7");
  const auto refused = process::find_counter_tool(CounterSource::perf, k_no_pmu, with.path().string());
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().starts_with("--counters perf: perf_event_open: No such file or directory (no PMU)"));
  CHECK(refused.error().find("--counters valgrind") != std::string::npos);
  const auto opened = process::find_counter_tool(CounterSource::perf, {true, "opened"}, with.path().string());
  REQUIRE_FALSE(opened.has_value());
  CHECK(opened.error().find("not built yet") != std::string::npos);
}

TEST_CASE("process::perf_probe: opens a counter exactly when the machine has a PMU it may use") {
  const auto probe = process::perf_probe();
  CHECK(probe.available == (probe.answer == "opened"));
  if (!std::filesystem::exists("/sys/bus/event_source/devices/cpu")) { // no PMU: a VM or hosted runner
    CHECK_FALSE(probe.available);
    CHECK(probe.answer.starts_with("perf_event_open: "));
  }
}

TEST_CASE("process::counted_invocation: the command under cachegrind, one count file per process, more time") {
  model::Invocation timed{.argv = {"work", "100"}, .env = {"A=1"}, .cwd = "/tmp", .timeout = std::chrono::seconds(2)};
  const model::CounterTool tool{CounterSource::valgrind, "", "valgrind-3.19.0", "/usr/bin/valgrind"};
  const auto counted = process::counted_invocation(timed, tool, "/out/counts");
  CHECK(counted.argv == std::vector<std::string>{"/usr/bin/valgrind", "-q", "--tool=cachegrind", "--cache-sim=no",
                                                 "--trace-children=yes",
                                                 "--cachegrind-out-file=/out/counts/cachegrind.%p",
                                                 "--log-file=/out/counts/valgrind.%p.log", "work", "100"});
  CHECK(counted.env == timed.env);
  CHECK(counted.cwd == timed.cwd);
  CHECK(counted.timeout == std::chrono::seconds(2) * process::k_counted_slowdown);
}

TEST_CASE("process::read_instruction_count: sums the tree's files; a missing, partial or planted one is no count") {
  test::ScratchDir dir;
  const auto counts = dir.path() / "counts";
  REQUIRE(process::clear_counts(counts));

  auto read = process::read_instruction_count(counts);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error() == "valgrind wrote no count: the program did not run under valgrind");

  test::write_file((counts / "cachegrind.100").string(),
                   "desc: --cache-sim=no\ncmd: sh\nevents: Ir\nfl=x\n1 5\nsummary: 233764\n");
  test::write_file((counts / "cachegrind.101").string(), "events: Ir\nsummary: 309103\n");
  test::write_file((counts / "other.txt").string(), "summary: 5\n"); // not valgrind's
  read = process::read_instruction_count(counts);
  REQUIRE(read.has_value());
  CHECK(*read == 233764.0 + 309103.0);

  test::write_file((counts / "cachegrind.102").string(), "events: Ir\nfl=x\n1 5\n"); // cut short: the process died
  read = process::read_instruction_count(counts);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().find("cachegrind.102 has no summary line") != std::string::npos);

  REQUIRE(process::clear_counts(counts)); // empties what the last invocation left
  CHECK(std::filesystem::is_empty(counts));
  test::write_file((dir.path() / "elsewhere").string(), "summary: 1000000000\n");
  std::filesystem::create_symlink(dir.path() / "elsewhere", counts / "cachegrind.7");
  read = process::read_instruction_count(counts); // a link the command planted is never followed
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().find("cannot read the count") != std::string::npos);
}

TEST_CASE(
    "process::allocation_counted_invocation: the counter first in LD_PRELOAD, its directory set, the timeout kept") {
  model::Invocation timed{.argv = {"work"}, .env = {"A=1"}, .timeout = std::chrono::seconds(2)};
  auto counted = process::allocation_counted_invocation(timed, "/out/counts/refbench-alloc.so", "/out/counts");
  CHECK(counted.env ==
        std::vector<std::string>{"A=1", "LD_PRELOAD=/out/counts/refbench-alloc.so", "REFBENCH_ALLOC_DIR=/out/counts"});
  CHECK(counted.argv == timed.argv);
  CHECK(counted.timeout == timed.timeout);
  timed.env = {"LD_PRELOAD=/lib/libmine.so", "REFBENCH_ALLOC_DIR=/elsewhere"};
  counted = process::allocation_counted_invocation(timed, "/c/a.so", "/c");
  CHECK(counted.env == std::vector<std::string>{"LD_PRELOAD=/c/a.so:/lib/libmine.so", "REFBENCH_ALLOC_DIR=/c"});
  timed.env = {"LD_PRELOAD="};
  CHECK(process::allocation_counted_invocation(timed, "/c/a.so", "/c").env.front() == "LD_PRELOAD=/c/a.so");
}

namespace {

// What the allocation counter counted of the allocate fixture run with `args`.
process::AllocationCount allocations_of(const std::string& fixture, const std::vector<std::string>& args) {
  test::ScratchDir dir;
  const auto counts = dir.path() / "counts";
  REQUIRE(process::clear_counts(counts));
  const auto library = process::write_allocation_counter(counts);
  REQUIRE(library.has_value());
  model::Invocation invocation{.argv = {fixture}, .env = {"PATH=/usr/bin:/bin"}, .timeout = std::chrono::seconds(20)};
  invocation.argv.insert(invocation.argv.end(), args.begin(), args.end());
  const auto outcome = process::run_process(process::allocation_counted_invocation(invocation, *library, counts));
  REQUIRE(model::succeeded(outcome));
  const auto read = process::read_allocation_count(counts, invocation);
  REQUIRE_MESSAGE(read.has_value(), read.error());
  return *read;
}

} // namespace

TEST_CASE("process: the allocation counter counts every call of the malloc family and the bytes asked, forks too") {
  const std::string fixture = REFBENCH_ALLOCATE_FIXTURE;
  const auto none = allocations_of(fixture, {"0", "100"});
  const auto thousand = allocations_of(fixture, {"1000", "100"});
  CHECK(thousand.calls - none.calls == 1000);
  CHECK(thousand.bytes - none.bytes == 100000);
  // calloc(2, 100), realloc(NULL, 100), aligned_alloc(64, 64), posix_memalign(64, 128), memalign(64, 256), valloc(100)
  const auto family = allocations_of(fixture, {"0", "100", "family"});
  CHECK(family.calls - none.calls == 6);
  CHECK(family.bytes - none.bytes == 200 + 100 + 64 + 128 + 256 + 100);
  // a forked child counts into its parent's file: both processes' calls
  const auto forked = allocations_of(fixture, {"1000", "7", "fork"});
  const auto forked_none = allocations_of(fixture, {"0", "7", "fork"});
  CHECK(forked.calls - forked_none.calls == 2000);
  CHECK(forked.bytes - forked_none.bytes == 14000);
  // the same run counts the same: a count that settles
  CHECK(allocations_of(fixture, {"1000", "100"}).calls == thousand.calls);
}

TEST_CASE("process::read_allocation_count: a static link is named; a planted or cut file is no count") {
  const std::string fixture = REFBENCH_ALLOCATE_STATIC_FIXTURE;
  CHECK(process::statically_linked(fixture));
  CHECK_FALSE(process::statically_linked(REFBENCH_ALLOCATE_FIXTURE));
  CHECK_FALSE(process::statically_linked("/bin/sh"));
  test::ScratchDir dir;
  const auto counts = dir.path() / "counts";
  REQUIRE(process::clear_counts(counts));
  const auto library = process::write_allocation_counter(counts);
  REQUIRE(library.has_value());
  const model::Invocation invocation{.argv = {fixture, "10", "10"}, .timeout = std::chrono::seconds(20)};
  REQUIRE(model::succeeded(process::run_process(process::allocation_counted_invocation(invocation, *library, counts))));
  auto read = process::read_allocation_count(counts, invocation);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error() == fmt::format("made no allocation count: {} is statically linked, so the allocation counter "
                                    "(LD_PRELOAD) cannot enter it",
                                    fixture));
  // a script that runs no dynamically linked process: no count, and no static link to name
  test::write_file(dir / "script", "#!/bin/sh\nexit 0\n");
  CHECK_FALSE(process::statically_linked(dir / "script"));

  test::write_file((counts / "alloc.1.0").string(), std::string(16, '\0'));
  test::write_file((counts / "alloc.2.0").string(), std::string(9, '\0'));
  read = process::read_allocation_count(counts, invocation);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().find("alloc.2.0 that is not the counter's (9 bytes)") != std::string::npos);
  std::filesystem::remove(counts / "alloc.2.0");
  std::filesystem::create_symlink(counts / "alloc.1.0", counts / "alloc.3.0");
  read = process::read_allocation_count(counts, invocation);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().find("alloc.3.0 that is not the counter's") != std::string::npos);
}
