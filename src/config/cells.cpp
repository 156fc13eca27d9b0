#include <refbench/config/cells.hpp>
#include <refbench/util/strings.hpp>

namespace refbench::config {
namespace {

bool uses(const Command& command, std::string_view placeholder) {
  if (command.is_shell()) {
    return command.shell.find(placeholder) != std::string::npos;
  }
  for (const auto& word : command.argv) {
    if (word.find(placeholder) != std::string::npos) {
      return true;
    }
  }
  return false;
}

using GroupLists = std::map<std::string, std::string>;

// `text` with {arm}, {payload}, {size} and {cpus.NAME} filled in.
std::string fill(std::string text, const std::string& arm, const PayloadFile* payload, const GroupLists& cpus) {
  for (const auto& [group, list] : cpus) {
    text = util::replace_all(std::move(text), "{cpus." + group + "}", list);
  }
  text = util::replace_all(std::move(text), "{arm}", arm);
  if (payload != nullptr) {
    text = util::replace_all(std::move(text), "{payload}", payload->path);
    text = util::replace_all(std::move(text), "{size}", payload->label);
  }
  return text;
}

process::Invocation arm_invocation(const CellConfig& cell, const std::string& arm, const PayloadFile* payload,
                                   const std::vector<std::string>& base_env, std::chrono::nanoseconds timeout,
                                   const GroupLists& cpus) {
  process::Invocation invocation;
  if (cell.command.is_shell()) {
    invocation.argv = {"/bin/sh", "-c", fill(cell.command.shell, arm, payload, cpus)};
  } else {
    for (const auto& word : cell.command.argv) {
      invocation.argv.push_back(fill(word, arm, payload, cpus));
    }
  }
  invocation.env = base_env;
  for (const auto& entry : cell.env) {
    auto name = entry.substr(0, entry.find('=') + 1);
    std::erase_if(invocation.env, [&](const std::string& e) { return e.starts_with(name); });
    invocation.env.push_back(fill(entry, arm, payload, cpus));
  }
  invocation.cwd = arm;
  invocation.timeout = timeout;
  return invocation;
}

} // namespace

std::vector<process::CpuSplitRequest> cpu_split_requests(const std::vector<CellConfig>& cells) {
  std::vector<process::CpuSplitRequest> requests;
  for (const auto& cell : cells) {
    if (!cell.cpus.empty()) {
      requests.push_back({cell.name, cell.cpus});
    }
  }
  return requests;
}

CpuGroupLists cpu_group_lists(const std::vector<CellConfig>& cells, const process::IsolationPlan& plan) {
  CpuGroupLists lists;
  for (const auto& cell : cells) {
    for (const auto& group : cell.cpus) {
      lists[cell.name][group.name] = plan.group_list(cell.name, group.name);
    }
  }
  return lists;
}

std::vector<runner::CellSpec> plan_cells(const std::vector<CellConfig>& cells, const std::vector<PayloadFile>& payloads,
                                         const ArmPaths& arms, const std::vector<std::string>& base_env,
                                         std::chrono::nanoseconds timeout, const CpuGroupLists& cpus) {
  std::vector<runner::CellSpec> planned;
  for (const auto& cell : cells) {
    const auto found = cpus.find(cell.name);
    static const GroupLists k_no_groups;
    const GroupLists& groups = found == cpus.end() ? k_no_groups : found->second;
    std::vector<const PayloadFile*> variants{nullptr};
    if (uses(cell.command, "{payload}") && !payloads.empty()) {
      variants.clear();
      for (const auto& payload : payloads) {
        variants.push_back(&payload);
      }
    }
    for (const PayloadFile* payload : variants) {
      runner::CellSpec spec;
      spec.name = cell.name;
      if (payload != nullptr) {
        spec.name = cell.name.find("{size}") != std::string::npos
                        ? util::replace_all(cell.name, "{size}", payload->label)
                        : cell.name + "-" + payload->label;
        spec.meta.family = cell.name;
        spec.meta.payload_bytes = payload->bytes;
      }
      spec.baseline = arm_invocation(cell, arms.baseline, payload, base_env, timeout, groups);
      spec.candidate = arm_invocation(cell, arms.candidate, payload, base_env, timeout, groups);
      spec.placeholders = true;
      spec.check_output = cell.check_output;
      spec.meta.metrics = cell.metrics;
      spec.meta.gate = cell.gate;
      spec.meta.threshold = cell.threshold;
      spec.meta.custom = cell.custom;
      spec.meta.min_duration_seconds = cell.min_duration_seconds;
      spec.meta.window_key = cell.window_key;
      spec.meta.require = cell.require;
      planned.push_back(std::move(spec));
    }
  }
  return planned;
}

} // namespace refbench::config
