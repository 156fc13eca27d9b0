#include <refbench/config/cells.hpp>
#include <refbench/model/shard.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/suites/suite.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <fnmatch.h>
#include <set>

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

using Params = std::vector<std::pair<std::string, std::string>>;

// `text` with {arm}, {payload}, {size}, {cpus.NAME} and the cell's {PARAM}s
// filled in; with `shell` (a /bin/sh -c script) each value quoted for where
// it stands, so a path such as `o$(touch X)` stays a path.
std::string fill(const std::string& text, const std::string& arm, const PayloadFile* payload, const GroupLists& cpus,
                 const Params& params, bool shell = false) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [name, value] : params) {
    values.emplace_back("{" + name + "}", value);
  }
  for (const auto& [group, list] : cpus) {
    values.emplace_back("{cpus." + group + "}", list);
  }
  values.emplace_back("{arm}", arm);
  if (payload != nullptr) {
    values.emplace_back("{payload}", payload->path);
    values.emplace_back("{size}", payload->label);
  }
  if (shell) {
    return util::fill_shell_script(text, values);
  }
  std::string filled = text;
  for (const auto& [placeholder, value] : values) {
    filled = util::replace_all(std::move(filled), placeholder, value);
  }
  return filled;
}

// What an arm adds to a cell: [arms.NAME]'s env, and its args when it is
// the cell's command (hooks get the env only).
struct ArmAdditions {
  const ArmSettings& settings;
  bool args = true;
};

// `command` of `cell` (its command or a hook) as run in `arm`, with `added`.
model::Invocation arm_invocation(const CellConfig& cell, const Command& command, const std::string& arm,
                                 const PayloadFile* payload, const std::vector<std::string>& base_env,
                                 std::chrono::nanoseconds timeout, const GroupLists& cpus, ArmAdditions added) {
  model::Invocation invocation;
  const auto& args = added.settings.args;
  if (command.is_shell()) {
    std::string script = command.shell;
    if (added.args && !args.empty()) { // appended as shell words: an argument stays one argument
      script += " " + util::join_shell_words(args);
    }
    invocation.argv = {"/bin/sh", "-c", fill(script, arm, payload, cpus, cell.params, true)};
  } else {
    for (const auto& word : command.argv) {
      invocation.argv.push_back(fill(word, arm, payload, cpus, cell.params));
    }
    for (std::size_t i = 0; added.args && i < args.size(); ++i) {
      invocation.argv.push_back(fill(args[i], arm, payload, cpus, cell.params));
    }
  }
  std::vector<std::string> entries;
  for (const auto* env : {&cell.env, &added.settings.env}) { // the arm's over the cell's
    for (const auto& entry : *env) {
      entries.push_back(fill(entry, arm, payload, cpus, cell.params));
    }
  }
  invocation.env = process::with_overrides(base_env, entries);
  invocation.cwd = arm;
  invocation.timeout = timeout;
  return invocation;
}

// `cell`'s setup, prepare and cleanup hooks as run in `arm`, with its env.
model::ArmHooks arm_hooks(const CellConfig& cell, const std::string& arm, const PayloadFile* payload,
                          const std::vector<std::string>& base_env, std::chrono::nanoseconds timeout,
                          const GroupLists& cpus, const ArmSettings& settings) {
  auto hook = [&](const std::optional<Command>& command) -> std::optional<model::HookCommand> {
    if (!command) {
      return std::nullopt;
    }
    return model::HookCommand{arm_invocation(cell, *command, arm, payload, base_env, timeout, cpus, {settings, false}),
                              command->is_shell()};
  };
  return {hook(cell.setup), hook(cell.prepare), hook(cell.cleanup)};
}

} // namespace

bool uses_payload(const CellConfig& cell) { return uses(cell.command, "{payload}"); }

std::string expanded_name(const CellConfig& cell, const std::string* size_label) {
  if (size_label == nullptr) {
    return cell.name;
  }
  return cell.name.find("{size}") != std::string::npos ? util::replace_all(cell.name, "{size}", *size_label)
                                                       : cell.name + "-" + *size_label;
}

namespace {

// A plain cell named like a suite's row ("s/x" beside suite "s", or its
// control's "s-control/x"): one row name would mean two things.
void check_row_names(const std::vector<CellConfig>& cells) {
  for (const auto& suite : cells) {
    if (!suite.suite) {
      continue;
    }
    for (const auto& cell : cells) {
      for (const auto& prefix : {suite.name + "/", suite.name + std::string(model::k_control_suffix) + "/"}) {
        if (&cell != &suite && cell.name.starts_with(prefix)) {
          throw UsageError(fmt::format("{}: cell name '{}' is the name of a row of suite '{}' (at {}): one name "
                                       "would mean two things in the report",
                                       cell.where, cell.name, suite.name, suite.where),
                           "rename the cell (a suite's rows are named SUITE/BENCHMARK)");
        }
      }
    }
  }
}

} // namespace

void check_cell_names(const std::vector<CellConfig>& cells, const std::vector<PayloadSize>& sizes) {
  check_row_names(cells);
  std::map<std::string, const CellConfig*> seen;
  for (const auto& cell : cells) {
    std::vector<const std::string*> labels{nullptr};
    if (uses_payload(cell)) {
      if (sizes.empty()) {
        throw UsageError(fmt::format("{}: cell '{}' uses {{payload}}, but the config has no [payloads] sizes",
                                     cell.where, cell.name),
                         "add [payloads] sizes = [\"1MiB\"] or drop {payload} from the command");
      }
      labels.clear();
      for (const auto& size : sizes) {
        labels.push_back(&size.label);
      }
    }
    for (const std::string* label : labels) {
      const std::string name = expanded_name(cell, label);
      if (name.ends_with(model::k_control_suffix)) {
        throw UsageError(fmt::format("{}: cell name '{}' ends in '{}', which names the A/A control cells", cell.where,
                                     name, model::k_control_suffix),
                         "rename the cell");
      }
      auto [it, fresh] = seen.emplace(name, &cell);
      if (!fresh) {
        throw UsageError(
            it->second == &cell
                ? fmt::format("{}: cell '{}' expands to '{}' twice: [payloads] sizes repeats a size", cell.where,
                              cell.name, name)
                : fmt::format("{}: a cell named '{}' appears twice (also at {})", cell.where, name, it->second->where),
            "give each cell its own name (after {size} expansion)");
      }
    }
  }
}

std::vector<process::CpuSplitRequest> cpu_split_requests(const std::vector<CellConfig>& cells) {
  std::vector<process::CpuSplitRequest> requests;
  for (const auto& cell : cells) {
    if (!cell.cpus.empty()) {
      requests.push_back({cell.name, cell.cpus});
    }
  }
  return requests;
}

CpuGroupLists cpu_group_lists(const std::vector<CellConfig>& cells, const model::IsolationPlan& plan) {
  CpuGroupLists lists;
  for (const auto& cell : cells) {
    for (const auto& group : cell.cpus) {
      lists[cell.name][group.name] = plan.group_list(cell.name, group.name);
    }
  }
  return lists;
}

std::vector<model::CellSpec> plan_cells(const std::vector<CellConfig>& cells, const std::vector<PayloadFile>& payloads,
                                        const ArmPaths& arms, const std::vector<std::string>& base_env,
                                        std::chrono::nanoseconds timeout, const CpuGroupLists& cpus) {
  std::vector<model::CellSpec> planned;
  for (const auto& cell : cells) {
    const auto found = cpus.find(cell.name);
    static const GroupLists k_no_groups;
    const GroupLists& groups = found == cpus.end() ? k_no_groups : found->second;
    std::vector<const PayloadFile*> variants{nullptr};
    if (uses_payload(cell) && !payloads.empty()) {
      variants.clear();
      for (const auto& payload : payloads) {
        variants.push_back(&payload);
      }
    }
    for (const PayloadFile* payload : variants) {
      model::CellSpec spec;
      spec.name = expanded_name(cell, payload != nullptr ? &payload->label : nullptr);
      if (payload != nullptr) {
        spec.meta.family = cell.name;
        spec.meta.payload_bytes = payload->bytes;
      }
      const ArmSettings& base = arms.baseline_settings;
      const ArmSettings& cand = arms.candidate_settings;
      spec.baseline = arm_invocation(cell, cell.command, arms.baseline, payload, base_env, timeout, groups, {base});
      spec.candidate = arm_invocation(cell, cell.command, arms.candidate, payload, base_env, timeout, groups, {cand});
      if (!arms.control.empty()) {
        spec.control_twin =
            arm_invocation(cell, cell.command, arms.control, payload, base_env, timeout, groups, {base});
      }
      spec.baseline_hooks = arm_hooks(cell, arms.baseline, payload, base_env, timeout, groups, base);
      if (!arms.control.empty()) {
        spec.control_twin_hooks = arm_hooks(cell, arms.control, payload, base_env, timeout, groups, base);
      }
      spec.candidate_hooks = arm_hooks(cell, arms.candidate, payload, base_env, timeout, groups, cand);
      spec.meta.candidate = arms.candidate_label;
      spec.placeholders = true;
      spec.shell = cell.command.is_shell();
      spec.check_output = cell.check_output;
      spec.meta.metrics = cell.metrics;
      spec.meta.gate = cell.gate;
      spec.meta.threshold = cell.threshold;
      spec.meta.custom = cell.custom;
      spec.meta.min_duration_seconds = cell.min_duration_seconds;
      spec.meta.window_key = cell.window_key;
      spec.meta.require = cell.require;
      spec.meta.suite = cell.suite;
      // one sweep per payload size: its levels differ in the parameters only
      spec.meta.sweep = cell.sweep.empty() || payload == nullptr
                            ? cell.sweep
                            : expanded_name(CellConfig{.name = cell.sweep}, &payload->label);
      spec.meta.params = cell.params;
      planned.push_back(std::move(spec));
    }
  }
  return planned;
}

namespace {

// `name` as an fnmatch pattern that matches it alone.
std::string glob_literal(const std::string& name) {
  std::string glob;
  for (char c : name) {
    if (c == '\\' || c == '*' || c == '?' || c == '[') {
      glob += '\\';
    }
    glob += c;
  }
  return glob;
}

// Appends `arguments` to every arm's invocation of `cell`.
void append_arguments(model::CellSpec& cell, const std::vector<std::string>& arguments) {
  for (auto* invocation : {&cell.baseline, &cell.candidate}) {
    invocation->argv.insert(invocation->argv.end(), arguments.begin(), arguments.end());
  }
  if (cell.control_twin) {
    cell.control_twin->argv.insert(cell.control_twin->argv.end(), arguments.begin(), arguments.end());
  }
}

// A suite cell that --cells narrowed to one glob of benchmarks runs only
// those, through its harness's own filter where it has one (appended to a
// command that is not a shell script); the rows are picked afterwards either way.
void filter_suite(model::CellSpec& cell) {
  if (cell.meta.rows.size() != 1 || cell.shell) {
    return;
  }
  if (const auto arguments = suites::filter_arguments(cell.meta.suite->harness, cell.meta.rows.front())) {
    append_arguments(cell, *arguments);
  }
}

} // namespace

void narrow_suite(model::CellSpec& cell, const std::vector<std::string>& benchmarks) {
  std::set<std::string> families;
  for (const auto& name : benchmarks) {
    cell.meta.rows.push_back(glob_literal(name));
    families.insert(model::benchmark_family(name));
  }
  const auto arguments = suites::family_filter_arguments(cell.meta.suite->harness, {families.begin(), families.end()});
  if (arguments && !cell.shell) {
    append_arguments(cell, *arguments);
  }
}

std::vector<model::CellSpec> select_cells(std::vector<model::CellSpec> cells, const std::vector<std::string>& globs,
                                          const std::string& flag) {
  if (globs.empty()) {
    return cells;
  }
  auto whole = [](const std::string& glob, const model::CellSpec& cell) {
    return ::fnmatch(glob.c_str(), cell.name.c_str(), 0) == 0;
  };
  // docs/manual/suites.md: "micro/BM_b*" picks suite micro's benchmarks that match BM_b*
  auto rows_of = [](const std::string& glob, const model::CellSpec& cell) -> std::optional<std::string> {
    const auto slash = glob.find('/');
    if (!cell.meta.suite || slash == std::string::npos ||
        ::fnmatch(glob.substr(0, slash).c_str(), cell.name.c_str(), 0) != 0) {
      return std::nullopt;
    }
    return glob.substr(slash + 1);
  };
  auto matches = [&](const std::string& glob, const model::CellSpec& cell) {
    return whole(glob, cell) || rows_of(glob, cell);
  };
  for (const auto& glob : globs) {
    if (glob.empty() || std::none_of(cells.begin(), cells.end(), [&](const auto& c) { return matches(glob, c); })) {
      std::string names;
      for (std::size_t i = 0; i < cells.size() && i < 20; ++i) {
        names += (i == 0 ? "" : ", ") + cells[i].name;
      }
      throw UsageError(fmt::format("{} '{}' matches no cell", flag, util::printable(glob)),
                       fmt::format("the cells are: {}{}", names, cells.size() > 20 ? ", …" : ""));
    }
  }
  std::erase_if(cells, [&](const model::CellSpec& cell) {
    return std::none_of(globs.begin(), globs.end(), [&](const std::string& glob) { return matches(glob, cell); });
  });
  for (auto& cell : cells) {
    if (std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) { return whole(glob, cell); })) {
      continue; // the whole suite
    }
    for (const auto& glob : globs) {
      if (auto rows = rows_of(glob, cell)) {
        cell.meta.rows.push_back(*rows);
      }
    }
    filter_suite(cell);
  }
  return cells;
}

} // namespace refbench::config
