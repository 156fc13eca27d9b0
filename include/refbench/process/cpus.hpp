#pragma once
// CPU isolation (docs/manual/measurement.md `isolate`): CPU lists, the SMT topology, the pure
// planner that picks refbench's own core, the benchmark set and a cell's
// named split of it, and the affinity system calls (only `process` makes them).

#include <refbench/model/isolation.hpp>

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace refbench::process {

// Parses a Linux CPU list such as "0-3,8,10-11" (whitespace around it
// ignored); an error message for anything else, the empty text included.
std::expected<model::CpuList, std::string> parse_cpu_list(std::string_view text);

// Which logical CPUs share a physical core: per CPU, its thread siblings
// (itself included), as in sysfs' thread_siblings_list.
struct Topology {
  std::map<unsigned, model::CpuList> siblings;
};

// Reads `root`/cpuN/topology/thread_siblings_list for each of `cpus`; an
// error message naming the file when one is missing or malformed.
std::expected<Topology, std::string> read_topology(const model::CpuList& cpus,
                                                   const std::string& root = "/sys/devices/system/cpu");

// The CPUs this process may run on (sched_getaffinity, so container cpusets
// count); empty when the kernel does not say.
model::CpuList usable_cpus();

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

// Fewer usable CPUs than this run unpinned under "auto".
inline constexpr std::size_t k_min_isolation_cpus = 4;

// Splits `benchmark` for `request`: count groups in order take whole physical
// cores (of `topology`) that fit what they still need, then part of the next
// larger core, whose other siblings stay unassigned; the "rest" group gets
// every core left. std::nullopt when a group cannot get what it asks for.
std::optional<model::CpuSplit> split_cpus(const Topology& topology, const model::CpuList& benchmark,
                                          const CpuSplitRequest& request);

// Plans isolation for `request` ("auto", "off" or a CPU list) on `usable`
// CPUs with `topology` (or the reason it could not be read) and the cells'
// `splits`. "auto" reserves the physical core of the lowest usable CPU for
// refbench and gives the benchmark every other core; fewer than
// k_min_isolation_cpus usable CPUs, an unreadable topology or a split that
// does not fit give an unpinned plan with a warning. A CPU list is used
// exactly (refbench gets the usable CPUs of the other cores, or stays where
// it is when there are none); throws UsageError when it is malformed, not within `usable`, or
// too small for a split.
model::IsolationPlan plan_isolation(const std::string& request, const model::CpuList& usable,
                                    const std::expected<Topology, std::string>& topology,
                                    const std::vector<CpuSplitRequest>& splits);

// Turns `plan` into an unpinned one (the kernel refused to pin): nothing
// pinned, every split group stands for the usable list, `warning` says why.
void unpin(model::IsolationPlan& plan, std::string warning);

// plan_isolation on this machine: usable_cpus() and the sysfs topology.
model::IsolationPlan plan_isolation_here(const std::string& request, const std::vector<CpuSplitRequest>& splits);

// Restricts process (thread) `pid` (0: the caller) to `cpus`; its later
// children inherit the set. False when the kernel refuses.
bool set_affinity(pid_t pid, const model::CpuList& cpus);

} // namespace refbench::process
