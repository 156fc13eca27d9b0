#include <refbench/model/isolation.hpp>

#include <fmt/format.h>

namespace refbench::model {

std::string format_cpu_list(const CpuList& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
      ++j;
    }
    text += (text.empty() ? "" : ",") + (j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return text;
}

std::string layout_text(const IsolationPlan& plan) {
  if (!plan.pinned) {
    return "unpinned";
  }
  std::string text = "benchmarked processes on CPUs " + format_cpu_list(plan.benchmark) + ", refbench " +
                     (plan.refbench.empty() ? "not pinned" : "on " + format_cpu_list(plan.refbench));
  for (const auto& split : plan.splits) {
    text += "; cell " + split.owner + ":";
    for (std::size_t i = 0; i < split.groups.size(); ++i) {
      text += (i == 0 ? " " : ", ") + split.groups[i].first + " " + format_cpu_list(split.groups[i].second);
    }
    if (!split.unassigned.empty()) {
      text += ", unassigned " + format_cpu_list(split.unassigned);
    }
  }
  return text;
}

std::string IsolationPlan::group_list(const std::string& owner, const std::string& group) const {
  for (const auto& split : splits) {
    if (split.owner != owner) {
      continue;
    }
    for (const auto& [name, cpus] : split.groups) {
      if (name == group) {
        return format_cpu_list(cpus);
      }
    }
  }
  return "";
}

} // namespace refbench::model
