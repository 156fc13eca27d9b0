#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/process/cpus.hpp>
#include <refbench/util/error.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

using namespace refbench;
using namespace refbench::process;
using namespace refbench::model;

namespace {

CpuList cpus(const std::string& list) {
  auto parsed = parse_cpu_list(list);
  REQUIRE(parsed.has_value());
  return *parsed;
}

// A recorded layout: each CPU of `usable` with the siblings `siblings_of` gives it.
Topology layout(const CpuList& usable, const std::function<std::string(unsigned)>& siblings_of) {
  Topology topology;
  for (unsigned cpu : usable) {
    topology.siblings[cpu] = cpus(siblings_of(cpu));
  }
  return topology;
}

// 16 CPUs in adjacent SMT pairs: 0-1, 2-3, …, 14-15.
Topology adjacent_pairs(const CpuList& usable) {
  return layout(usable, [](unsigned cpu) { return std::to_string(cpu & ~1u) + "-" + std::to_string(cpu | 1u); });
}

// A 20-CPU host whose siblings are n and n+10.
Topology split_halves(const CpuList& usable) {
  return layout(usable, [](unsigned cpu) {
    unsigned low = cpu % 10;
    return std::to_string(low) + "," + std::to_string(low + 10);
  });
}

CpuSplitRequest service_client(unsigned service) { return {"svc", {{"service", service}, {"client", std::nullopt}}}; }

// The CPU list of `group` in `split` ("<none>" when absent).
std::string group_of(const CpuSplit& split, const std::string& group) {
  for (const auto& [name, list] : split.groups) {
    if (name == group) {
      return format_cpu_list(list);
    }
  }
  return "<none>";
}

std::string usage_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<no error>";
}

} // namespace

TEST_CASE("process::cpus lists") {
  SUBCASE("parse") {
    CHECK(cpus("0-3,8,10-11") == CpuList{0, 1, 2, 3, 8, 10, 11});
    CHECK(cpus("5\n") == CpuList{5});
    CHECK(cpus("3,1,1-2") == CpuList{1, 2, 3});
    CHECK_FALSE(parse_cpu_list("").has_value());
    CHECK_FALSE(parse_cpu_list("3-1").has_value());
    CHECK_FALSE(parse_cpu_list("0-").has_value());
    CHECK_FALSE(parse_cpu_list("1,,2").has_value());
    CHECK_FALSE(parse_cpu_list("a").has_value());
    CHECK_FALSE(parse_cpu_list("0-4000000000").has_value());
    CHECK(parse_cpu_list("x").error() == "'x' is not a CPU list like \"0-3,8\"");
  }
  SUBCASE("format") {
    CHECK(format_cpu_list({0, 2, 3, 4, 7}) == "0,2-4,7");
    CHECK(format_cpu_list({1}) == "1");
    CHECK(format_cpu_list({}) == "");
    CHECK(format_cpu_list(cpus("2-9,12-19")) == "2-9,12-19");
  }
}

TEST_CASE("process::cpus plan over recorded sibling layouts") {
  SUBCASE("16 CPUs in adjacent SMT pairs") {
    const CpuList usable = cpus("0-15");
    auto plan = plan_isolation("auto", usable, adjacent_pairs(usable), {service_client(3)});
    CHECK(plan.pinned);
    CHECK(plan.mode == IsolationMode::automatic);
    CHECK(plan.warning == "");
    CHECK(format_cpu_list(plan.refbench) == "0-1");
    CHECK(format_cpu_list(plan.benchmark) == "2-15");
    REQUIRE(plan.splits.size() == 1);
    CHECK(group_of(plan.splits[0], "service") == "2-4");
    CHECK(group_of(plan.splits[0], "client") == "6-15");
    CHECK(format_cpu_list(plan.splits[0].unassigned) == "5");
    CHECK(plan.group_list("svc", "service") == "2-4");
    CHECK(plan.group_list("svc", "nope") == "");
    CHECK(layout_text(plan) ==
          "benchmarked processes on CPUs 2-15, refbench on 0-1; cell svc: service 2-4, client 6-15, unassigned 5");
  }
  SUBCASE("20 CPUs, siblings n and n+10") {
    const CpuList usable = cpus("0-19");
    auto plan = plan_isolation("auto", usable, split_halves(usable), {service_client(3)});
    CHECK(plan.pinned);
    CHECK(format_cpu_list(plan.refbench) == "0,10");
    CHECK(format_cpu_list(plan.benchmark) == "1-9,11-19");
    REQUIRE(plan.splits.size() == 1);
    CHECK(group_of(plan.splits[0], "service") == "1-2,11");
    CHECK(group_of(plan.splits[0], "client") == "3-9,13-19");
    CHECK(format_cpu_list(plan.splits[0].unassigned) == "12");
    CHECK(layout_text(plan) ==
          "benchmarked processes on CPUs 1-9,11-19, refbench on 0,10; cell svc: service 1-2,11, client 3-9,13-19, "
          "unassigned 12");
  }
  SUBCASE("4 CPUs without SMT") {
    const CpuList usable = cpus("0-3");
    const auto topology = layout(usable, [](unsigned cpu) { return std::to_string(cpu); });
    auto plan = plan_isolation("auto", usable, topology, {service_client(2)});
    CHECK(plan.pinned);
    CHECK(format_cpu_list(plan.refbench) == "0");
    CHECK(format_cpu_list(plan.benchmark) == "1-3");
    CHECK(group_of(plan.splits[0], "service") == "1-2");
    CHECK(group_of(plan.splits[0], "client") == "3");
    CHECK(plan.splits[0].unassigned.empty());

    // service takes all three: nothing left for client, so the run is unpinned
    auto full = plan_isolation("auto", usable, topology, {service_client(3)});
    CHECK_FALSE(full.pinned);
    CHECK(full.benchmark.empty());
    CHECK(full.refbench.empty());
    CHECK(full.warning == "CPU isolation: cell svc: cpus = { service = 3, client = \"rest\" } does not fit the 3 "
                          "benchmark CPUs 1-3; running unpinned");
    CHECK(full.group_list("svc", "service") == "0-3");
    CHECK(full.group_list("svc", "client") == "0-3");
  }
  SUBCASE("a cpuset of 0-15 on a 20-CPU host with siblings n and n+10") {
    const CpuList usable = cpus("0-15");
    auto plan = plan_isolation("auto", usable, split_halves(usable), {service_client(3)});
    CHECK(plan.pinned);
    CHECK(format_cpu_list(plan.refbench) == "0,10");
    CHECK(format_cpu_list(plan.benchmark) == "1-9,11-15");
    // 6-9 have their siblings outside the cpuset, so each is a core of one usable CPU
    CHECK(group_of(plan.splits[0], "service") == "1,6,11");
    CHECK(group_of(plan.splits[0], "client") == "2-5,7-9,12-15");
    CHECK(plan.splits[0].unassigned.empty());

    auto two = plan_isolation("auto", usable, split_halves(usable), {{"pair", {{"service", 3u}, {"client", 2u}}}});
    CHECK(group_of(two.splits[0], "service") == "1,6,11");
    CHECK(group_of(two.splits[0], "client") == "2,12");
    CHECK(format_cpu_list(two.splits[0].unassigned) == "3-5,7-9,13-15");
  }
  SUBCASE("groups in the order written; rest may come first") {
    const CpuList usable = cpus("0-15");
    auto plan = plan_isolation("auto", usable, adjacent_pairs(usable),
                               {{"c", {{"client", std::nullopt}, {"service", 4u}, {"db", 1u}}}});
    REQUIRE(plan.splits[0].groups.size() == 3);
    CHECK(plan.splits[0].groups[0].first == "client");
    CHECK(group_of(plan.splits[0], "service") == "2-5");
    CHECK(group_of(plan.splits[0], "db") == "6");
    CHECK(format_cpu_list(plan.splits[0].unassigned) == "7");
    CHECK(group_of(plan.splits[0], "client") == "8-15");
  }
  SUBCASE("a split too large for the machine") {
    const CpuList usable = cpus("0-15");
    auto plan = plan_isolation("auto", usable, adjacent_pairs(usable), {{"big", {{"service", 15u}}}});
    CHECK_FALSE(plan.pinned);
    CHECK(plan.warning.starts_with("CPU isolation: cell big: cpus = { service = 15 } does not fit"));
  }
}

TEST_CASE("process::cpus fallbacks and explicit lists") {
  SUBCASE("fewer than 4 usable CPUs: a warning and an unpinned run") {
    const CpuList usable = cpus("0-1");
    auto plan = plan_isolation("auto", usable, adjacent_pairs(usable), {service_client(1)});
    CHECK_FALSE(plan.pinned);
    CHECK(plan.mode == IsolationMode::automatic);
    CHECK(plan.refbench.empty());
    CHECK(plan.benchmark.empty());
    CHECK(plan.warning == "CPU isolation needs at least 4 usable CPUs, this machine has 2 (0-1); running unpinned");
    CHECK(plan.group_list("svc", "client") == "0-1");
    CHECK(layout_text(plan) == "unpinned");
  }
  SUBCASE("an unreadable topology") {
    std::expected<Topology, std::string> unreadable = std::unexpected(std::string("cannot read /x"));
    auto plan = plan_isolation("auto", cpus("0-7"), unreadable, {});
    CHECK_FALSE(plan.pinned);
    CHECK(plan.warning == "CPU isolation: the SMT topology is unreadable (cannot read /x); running unpinned");
  }
  SUBCASE("all usable CPUs on one core") {
    const CpuList usable = cpus("0-3");
    auto plan = plan_isolation("auto", usable, layout(usable, [](unsigned) { return "0-3"; }), {});
    CHECK_FALSE(plan.pinned);
    CHECK(plan.warning == "CPU isolation: the usable CPUs 0-3 share one physical core; running unpinned");
  }
  SUBCASE("off") {
    auto plan = plan_isolation("off", cpus("0-15"), adjacent_pairs(cpus("0-15")), {service_client(1)});
    CHECK_FALSE(plan.pinned);
    CHECK(plan.mode == IsolationMode::off);
    CHECK(plan.warning == "");
    CHECK(plan.group_list("svc", "service") == "0-15");
  }
  SUBCASE("an explicit list is used exactly, even on a small machine") {
    auto plan = plan_isolation("1", cpus("0-1"), adjacent_pairs(cpus("0-1")), {});
    CHECK(plan.pinned);
    CHECK(plan.mode == IsolationMode::list);
    CHECK(format_cpu_list(plan.benchmark) == "1");
    CHECK(plan.refbench.empty()); // CPU 0 is CPU 1's sibling: refbench stays where it is
    CHECK(plan.warning == "");
    CHECK(layout_text(plan) == "benchmarked processes on CPUs 1, refbench not pinned");
    // refbench takes only the cores the list leaves whole
    auto pairs = plan_isolation("3,5", cpus("0-7"), adjacent_pairs(cpus("0-7")), {});
    CHECK(format_cpu_list(pairs.benchmark) == "3,5");
    CHECK(format_cpu_list(pairs.refbench) == "0-1,6-7");
    auto no_smt = plan_isolation("1", cpus("0-1"), std::unexpected(std::string("gone")), {});
    CHECK(format_cpu_list(no_smt.refbench) == "0"); // without a topology every CPU is its own core

    auto all = plan_isolation("0-1", cpus("0-1"), std::unexpected(std::string("gone")), {service_client(1)});
    CHECK(all.pinned);
    CHECK(all.refbench.empty()); // nothing left for refbench: it stays where it is
    CHECK(all.group_list("svc", "service") == "0");
    CHECK(all.group_list("svc", "client") == "1");
  }
  SUBCASE("an explicit list outside the usable CPUs or malformed is a usage error") {
    CHECK(usage_error_of([] { plan_isolation("1-3", cpus("0-1"), Topology{}, {}); }) ==
          "isolate 1-3: CPUs 2-3 are not usable here (usable: 0-1)");
    CHECK(usage_error_of([] { plan_isolation("5", cpus("0-1"), Topology{}, {}); }) ==
          "isolate 5: CPU 5 is not usable here (usable: 0-1)");
    CHECK(usage_error_of([] { plan_isolation("3-1", cpus("0-3"), Topology{}, {}); }) ==
          "isolate: '3-1' is not a CPU list like \"0-3,8\"");
    CHECK(usage_error_of([] {
            plan_isolation("1", cpus("0-3"), Topology{}, {service_client(1)});
          }).starts_with("isolate 1: cell svc: cpus = { service = 1, client = \"rest\" } does not fit"));
  }
}

TEST_CASE("process::unpin: a plan the kernel refused to pin") {
  auto plan = plan_isolation("auto", cpus("0-15"), adjacent_pairs(cpus("0-15")), {service_client(3)});
  REQUIRE(plan.pinned);
  REQUIRE(plan.group_list("svc", "service") == "2-4");
  unpin(plan, "refused");
  CHECK_FALSE(plan.pinned);
  CHECK(plan.benchmark.empty());
  CHECK(plan.refbench.empty());
  CHECK(plan.warning == "refused");
  // {cpus.NAME} filled in after this stands for every usable CPU
  CHECK(plan.group_list("svc", "service") == "0-15");
  CHECK(plan.group_list("svc", "client") == "0-15");
  CHECK(plan.splits.at(0).unassigned.empty());
}

TEST_CASE("process::cpus read_topology from a sysfs tree") {
  test::ScratchDir sys;
  for (unsigned cpu = 0; cpu < 4; ++cpu) {
    test::write_file(sys.path() / ("cpu" + std::to_string(cpu)) / "topology/thread_siblings_list",
                     cpu < 2 ? "0-1\n" : "2-3\n");
  }
  SUBCASE("siblings per CPU") {
    auto topology = read_topology(cpus("0-3"), sys.str());
    REQUIRE(topology.has_value());
    CHECK(topology->siblings.at(0) == CpuList{0, 1});
    CHECK(topology->siblings.at(3) == CpuList{2, 3});
    auto plan = plan_isolation("auto", cpus("0-3"), topology, {});
    CHECK(format_cpu_list(plan.refbench) == "0-1");
    CHECK(format_cpu_list(plan.benchmark) == "2-3");
  }
  SUBCASE("a missing CPU") {
    auto topology = read_topology(cpus("0-4"), sys.str());
    REQUIRE_FALSE(topology.has_value());
    CHECK(topology.error() == "cannot read " + sys.str() + "/cpu4/topology/thread_siblings_list");
  }
  SUBCASE("a malformed file: a warning and an unpinned run") {
    test::write_file(sys.path() / "cpu2/topology/thread_siblings_list", "two,three\n");
    auto topology = read_topology(cpus("0-3"), sys.str());
    REQUIRE_FALSE(topology.has_value());
    CHECK(topology.error() == sys.str() + "/cpu2/topology/thread_siblings_list is malformed ('two,three')");
    auto plan = plan_isolation("auto", cpus("0-3"), topology, {});
    CHECK_FALSE(plan.pinned);
    CHECK(plan.warning.starts_with("CPU isolation: the SMT topology is unreadable (" + sys.str()));
  }
  SUBCASE("a CPU missing from its own sibling list is malformed") {
    test::write_file(sys.path() / "cpu1/topology/thread_siblings_list", "0\n");
    CHECK_FALSE(read_topology(cpus("0-3"), sys.str()).has_value());
  }
}

TEST_CASE("process::cpus usable_cpus and set_affinity") {
  const CpuList usable = usable_cpus();
  REQUIRE_FALSE(usable.empty());
  CHECK(set_affinity(0, usable));
  CHECK_FALSE(set_affinity(0, {}));
}
