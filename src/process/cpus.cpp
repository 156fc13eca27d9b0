#include <refbench/process/cpus.hpp>
#include <refbench/util/error.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <sched.h>
#include <set>

namespace refbench::process {
namespace {

constexpr unsigned k_max_cpu = 1u << 16; // far above any machine; bounds a typo like "0-4000000000"

bool parse_unsigned(std::string_view text, unsigned& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

// The physical core of `cpu`: its lowest thread sibling (itself when unknown).
unsigned core_of(const Topology& topology, unsigned cpu) {
  auto it = topology.siblings.find(cpu);
  if (it == topology.siblings.end() || it->second.empty()) {
    return cpu;
  }
  return std::min(cpu, it->second.front());
}

// `cpus` grouped by physical core, cores ordered by their lowest CPU.
std::vector<model::CpuList> cores_of(const Topology& topology, const model::CpuList& cpus) {
  std::map<unsigned, model::CpuList> by_core;
  for (unsigned cpu : cpus) {
    by_core[core_of(topology, cpu)].push_back(cpu);
  }
  std::vector<model::CpuList> cores;
  for (auto& [core, members] : by_core) {
    cores.push_back(std::move(members));
  }
  std::sort(cores.begin(), cores.end(),
            [](const model::CpuList& a, const model::CpuList& b) { return a.front() < b.front(); });
  return cores;
}

model::CpuList sorted(model::CpuList cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

model::CpuList minus(const model::CpuList& all, const model::CpuList& removed) {
  model::CpuList out;
  std::set_difference(all.begin(), all.end(), removed.begin(), removed.end(), std::back_inserter(out));
  return out;
}

std::string split_size(const CpuSplitRequest& request) {
  std::string text;
  for (const auto& group : request.groups) {
    text += fmt::format("{}{} = {}", text.empty() ? "" : ", ", group.name,
                        group.count ? std::to_string(*group.count) : "\"rest\"");
  }
  return "{ " + text + " }";
}

// Every group of every split gets the whole usable list (an unpinned run).
std::vector<model::CpuSplit> unpinned_splits(const std::vector<CpuSplitRequest>& splits, const model::CpuList& usable) {
  std::vector<model::CpuSplit> out;
  for (const auto& request : splits) {
    model::CpuSplit split{request.owner, {}, {}};
    for (const auto& group : request.groups) {
      split.groups.emplace_back(group.name, usable);
    }
    out.push_back(std::move(split));
  }
  return out;
}

model::IsolationPlan unpinned(model::IsolationMode mode, const model::CpuList& usable,
                              const std::vector<CpuSplitRequest>& splits, std::string warning) {
  model::IsolationPlan plan;
  plan.mode = mode;
  plan.usable = usable;
  plan.splits = unpinned_splits(splits, usable);
  plan.warning = std::move(warning);
  return plan;
}

// The splits of `splits` over `benchmark`, or the first that does not fit.
std::expected<std::vector<model::CpuSplit>, std::string>
split_all(const Topology& topology, const model::CpuList& benchmark, const std::vector<CpuSplitRequest>& splits) {
  std::vector<model::CpuSplit> out;
  for (const auto& request : splits) {
    auto split = split_cpus(topology, benchmark, request);
    if (!split) {
      return std::unexpected(fmt::format("cell {}: cpus = {} does not fit the {} benchmark CPUs {}", request.owner,
                                         split_size(request), benchmark.size(), model::format_cpu_list(benchmark)));
    }
    out.push_back(std::move(*split));
  }
  return out;
}

} // namespace

std::expected<model::CpuList, std::string> parse_cpu_list(std::string_view text) {
  const std::string_view list = trimmed(text);
  if (list.empty()) {
    return std::unexpected("an empty CPU list");
  }
  model::CpuList cpus;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = std::min(list.find(',', start), list.size());
    std::string_view range = list.substr(start, end - start);
    start = end + 1;
    unsigned low = 0;
    unsigned high = 0;
    auto dash = range.find('-');
    if (!parse_unsigned(range.substr(0, dash), low) ||
        !parse_unsigned(dash == std::string_view::npos ? range : range.substr(dash + 1), high) || high < low ||
        high >= k_max_cpu) {
      return std::unexpected(fmt::format("'{}' is not a CPU list like \"0-3,8\"", list));
    }
    for (unsigned cpu = low; cpu <= high; ++cpu) {
      cpus.push_back(cpu);
    }
  }
  return sorted(std::move(cpus));
}

std::expected<Topology, std::string> read_topology(const model::CpuList& cpus, const std::string& root) {
  Topology topology;
  for (unsigned cpu : cpus) {
    const std::string path = fmt::format("{}/cpu{}/topology/thread_siblings_list", root, cpu);
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) {
      return std::unexpected("cannot read " + path);
    }
    auto siblings = parse_cpu_list(line);
    if (!siblings || !std::binary_search(siblings->begin(), siblings->end(), cpu)) {
      return std::unexpected(fmt::format("{} is malformed ('{}')", path, line));
    }
    topology.siblings[cpu] = std::move(*siblings);
  }
  return topology;
}

std::optional<model::CpuSplit> split_cpus(const Topology& topology, const model::CpuList& benchmark,
                                          const CpuSplitRequest& request) {
  const auto cores = cores_of(topology, benchmark);
  std::vector<bool> taken(cores.size(), false);
  model::CpuSplit split{request.owner, {}, {}};
  std::optional<std::size_t> rest;
  for (const auto& group : request.groups) {
    split.groups.emplace_back(group.name, model::CpuList{});
    if (!group.count) {
      rest = split.groups.size() - 1;
      continue;
    }
    model::CpuList& cpus = split.groups.back().second;
    std::size_t need = *group.count;
    for (std::size_t c = 0; c < cores.size() && need > 0; ++c) {
      if (!taken[c] && cores[c].size() <= need) {
        taken[c] = true;
        cpus.insert(cpus.end(), cores[c].begin(), cores[c].end());
        need -= cores[c].size();
      }
    }
    for (std::size_t c = 0; c < cores.size() && need > 0; ++c) {
      if (!taken[c]) { // larger than what is left to take: part of it, the other siblings unassigned
        taken[c] = true;
        cpus.insert(cpus.end(), cores[c].begin(), cores[c].begin() + static_cast<std::ptrdiff_t>(need));
        split.unassigned.insert(split.unassigned.end(), cores[c].begin() + static_cast<std::ptrdiff_t>(need),
                                cores[c].end());
        need = 0;
      }
    }
    if (need > 0 || *group.count == 0) {
      return std::nullopt;
    }
    cpus = sorted(std::move(cpus));
  }
  for (std::size_t c = 0; c < cores.size(); ++c) {
    if (!taken[c]) {
      model::CpuList& into = rest ? split.groups[*rest].second : split.unassigned;
      into.insert(into.end(), cores[c].begin(), cores[c].end());
    }
  }
  if (rest) {
    split.groups[*rest].second = sorted(std::move(split.groups[*rest].second));
    if (split.groups[*rest].second.empty()) {
      return std::nullopt;
    }
  }
  split.unassigned = sorted(std::move(split.unassigned));
  return split;
}

model::IsolationPlan plan_isolation(const std::string& request, const model::CpuList& usable,
                                    const std::expected<Topology, std::string>& topology,
                                    const std::vector<CpuSplitRequest>& splits) {
  if (request == "off") {
    return unpinned(model::IsolationMode::off, usable, splits, "");
  }
  if (request != "auto") {
    auto list = parse_cpu_list(request);
    if (!list) {
      throw UsageError("isolate: " + list.error(), "use \"auto\", \"off\" or a CPU list like \"2-3\"");
    }
    model::CpuList outside = minus(*list, usable);
    if (!outside.empty()) {
      throw UsageError(fmt::format("isolate {}: CPU{} {} {} not usable here (usable: {})", request,
                                   outside.size() == 1 ? "" : "s", model::format_cpu_list(outside),
                                   outside.size() == 1 ? "is" : "are",
                                   usable.empty() ? "unknown" : model::format_cpu_list(usable)),
                       "name CPUs from the usable list, or use --isolate auto");
    }
    // without a readable topology every CPU counts as its own core
    const Topology layout = topology ? *topology : Topology{};
    auto split = split_all(layout, *list, splits);
    if (!split) {
      throw UsageError("isolate " + request + ": " + split.error(), "name more CPUs, or ask for fewer in the cell");
    }
    model::IsolationPlan plan;
    plan.mode = model::IsolationMode::list;
    plan.pinned = true;
    plan.usable = usable;
    plan.benchmark = *list;
    // refbench keeps off the listed CPUs' cores, not only off the CPUs
    model::CpuList cores_used = *list;
    for (unsigned cpu : *list) {
      if (auto it = layout.siblings.find(cpu); it != layout.siblings.end()) {
        cores_used.insert(cores_used.end(), it->second.begin(), it->second.end());
      }
    }
    plan.refbench = minus(usable, sorted(std::move(cores_used)));
    plan.splits = std::move(*split);
    return plan;
  }
  if (usable.size() < k_min_isolation_cpus) {
    return unpinned(model::IsolationMode::automatic, usable, splits,
                    fmt::format("CPU isolation needs at least {} usable CPUs, this machine has {} ({}); running "
                                "unpinned",
                                k_min_isolation_cpus, usable.size(), model::format_cpu_list(usable)));
  }
  if (!topology) {
    return unpinned(model::IsolationMode::automatic, usable, splits,
                    "CPU isolation: the SMT topology is unreadable (" + topology.error() + "); running unpinned");
  }
  const auto cores = cores_of(*topology, usable);
  const model::CpuList& own = cores.front();
  const model::CpuList benchmark = minus(usable, own);
  if (benchmark.empty()) {
    return unpinned(model::IsolationMode::automatic, usable, splits,
                    fmt::format("CPU isolation: the usable CPUs {} share one physical core; running unpinned",
                                model::format_cpu_list(usable)));
  }
  auto split = split_all(*topology, benchmark, splits);
  if (!split) {
    return unpinned(model::IsolationMode::automatic, usable, splits,
                    "CPU isolation: " + split.error() + "; running unpinned");
  }
  model::IsolationPlan plan;
  plan.mode = model::IsolationMode::automatic;
  plan.pinned = true;
  plan.usable = usable;
  plan.refbench = own;
  plan.benchmark = benchmark;
  plan.splits = std::move(*split);
  return plan;
}

model::CpuList usable_cpus() {
  for (int count = 1024; count <= static_cast<int>(k_max_cpu); count *= 4) {
    cpu_set_t* set = CPU_ALLOC(count);
    const std::size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set);
    if (::sched_getaffinity(0, size, set) == 0) {
      model::CpuList cpus;
      for (int cpu = 0; cpu < count; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set)) {
          cpus.push_back(static_cast<unsigned>(cpu));
        }
      }
      CPU_FREE(set);
      return cpus;
    }
    CPU_FREE(set);
    if (errno != EINVAL) {
      break;
    }
  }
  return {};
}

void unpin(model::IsolationPlan& plan, std::string warning) {
  plan.pinned = false;
  plan.benchmark.clear();
  plan.refbench.clear();
  for (auto& split : plan.splits) {
    for (auto& group : split.groups) {
      group.second = plan.usable;
    }
    split.unassigned.clear();
  }
  plan.warning = std::move(warning);
}

model::IsolationPlan plan_isolation_here(const std::string& request, const std::vector<CpuSplitRequest>& splits) {
  const model::CpuList usable = usable_cpus();
  return plan_isolation(request, usable, read_topology(usable), splits);
}

bool set_affinity(pid_t pid, const model::CpuList& cpus) {
  if (cpus.empty()) {
    return false;
  }
  const int count = static_cast<int>(cpus.back()) + 1;
  cpu_set_t* set = CPU_ALLOC(count);
  const std::size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set);
  for (unsigned cpu : cpus) {
    CPU_SET_S(cpu, size, set);
  }
  const bool ok = ::sched_setaffinity(pid, size, set) == 0;
  CPU_FREE(set);
  return ok;
}

} // namespace refbench::process
