#include <refbench/analysis/from_record.hpp>
#include <refbench/build/replicas.hpp>
#include <refbench/cli/common.hpp>
#include <refbench/cli/compare_command.hpp>
#include <refbench/cli/terminal.hpp>
#include <refbench/config/config.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/report_model.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace refbench::cli {
namespace {

namespace fs = std::filesystem;

std::vector<runner::Metric> metric_flag(const std::string& flag, const std::string& text) {
  auto parsed = runner::parse_metric_list(text);
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
ProgramReplicas replicate_programs(runner::CellSpec& cell, const fs::path& out, int count) {
  ProgramReplicas replicas;
  replicas.links = out / "arms";
  fs::create_directories(replicas.links);
  process::Invocation twin = cell.baseline;
  process::Invocation* invocations[] = {&cell.baseline, &cell.candidate};
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

std::string reproduce_line(const CompareOptions& o, std::uint64_t seed, int min_rounds) {
  std::string line = fmt::format("refbench compare --seed {} --budget {} --max-rounds {} --min-rounds {} --warmup {} "
                                 "--timeout {} --metric {} --gate {}",
                                 seed, util::quote_shell_word(o.budget), o.max_rounds, min_rounds, o.warmup,
                                 util::quote_shell_word(o.timeout), o.metrics, o.gate);
  if (o.name != "compare") {
    line += " --name " + util::quote_shell_word(o.name);
  }
  if (o.shell) {
    line += " --shell";
  }
  if (o.no_control) {
    line += " --no-control";
  }
  if (o.isolate != "auto") {
    line += " --isolate " + util::quote_shell_word(o.isolate);
  }
  if (o.replicas > 1) {
    line += fmt::format(" --replicas {}", o.replicas);
  }
  line += fmt::format(" --threshold {} --alpha {} --precision {} --interval {} --fail-on {}", o.threshold, o.alpha,
                      o.precision, o.interval, o.fail_on);
  return line + " " + util::quote_shell_word(o.baseline) + " " + util::quote_shell_word(o.candidate);
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

CLI::App* add_compare_command(CLI::App& app, CompareOptions& o) {
  CLI::App* cmd = app.add_subcommand("compare", "Interleaved A/B of two commands on this machine (no git)");
  cmd->add_option("baseline", o.baseline, "Baseline command")->required();
  cmd->add_option("candidate", o.candidate, "Candidate command")->required();
  cmd->add_option("--budget", o.budget, "Measurement time budget, e.g. 120s, 25m")->capture_default_str();
  cmd->add_option("--max-rounds", o.max_rounds, "Most rounds per cell")->capture_default_str();
  cmd->add_option("--min-rounds", o.min_rounds, "Fewest rounds before a cell may stop on precision (default 10)");
  cmd->add_option("--precision", o.precision, "Target interval half-width in log units")->capture_default_str();
  cmd->add_option("--threshold", o.threshold, "Ratio beyond which a change is a regression")->capture_default_str();
  cmd->add_option("--alpha", o.alpha, "False discovery rate for regressions")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of the shuffles and pads (default: random, always recorded)")
      ->check(check_seed);
  cmd->add_option("--warmup", o.warmup, "Discarded runs of each command before round 1")->capture_default_str();
  cmd->add_option("--timeout", o.timeout, "Per-invocation timeout, e.g. 30s, 10m")->capture_default_str();
  cmd->add_option("--out", o.out, "Output directory")->capture_default_str();
  cmd->add_option("--name", o.name, "Cell name")->capture_default_str();
  cmd->add_flag("--shell", o.shell, "Run each command with /bin/sh -c instead of splitting it into words");
  cmd->add_flag("--no-control", o.no_control, "Skip the A/A control cell");
  cmd->add_option("--metric", o.metrics, "Metrics to show: wall,cpu,user,sys,rss")->capture_default_str();
  cmd->add_option("--gate", o.gate, "Metrics that can fail the run")->capture_default_str();
  cmd->add_option("--interval", o.interval, "Interval: signed-rank (default) or bootstrap (BCa, 10 000 resamples)")
      ->check(CLI::IsMember({"signed-rank", "bootstrap"}))
      ->capture_default_str();
  add_fail_on_option(*cmd, o.fail_on);
  cmd->add_option("--isolate", o.isolate, "CPU isolation: auto, off or a CPU list like 2-3")->capture_default_str();
  cmd->add_option(
         "--replicas", o.replicas,
         "Byte-identical copies of each command's program, one drawn per round (default 1: the program itself)")
      ->check(CLI::Range(1, config::k_max_replicas))
      ->capture_default_str();
  cmd->add_option("--scrub-env", o.scrub_env,
                  "Keep this variable (a name or a glob like AWS_*) from the commands; repeatable");
  return cmd;
}

int run_compare(const CompareOptions& o, const CommonOptions& common) {
  const double started = runner::monotonic_now();
  if (o.name.empty()) {
    throw UsageError("--name must not be empty");
  }
  if (o.name.ends_with(runner::k_control_suffix)) {
    throw UsageError(
        fmt::format("--name {} ends in '{}', which names the A/A control cell", o.name, runner::k_control_suffix),
        "choose another cell name");
  }
  runner::RoundSettings settings;
  settings.budget_seconds = util::to_seconds(duration_flag("--budget", o.budget));
  settings.max_rounds = o.max_rounds;
  settings.min_rounds = o.min_rounds.value_or(std::min(10, o.max_rounds));
  settings.warmup = o.warmup;
  settings.seed = o.seed.value_or(util::random_seed());
  validate_settings(settings, o.threshold, o.alpha, o.precision);
  const auto timeout = duration_flag("--timeout", o.timeout);
  auto metrics = metric_flag("--metric", o.metrics);
  auto gated = metric_flag("--gate", o.gate);
  for (auto metric : gated) {
    if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) {
      throw UsageError(
          fmt::format("--gate {} is not among the shown metrics ({})", runner::metric_name(metric), o.metrics),
          "add it to --metric");
    }
  }

  validate_scrub_names("--scrub-env", o.scrub_env);
  auto env = process::without_secrets(process::current_environment(), o.scrub_env);
  process::Invocation baseline{command_argv("baseline", o.baseline, o.shell), env, "", timeout, ""};
  process::Invocation candidate{command_argv("candidate", o.candidate, o.shell), env, "", timeout, ""};
  require_runnable("baseline", baseline.argv, env);
  require_runnable("candidate", candidate.argv, env);

  auto isolation = process::plan_isolation_here(o.isolate, {}); // a bad list: exit 2 before anything runs

  if (o.replicas > 1 && o.shell) {
    throw UsageError("--replicas copies the program each command names first, and with --shell that is the shell",
                     "drop --shell, or --replicas");
  }
  std::vector<runner::CellSpec> cells{{o.name, baseline, candidate, false}};

  const fs::path out(o.out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    throw RefusedError("cannot create the output directory " + out.string() + ": " + ec.message(),
                       "choose a writable --out directory");
  }
  ProgramReplicas replicas;
  if (o.replicas > 1) {
    replicas = replicate_programs(cells.front(), fs::absolute(out), o.replicas);
    settings.replicas = o.replicas;
  }
  if (!o.no_control) {
    cells.push_back(runner::control_of(cells.front()));
  }

  process::install_interrupt_handlers();
  auto launcher = process::Launcher::start();
  process::hide_from_commands();
  auto ballast = test_ballast();
  apply_isolation(isolation, *launcher, common.quiet);

  report::RunContext context{"compare",  reproduce_line(o, settings.seed, settings.min_rounds),
                             o.baseline, o.candidate,
                             settings,   metrics,
                             gated,      o.threshold,
                             o.alpha,    o.precision,
                             o.interval, report::environment_json(&isolation)};
  runner::Journal journal((out / "journal.jsonl").string());
  journal.append(report::journal_header(context, cells, launcher->rss_probe(), settings.seed));

  runner::RoundHooks hooks;
  Progress progress(std::cerr, STDERR_FILENO, stderr_progress_mode(common.quiet), settings);
  progress.attach(hooks);
  hooks.place = [&](int, const runner::Placement& placement) { place_programs(replicas, placement); };
  const auto analysis_settings =
      cli::analysis_settings(o.threshold, o.alpha, settings.min_rounds, o.interval, settings.seed);
  hooks.precise = [&](const runner::RunRecord& record, std::size_t cell) {
    return analysis::precise_enough(record, cell, gated, o.precision, analysis_settings);
  };
  auto record = runner::run_rounds(cells, settings, *launcher, journal, hooks);
  progress.finish();
  if (!replicas.links.empty()) { // the copies and their links
    std::error_code ignored;
    fs::remove_all(replicas.links, ignored);
    fs::remove_all(replicas.links.parent_path() / "replicas", ignored);
  }
  journal.sync();

  auto results = analysis::analyze(analysis::cell_samples(record, metrics, gated), analysis_settings);
  auto document = report::results_json(record, context, results);
  document["harness_peak_rss_bytes"] = process::own_peak_rss_bytes();
  document["total_seconds"] = runner::monotonic_now() - started;
  write_outputs(out, document);
  std::cout << util::without_workflow_commands(
      report::render_verdict_table(results, stdout_table_colour(common.color)));
  if (!common.quiet) {
    std::cout << util::without_workflow_commands(report::render_run_summary(report::read_model(document))) << "\n";
    print_warnings(document);
    std::cout << fmt::format("seed {} · {} · rss floor {} (launcher) · report in {}\n", settings.seed,
                             report::format_seconds(record.elapsed_seconds),
                             report::format_bytes(static_cast<double>(record.rss.floor_bytes)),
                             (out / "report.md").string());
  }
  if (record.interrupted_by != 0) {
    throw InterruptedError(record.interrupted_by);
  }
  for (const auto& cell : record.cells) {
    if (cell.failure && cell.failure->could_not_start) {
      throw RefusedError(
          fmt::format("{} command {}", runner::arm_label(cell, cell.failure->arm), cell.failure->description),
          "check that it is a program for this machine, or pass --shell for shell scripts");
    }
  }
  const std::string verdict = analysis::overall_verdict(results);
  if (verdict == "error") {
    print_failures(record);
  }
  return exit_code_for(verdict, o.fail_on);
}

} // namespace refbench::cli
