#pragma once
// CPU isolation (README: What is measured `isolate`): CPU lists, the SMT topology, the pure
// planner that picks refbench's own core, the benchmark set and a cell's
// named split of it, and the affinity system calls (only `process` makes them).

#include <refbench/util/enum_names.hpp>

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace refbench::process {

// Logical CPU numbers, ascending and without duplicates.
using CpuList = std::vector<unsigned>;

// Parses a Linux CPU list such as "0-3,8,10-11" (whitespace around it
// ignored); an error message for anything else, the empty text included.
std::expected<CpuList, std::string> parse_cpu_list(std::string_view text);

// The Linux CPU list of `cpus` with runs folded: {0,1,2,3,8} → "0-3,8"; "" when empty.
std::string format_cpu_list(const CpuList& cpus);

// Which logical CPUs share a physical core: per CPU, its thread siblings
// (itself included), as in sysfs' thread_siblings_list.
struct Topology {
  std::map<unsigned, CpuList> siblings;
};

// Reads `root`/cpuN/topology/thread_siblings_list for each of `cpus`; an
// error message naming the file when one is missing or malformed.
std::expected<Topology, std::string> read_topology(const CpuList& cpus,
                                                   const std::string& root = "/sys/devices/system/cpu");

// The CPUs this process may run on (sched_getaffinity, so container cpusets
// count); empty when the kernel does not say.
CpuList usable_cpus();

// One group of a cell's split: `count` logical CPUs, or (no count) the rest.
struct CpuGroup {
  std::string name;
  std::optional<unsigned> count;
};

// The split a cell asks for: its groups in the order written.
struct CpuSplitRequest {
  std::string owner; // the cell, for messages and records
  std::vector<CpuGroup> groups;
};

// A split as planned: the CPUs of each group, in the request's order, and
// the benchmark CPUs no group got (siblings of a core a group took only part of).
struct CpuSplit {
  std::string owner;
  std::vector<std::pair<std::string, CpuList>> groups;
  CpuList unassigned;
};

// Fewer usable CPUs than this run unpinned under "auto".
inline constexpr std::size_t k_min_isolation_cpus = 4;

// How CPUs were asked for: `--isolate auto`, `off` or an explicit list.
enum class IsolationMode { automatic, off, list };

// The word results.json records for `mode`: "auto", "off", "list".
inline constexpr auto k_isolation_mode_names = util::enum_names<IsolationMode>(
    {{IsolationMode::automatic, "auto"}, {IsolationMode::off, "off"}, {IsolationMode::list, "list"}});
inline std::string_view isolation_mode_name(IsolationMode mode) { return k_isolation_mode_names.name(mode); }

// Where a run's processes go (README: What is measured).
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

// Splits `benchmark` for `request`: count groups in order take whole physical
// cores (of `topology`) that fit what they still need, then part of the next
// larger core, whose other siblings stay unassigned; the "rest" group gets
// every core left. std::nullopt when a group cannot get what it asks for.
std::optional<CpuSplit> split_cpus(const Topology& topology, const CpuList& benchmark, const CpuSplitRequest& request);

// Plans isolation for `request` ("auto", "off" or a CPU list) on `usable`
// CPUs with `topology` (or the reason it could not be read) and the cells'
// `splits`. "auto" reserves the physical core of the lowest usable CPU for
// refbench and gives the benchmark every other core; fewer than
// k_min_isolation_cpus usable CPUs, an unreadable topology or a split that
// does not fit give an unpinned plan with a warning. A CPU list is used
// exactly (refbench gets the usable CPUs of the other cores, or stays where
// it is when there are none); throws UsageError when it is malformed, not within `usable`, or
// too small for a split.
IsolationPlan plan_isolation(const std::string& request, const CpuList& usable,
                             const std::expected<Topology, std::string>& topology,
                             const std::vector<CpuSplitRequest>& splits);

// Turns `plan` into an unpinned one (the kernel refused to pin): nothing
// pinned, every split group stands for the usable list, `warning` says why.
void unpin(IsolationPlan& plan, std::string warning);

// plan_isolation on this machine: usable_cpus() and the sysfs topology.
IsolationPlan plan_isolation_here(const std::string& request, const std::vector<CpuSplitRequest>& splits);

// Restricts process (thread) `pid` (0: the caller) to `cpus`; its later
// children inherit the set. False when the kernel refuses.
bool set_affinity(pid_t pid, const CpuList& cpus);

} // namespace refbench::process
