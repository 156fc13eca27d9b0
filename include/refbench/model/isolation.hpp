#pragma once
// Where a run's processes go, as data (docs/manual/measurement.md `isolate`):
// CPU lists, a cell's split of the benchmark CPUs, the isolation plan and its
// words. process/cpus.hpp plans it and makes the affinity calls; the run
// document records it.

#include <refbench/util/enum_names.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refbench::model {

// Logical CPU numbers, ascending and without duplicates.
using CpuList = std::vector<unsigned>;

// The Linux CPU list of `cpus` with runs folded: {0,1,2,3,8} → "0-3,8"; "" when empty.
std::string format_cpu_list(const CpuList& cpus);

// A split as planned: the CPUs of each group, in the request's order, and
// the benchmark CPUs no group got (siblings of a core a group took only part of).
struct CpuSplit {
  std::string owner;
  std::vector<std::pair<std::string, CpuList>> groups;
  CpuList unassigned;
};

// How CPUs were asked for: `--isolate auto`, `off` or an explicit list.
enum class IsolationMode { automatic, off, list };

// The word results.json records for `mode`: "auto", "off", "list".
inline constexpr auto k_isolation_mode_names = util::enum_names<IsolationMode>(
    {{IsolationMode::automatic, "auto"}, {IsolationMode::off, "off"}, {IsolationMode::list, "list"}});
inline std::string_view isolation_mode_name(IsolationMode mode) { return k_isolation_mode_names.name(mode); }

// Where a run's processes go (docs/manual/measurement.md).
struct IsolationPlan {
  IsolationMode mode = IsolationMode::automatic;
  bool pinned = false;
  CpuList usable;    // sched_getaffinity at planning time
  CpuList refbench;  // refbench's own CPUs; empty: refbench is left where it is
  CpuList benchmark; // the launcher and every benchmarked process; empty when unpinned
  std::vector<CpuSplit> splits;
  std::string warning; // what did not go as planned (why the run is unpinned, …); "" otherwise

  // The CPU list that {cpus.`group`} of `owner` stands for: the group's CPUs,
  // or the whole usable list when unpinned; "" when there is no such group.
  std::string group_list(const std::string& owner, const std::string& group) const;
};

// A pinned plan's layout in one line, e.g. "benchmarked processes on CPUs
// 2-15, refbench on 0-1; cell svc: service 2-4, client 6-15, unassigned 5";
// "unpinned" when it is not pinned.
std::string layout_text(const IsolationPlan& plan);

// Whether commands run in the box (docs/manual/security.md): `run.sandbox` / `--sandbox`.
enum class SandboxMode { automatic, required, off };
inline constexpr auto k_sandbox_mode_names = util::enum_names<SandboxMode>(
    {{SandboxMode::automatic, "auto"}, {SandboxMode::required, "required"}, {SandboxMode::off, "off"}});

} // namespace refbench::model
