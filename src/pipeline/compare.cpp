#include <refbench/analysis/from_record.hpp>
#include <refbench/build/replicas.hpp>
#include <refbench/config/config.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/pipeline/compare.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/pipeline/run_arms.hpp>
#include <refbench/pipeline/terminal.hpp>
#include <refbench/process/counters.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/machine.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace refbench::pipeline {
namespace {

namespace fs = std::filesystem;

std::vector<model::Metric> metric_flag(const std::string& flag, const std::string& text) {
  auto parsed = model::parse_metric_list(text);
  if (!parsed) {
    throw UsageError(flag + ": " + parsed.error());
  }
  return *parsed;
}

// The argv of a command as the user wrote it: shell words, or /bin/sh -c.
std::vector<std::string> command_argv(const std::string& arm, const std::string& command, bool shell) {
  if (shell) {
    return {"/bin/sh", "-c", command};
  }
  auto words = util::split_shell_words(command);
  if (!words) {
    throw UsageError(arm + " command `" + command + "` " + words.error(),
                     "pass --shell to run it with /bin/sh -c, or quote the argument");
  }
  return *words;
}

// Refuses (exit 3) a command whose program cannot be found or executed.
void require_runnable(const std::string& arm, const std::vector<std::string>& argv,
                      const std::vector<std::string>& env) {
  auto path = process::env_value(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  if (!process::find_executable(argv.front(), path)) {
    throw RefusedError(arm + " command cannot be started: `" + argv.front() + "` is not an executable file" +
                           (argv.front().find('/') == std::string::npos ? " on PATH" : ""),
                       "check the spelling, or pass --shell for shell built-ins and syntax");
  }
}

// Fresh copies of the programs the commands name first, and per arm the
// directory of each replica; the commands run them through <out>/arms/a, b
// and c (the control's second arm), links moved every round.
struct ProgramReplicas {
  build::Replicas copies;
  std::array<std::vector<std::string>, 2> dirs;
  fs::path links;
};

// Copies `cells`' programs `count` times under <out>/replicas and points
// their argv[0] (and the control twin's) at <out>/arms/{a,b,c}/NAME.
ProgramReplicas replicate_programs(model::CellSpec& cell, const fs::path& out, int count) {
  ProgramReplicas replicas;
  replicas.links = out / "arms";
  for (const fs::path& dir : {out / "arms", out / "replicas"}) { // nothing is written through a planted link
    std::error_code ec;
    if (fs::is_symlink(dir, ec) || (fs::exists(fs::symlink_status(dir, ec)) && !util::is_real_directory(dir))) {
      throw RefusedError(dir.string() + " is not a directory of its own (a symlink?)",
                         "remove it, or choose another --out directory");
    }
  }
  fs::create_directories(replicas.links);
  model::Invocation twin = cell.baseline;
  model::Invocation* invocations[] = {&cell.baseline, &cell.candidate};
  for (std::size_t arm = 0; arm < 2; ++arm) {
    auto& argv = invocations[arm]->argv;
    const auto path = process::env_value(invocations[arm]->env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
    const fs::path program = process::find_executable(argv.front(), path).value_or(argv.front());
    const fs::path dir = out / "replicas" / (arm == 0 ? "a" : "b");
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    fs::create_directories(dir);
    if (int error = build::copy_fresh_file(program, dir / program.filename()); error != 0) {
      throw RefusedError(
          fmt::format("cannot copy {} into {}: {}", program.string(), dir.string(), std::strerror(error)),
          "free disk space under --out, or run without --replicas");
    }
    replicas.dirs[arm] = replicas.copies.add(dir, count, {});
    argv.front() = (replicas.links / (arm == 0 ? "a" : "b") / program.filename()).string();
    if (arm == 0) {
      twin.argv.front() = (replicas.links / "c" / program.filename()).string();
    }
  }
  cell.control_twin = twin;
  return replicas;
}

// Points <links>/a, b and c at `placement`'s replicas.
void place_programs(const ProgramReplicas& replicas, const runner::Placement& placement) {
  const std::pair<const char*, std::string> links[] = {
      {"a", replicas.dirs[0].at(static_cast<std::size_t>(placement.baseline))},
      {"b", replicas.dirs[1].at(static_cast<std::size_t>(placement.candidate))},
      {"c", replicas.dirs[0].at(static_cast<std::size_t>(placement.control))}};
  for (const auto& [name, target] : links) {
    if (!util::point_symlink(replicas.links / name, target)) {
      throw MeasurementError(
          fmt::format("cannot point {} at {}: {}", (replicas.links / name).string(), target, std::strerror(errno)),
          "check that nothing else writes into " + replicas.links.string());
    }
  }
}

std::string reproduce_line(const CompareOptions& o, const config::MeasurementSettings& s) {
  std::string line =
      fmt::format("refbench compare --seed {} --budget {}s --max-rounds {} --min-rounds {} --warmup {} "
                  "--timeout {} --metric {} --gate {}",
                  s.seed.value, s.budget_seconds.value, s.max_rounds.value, s.min_rounds.value, s.warmup.value,
                  fmt::format("{}s", util::to_seconds(s.timeout.value)), o.metrics, o.gate);
  if (o.name != "compare") {
    line += " --name " + util::quote_shell_word(o.name);
  }
  if (o.shell) {
    line += " --shell";
  }
  for (const auto& [flag, command] :
       {std::pair{"--setup", &o.setup}, {"--prepare", &o.prepare}, {"--cleanup", &o.cleanup}}) {
    if (!command->empty()) {
      line += fmt::format(" {} {}", flag, util::quote_shell_word(*command));
    }
  }
  if (!s.control.value) {
    line += " --no-control";
  }
  if (s.isolate.value != "auto") {
    line += " --isolate " + util::quote_shell_word(s.isolate.value);
  }
  if (s.replicas.value > 1) {
    line += fmt::format(" --replicas {}", s.replicas.value);
  }
  if (s.counters.value != config::k_default_counters) {
    line += fmt::format(" --counters {}", model::counter_source_name(s.counters.value));
  }
  line += fmt::format(" --threshold {} --alpha {} --precision {} --interval {} --fail-on {}", s.threshold.value,
                      s.alpha.value, s.precision.value, analysis::interval_name(s.interval.value),
                      config::fail_on_name(s.fail_on.value));
  for (const auto& name : o.command_names) {
    line += " -n " + util::quote_shell_word(name);
  }
  line += " " + util::quote_shell_word(o.baseline);
  for (const auto& candidate : o.candidates) {
    line += " " + util::quote_shell_word(candidate);
  }
  return line;
}

// Holds `REFBENCH_TEST_BALLAST_MIB` MiB of touched memory, so tests can show
// that refbench's own size never reaches a child's peak RSS.
std::vector<char> test_ballast() {
  const char* mib = std::getenv("REFBENCH_TEST_BALLAST_MIB");
  std::vector<char> ballast;
  if (mib != nullptr) {
    ballast.assign(static_cast<std::size_t>(std::strtoull(mib, nullptr, 10)) << 20, 1);
  }
  return ballast;
}

} // namespace

namespace {

// The labels of the candidates in the report: their -n names, else the commands.
std::vector<std::string> candidate_labels(const CompareOptions& o) {
  if (!o.command_names.empty() && o.command_names.size() != o.candidates.size() + 1) {
    throw UsageError(fmt::format("{} command names for {} commands", o.command_names.size(), o.candidates.size() + 1),
                     "pass -n NAME once per command, the baseline's first");
  }
  std::vector<std::string> labels = o.command_names.empty()
                                        ? o.candidates
                                        : std::vector<std::string>(o.command_names.begin() + 1, o.command_names.end());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].empty() || std::find(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(i), labels[i]) !=
                                 labels.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError(fmt::format("candidate name '{}' is empty or names two candidates", util::printable(labels[i])),
                       "give each candidate its own -n NAME");
    }
  }
  return labels;
}

// The cell of each candidate of `o` (and the control, unless --no-control),
// with the programs replicated under `out` when --replicas asks for copies.
std::vector<model::CellSpec> compare_cells(const CompareOptions& o, const config::MeasurementSettings& settings,
                                           const fs::path& out, ProgramReplicas& replicas) {
  validate_scrub_names("--scrub-env", o.scrub_env);
  const auto labels = candidate_labels(o);
  auto env = process::without_secrets(process::current_environment(), o.scrub_env);
  model::Invocation baseline{command_argv("baseline", o.baseline, o.shell), env, "", settings.timeout.value, ""};
  require_runnable("baseline", baseline.argv, env);
  if (settings.replicas.value > 1 && o.shell) {
    throw UsageError("--replicas copies the program each command names first, and with --shell that is the shell",
                     "drop --shell, or --replicas");
  }
  if (settings.replicas.value > 1 && o.candidates.size() > 1) {
    throw UsageError("--replicas copies the programs of one candidate; this comparison has " +
                         std::to_string(o.candidates.size()),
                     "pass --replicas 1 to compare several candidates");
  }
  auto hook = [&](const char* flag, const std::string& command) -> std::optional<model::HookCommand> {
    if (command.empty()) {
      return std::nullopt;
    }
    model::Invocation invocation{command_argv(flag, command, o.shell), env, "", settings.timeout.value, ""};
    require_runnable(flag, invocation.argv, env);
    return model::HookCommand{invocation, o.shell};
  };
  const model::ArmHooks hooks{hook("--setup", o.setup), hook("--prepare", o.prepare), hook("--cleanup", o.cleanup)};
  std::vector<model::CellSpec> cells;
  for (std::size_t k = 0; k < o.candidates.size(); ++k) {
    const std::string arm = o.candidates.size() == 1 ? "candidate" : "candidate '" + labels[k] + "'";
    model::Invocation candidate{command_argv(arm, o.candidates[k], o.shell), env, "", settings.timeout.value, ""};
    require_runnable(arm, candidate.argv, env);
    cells.push_back({o.name, baseline, candidate, false});
    cells.back().baseline_hooks = hooks;
    cells.back().candidate_hooks = hooks;
    cells.back().meta.candidate = o.candidates.size() == 1 ? "" : labels[k];
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    throw RefusedError("cannot create the output directory " + out.string() + ": " + ec.message(),
                       "choose a writable --out directory");
  }
  if (settings.replicas.value > 1) {
    replicas = replicate_programs(cells.front(), fs::absolute(out), settings.replicas.value);
  }
  if (settings.control.value) {
    cells.push_back(model::control_of(cells.front()));
  }
  return cells;
}

} // namespace

namespace {

// What `compare` refuses before anything runs (exit 2), and what it takes
// from the options once they pass: the settings, the metrics shown and
// gated, the CPUs and the box asked for (`box_possible`: whether the bench
// can put commands in one).
struct CompareChecks {
  config::MeasurementSettings settings;
  std::vector<model::Metric> metrics;
  std::vector<model::Metric> gated;
  model::IsolationPlan isolation;
  model::SandboxMode sandbox;
};
CompareChecks check_compare(const CompareOptions& o, bool box_possible) {
  if (o.name.empty()) {
    throw UsageError("--name must not be empty");
  }
  if (o.name.ends_with(model::k_control_suffix)) {
    throw UsageError(
        fmt::format("--name {} ends in '{}', which names the A/A control cell", o.name, model::k_control_suffix),
        "choose another cell name");
  }
  CompareChecks checks{.settings = config::resolve(o.measure, nullptr, config::k_compare_defaults),
                       .metrics = metric_flag("--metric", o.metrics),
                       .gated = metric_flag("--gate", o.gate)};
  for (auto metric : checks.gated) {
    if (std::find(checks.metrics.begin(), checks.metrics.end(), metric) == checks.metrics.end()) {
      throw UsageError(
          fmt::format("--gate {} is not among the shown metrics ({})", model::metric_name(metric), o.metrics),
          "add it to --metric");
    }
  }
  // a bad --isolate list: exit 2 before anything runs
  checks.isolation = process::plan_isolation_here(checks.settings.isolate.value, {});
  checks.sandbox = o.sandbox.value_or(model::SandboxMode::automatic);
  check_box_possible(checks.sandbox, box_possible);
  return checks;
}

} // namespace

int run_compare(const CompareOptions& o, const CommonOptions& common) {
  const double started = runner::monotonic_now();
  check_compare(o, true); // refused before the launcher starts
  process::install_interrupt_handlers();
  auto launcher = process::Launcher::start();
  process::hide_from_commands();
  auto ballast = test_ballast();
  return compare_on(launcher_bench(*launcher), o, common, started);
}

int compare_on(const Bench& bench, const CompareOptions& o, const CommonOptions& common, double started) {
  auto [settings, metrics, gated, isolation, sandbox_mode] = check_compare(o, static_cast<bool>(bench.box));
  const fs::path out(o.out);
  ProgramReplicas replicas;
  MeasurementPlan plan{.cells = compare_cells(o, settings, out, replicas),
                       .settings = settings,
                       .metrics = metrics,
                       .gate = gated,
                       .replicas = settings.replicas.value,
                       .out = out,
                       .could_not_start_hint =
                           "check that it is a program for this machine, or pass --shell for shell scripts",
                       .cell_in_refusal = false};
  apply_isolation(isolation, bench, common.quiet);
  plan.header.command = "compare";
  plan.header.reproduce = reproduce_line(o, settings);
  plan.header.baseline =
      report::ArmInfo{.name = o.command_names.empty() ? "" : o.command_names.front(), .command = o.baseline};
  const auto labels = candidate_labels(o);
  for (std::size_t k = 0; k < o.candidates.size(); ++k) {
    plan.header.candidates.push_back(
        report::ArmInfo{.name = o.command_names.empty() ? "" : labels[k], .command = o.candidates[k]});
  }
  plan.header.candidate = plan.header.candidates.front();
  if (o.candidates.size() == 1) {
    plan.header.candidates.clear();
  }
  plan.header.environment = report::environment_info(process::machine_facts(), &isolation);
  plan.header.environment->sandbox = box_commands(bench.box, sandbox_mode, box_paths(out), *bench.err, common.quiet);
  plan_counts(plan);
  formats::JournalWriter journal((out / "journal.jsonl").string());
  Sinks sinks = sinks_of(bench, common);
  sinks.place = [&](int, const runner::Placement& placement) { place_programs(replicas, placement); };
  sinks.after_rounds = [&] {
    if (!replicas.links.empty()) { // the copies and their links
      std::error_code ignored;
      fs::remove_all(replicas.links, ignored);
      fs::remove_all(replicas.links.parent_path() / "replicas", ignored);
    }
  };
  sinks.started = started;
  return measure_and_report(plan, bench.executor, journal, sinks);
}

} // namespace refbench::pipeline
