#include <refbench/analysis/from_record.hpp>
#include <refbench/build/build.hpp>
#include <refbench/build/replicas.hpp>
#include <refbench/cli/common.hpp>
#include <refbench/cli/github_run.hpp>
#include <refbench/cli/run_arms.hpp>
#include <refbench/cli/run_command.hpp>
#include <refbench/cli/shard_run.hpp>
#include <refbench/cli/terminal.hpp>
#include <refbench/config/cells.hpp>
#include <refbench/config/config.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/reaper.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/report_model.hpp>
#include <refbench/report/results_json.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/payloads.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <unistd.h>

namespace refbench::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t k_default_build_disk = 1ull << 30;

// Settings after merging flags over refbench.toml over the defaults.
struct Effective {
  runner::RoundSettings rounds;
  std::chrono::nanoseconds timeout{};
  double precision = 0.02;
  double threshold = 1.15;
  double alpha = 0.05;
  bool control = true;
  std::optional<std::string> control_cell;
};

Effective effective_settings(const RunOptions& o, const config::Config& c) {
  Effective e;
  e.rounds.budget_seconds = util::to_seconds(o.budget ? duration_flag("--budget", *o.budget)
                                                      : c.run.budget.value_or(std::chrono::seconds(1500)));
  e.rounds.max_rounds = o.max_rounds.value_or(c.run.max_rounds.value_or(60));
  // a min-rounds that only the file or the default sets yields to a smaller --max-rounds
  e.rounds.min_rounds = o.min_rounds ? *o.min_rounds : std::min(c.run.min_rounds.value_or(10), e.rounds.max_rounds);
  e.rounds.warmup = o.warmup.value_or(c.run.warmup.value_or(1));
  e.rounds.seed = o.seed ? *o.seed : c.run.seed ? *c.run.seed : util::random_seed();
  e.timeout = o.timeout ? duration_flag("--timeout", *o.timeout) : c.run.timeout.value_or(std::chrono::minutes(10));
  e.precision = o.precision.value_or(c.run.precision.value_or(0.02));
  e.threshold = o.threshold.value_or(c.run.threshold.value_or(1.15));
  e.alpha = o.alpha.value_or(c.run.alpha.value_or(0.05));
  e.control = c.run.control.value_or(true);
  e.control_cell = c.run.control_cell;
  validate_settings(e.rounds, e.threshold, e.alpha, e.precision);
  return e;
}

// The effective settings that affect measurement, as text: part of what
// the shards of one run must share (README: run --shard).
std::string measurement_settings(const Effective& e, const std::string& interval) {
  return fmt::format("budget={} max_rounds={} min_rounds={} warmup={} timeout_ns={} precision={} threshold={} "
                     "alpha={} interval={} control={} control_cell={}",
                     e.rounds.budget_seconds, e.rounds.max_rounds, e.rounds.min_rounds, e.rounds.warmup,
                     e.timeout.count(), e.precision, e.threshold, e.alpha, interval, e.control,
                     e.control_cell.value_or(""));
}

// The refs: both must be named; the candidate first, since `merge-base`
// as the baseline is relative to it.
// A pull request's baseline is the merge base of `pr_base_sha` and the candidate.
std::pair<git::ResolvedRef, git::ResolvedRef> resolve_refs(const RunOptions& o, const std::string& repo,
                                                           const std::optional<std::string>& pr_base_sha) {
  if (!o.baseline || !o.candidate) {
    throw RefusedError(fmt::format("only one arm named: {} is missing", o.baseline ? "--candidate" : "--baseline"),
                       "name both refs, e.g. --baseline latest-release --candidate HEAD");
  }
  std::optional<git::ResolvedRef> pr_baseline; // checks first that both PR commits were fetched
  if (pr_base_sha) {
    pr_baseline = git::resolve_pull_request_base(repo, *pr_base_sha, *o.candidate);
  }
  auto candidate = git::resolve(repo, *o.candidate);
  auto baseline = pr_baseline ? *pr_baseline : git::resolve(repo, *o.baseline, candidate.sha);
  if (baseline.sha == candidate.sha && !o.allow_same_commit) {
    throw RefusedError(fmt::format("--baseline {} and --candidate {} are the same commit {}", *o.baseline, *o.candidate,
                                   baseline.sha.substr(0, 12)),
                       "pick two different refs, or pass --allow-same-commit for an A/A run");
  }
  return {baseline, candidate};
}

std::string reproduce_line(const RunOptions& o, const std::string& config_path, const Effective& e,
                           const git::ResolvedRef& baseline, const git::ResolvedRef& candidate) {
  return fmt::format("refbench run --repo {} --config {} --baseline {} --candidate {} --seed {} --budget {}s "
                     "--max-rounds {} --min-rounds {} --warmup {} --precision {} --threshold {} --alpha {} "
                     "--interval {} --fail-on {}",
                     util::quote_shell_word(o.repo), util::quote_shell_word(config_path), baseline.sha, candidate.sha,
                     e.rounds.seed, e.rounds.budget_seconds, e.rounds.max_rounds, e.rounds.min_rounds, e.rounds.warmup,
                     e.precision, e.threshold, e.alpha, o.interval, o.fail_on) +
         (o.isolate ? " --isolate " + util::quote_shell_word(*o.isolate) : "") +
         (o.replicas ? fmt::format(" --replicas {}", *o.replicas) : "");
}

// The results.json `arms` of a run: refs as typed, SHAs, worktrees, build times.
nlohmann::json arms_json(const Arms& arms, const git::ResolvedRef& baseline, const git::ResolvedRef& candidate,
                         const std::string& baseline_ref, const std::string& candidate_ref,
                         const build::BuildTimes& build_times) {
  auto arm = [&](const git::ResolvedRef& ref, const std::string& typed, runner::Arm which, double seconds) {
    return nlohmann::json{
        {"ref", typed}, {"name", ref.name}, {"sha", ref.sha}, {"dir", arms.tree(which)}, {"build_seconds", seconds}};
  };
  return {{"baseline", arm(baseline, baseline_ref, runner::Arm::baseline, build_times.seconds[0])},
          {"candidate", arm(candidate, candidate_ref, runner::Arm::candidate, build_times.seconds[1])}};
}

} // namespace

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", "Resolve two refs, build both, measure them in interleaved rounds");
  cmd->add_option("-c,--config", o.config, "Config file (default: refbench.toml in the repository)");
  cmd->add_option("--repo", o.repo, "The git repository")->capture_default_str();
  cmd->add_option("--baseline", o.baseline, "Baseline ref (or latest-release, default-branch, merge-base)");
  cmd->add_option("--candidate", o.candidate, "Candidate ref (or a keyword)");
  cmd->add_option("--budget", o.budget, "Measurement time budget (default 1500s)");
  cmd->add_option("--max-rounds", o.max_rounds, "Most rounds per cell (default 60)");
  cmd->add_option("--min-rounds", o.min_rounds, "Fewest rounds before precision stopping (default 10)");
  cmd->add_option("--precision", o.precision, "Target interval half-width in log units (default 0.02)");
  cmd->add_option("--threshold", o.threshold, "Ratio beyond which a change is a regression (default 1.15)");
  cmd->add_option("--alpha", o.alpha, "False discovery rate for regressions (default 0.05)");
  cmd->add_option("--seed", o.seed, "Seed of shuffles, pads and payloads (default: random, recorded)")
      ->check(check_seed);
  cmd->add_option("--warmup", o.warmup, "Discarded runs of each cell and arm before round 1 (default 1)");
  cmd->add_option("--timeout", o.timeout, "Per-invocation timeout (default 10m)");
  cmd->add_option("--out", o.out, "Output directory")->capture_default_str();
  cmd->add_option("--workdir", o.workdir, "Where the worktrees go (default <out>/arms)");
  cmd->add_flag("--keep-worktrees", o.keep_worktrees, "Leave the worktrees in place");
  cmd->add_flag("--allow-same-commit", o.allow_same_commit, "Allow an A/A run of one commit");
  cmd->add_option("--shard", o.shard, "Run only shard K of N of the cells (K/N), to merge with `refbench report`");
  add_fail_on_option(*cmd, o.fail_on);
  cmd->add_flag("--github", o.github,
                "Take the refs from the GitHub Actions event; write the job summary, outputs and comment.json");
  cmd->add_flag("--allow-pull-request-target", o.allow_pull_request_target, "Let --github act on pull_request_target");
  cmd->add_option("--interval", o.interval, "Interval: signed-rank or bootstrap")
      ->check(CLI::IsMember({"signed-rank", "bootstrap"}))
      ->capture_default_str();
  cmd->add_option("--isolate", o.isolate, "CPU isolation: auto, off or a CPU list like 2-3 (default auto)");
  cmd->add_option("--replicas", o.replicas, "Byte-identical copies of each built arm, drawn per round (default 3)")
      ->check(CLI::Range(1, config::k_max_replicas));
  cmd->add_option("--scrub-env", o.scrub_env,
                  "Keep this variable (a name or a glob like AWS_*) from build and cell commands; repeatable");
  return cmd;
}

CLI::App* add_resolve_command(CLI::App& app, ResolveOptions& o) {
  CLI::App* cmd = app.add_subcommand("resolve", "Print REF, SHA and directory name for each ref");
  cmd->add_option("refs", o.refs, "Refs or keywords (latest-release, default-branch, merge-base)")->required();
  cmd->add_option("--repo", o.repo, "The git repository")->capture_default_str();
  return cmd;
}

int run_resolve(const ResolveOptions& o) {
  const std::string repo = fs::absolute(o.repo).lexically_normal().string();
  if (!git::is_repository(repo)) {
    throw RefusedError(repo + " is not a git repository", "pass --repo DIR");
  }
  std::optional<std::string> head;
  for (const auto& ref : o.refs) {
    if (ref == "merge-base" && !head) {
      head = git::resolve(repo, "HEAD").sha;
    }
    auto resolved = git::resolve(repo, ref, head);
    std::cout << ref << "\t" << resolved.sha << "\t" << resolved.dir_name << "\n";
  }
  return 0;
}

int run_run(const RunOptions& options, const CommonOptions& common) {
  const double started = runner::monotonic_now();
  process::install_interrupt_handlers();
  auto launcher = process::Launcher::start(); // before refbench grows: RSS honesty (README: What is measured)
  process::hide_from_commands();
  // --github: the event names the refs the flags leave open (flags win)
  RunOptions o = options;
  std::optional<github::EventPlan> event;
  std::optional<std::string> pr_base_sha;
  if (o.github) {
    event = github_event_plan({o.baseline && o.candidate, o.allow_pull_request_target});
    if (!o.baseline && event->pr_base_sha) {
      pr_base_sha = event->pr_base_sha;
      o.baseline = "merge-base";
    }
    o.baseline = o.baseline ? o.baseline : event->baseline;
    o.candidate = o.candidate ? o.candidate : event->candidate;
  }

  const std::string repo = fs::absolute(o.repo).lexically_normal().string();
  if (!git::is_repository(repo)) {
    throw RefusedError(repo + " is not a git repository", "pass --repo DIR with the repository to compare");
  }
  const std::string config_path = o.config ? *o.config : (fs::path(repo) / "refbench.toml").string();
  if (!o.config && !fs::exists(config_path)) {
    throw UsageError("no refbench.toml in " + repo, "create one (see the README) or pass --config FILE");
  }
  const auto config = config::load_config(config_path);
  auto e = effective_settings(o, config);
  validate_scrub_names("--scrub-env", o.scrub_env);
  validate_scrub_names(config_path + ": run.scrub_env", config.run.scrub_env);
  const auto shard = o.shard ? std::optional(checked_shard(*o.shard, config)) : std::nullopt;
  auto isolation = process::plan_isolation_here(o.isolate.value_or(config.run.isolate.value_or("auto")),
                                                config::cpu_split_requests(config.cells));
  auto [baseline, candidate] = resolve_refs(o, repo, pr_base_sha);
  const std::string config_text = util::read_file(config_path).value_or("");
  const bool seed_derived = shard && !o.seed && !config.run.seed; // README: run --shard: matrix jobs agree on their own
  if (seed_derived) {
    e.rounds.seed = runner::derived_seed(baseline.sha, candidate.sha, config_text);
  }
  if (pr_base_sha) { // a PR's arms are reported by branch name
    baseline.name = event->baseline_name.value_or(baseline.name);
    candidate.name = options.candidate ? candidate.name : event->candidate_name.value_or(candidate.name);
  }

  const fs::path out = fs::absolute(o.out).lexically_normal();
  const fs::path work = o.workdir ? fs::absolute(*o.workdir).lexically_normal() : out / "arms";
  for (const auto& [flag, path] : {std::pair{"--out", out}, std::pair{"--workdir", work}}) {
    if (path.string().find_first_of("{}") != std::string::npos) { // it would be read as a placeholder
      throw UsageError(
          fmt::format("{} {} holds a brace, which the cells' placeholders are made of", flag, path.string()),
          "choose a directory without { or }");
    }
  }
  std::vector<std::uint64_t> payload_bytes;
  for (const auto& size : config.payload_sizes) {
    payload_bytes.push_back(size.bytes);
  }
  const int replica_count = o.replicas.value_or(config.run.replicas.value_or(config::k_default_replicas));
  runner::check_disk(
      out.string(), work.string(),
      runner::disk_needs(git::checkout_size_bytes(repo, baseline.sha), git::checkout_size_bytes(repo, candidate.sha),
                         config.build.disk.value_or(k_default_build_disk), payload_bytes, replica_count));
  std::error_code ec;
  fs::create_directories(out / "logs", ec);
  fs::create_directories(out / "outputs", ec);
  if (ec) {
    throw RefusedError("cannot create " + out.string() + ": " + ec.message(), "choose a writable --out directory");
  }
  for (const fs::path& dir : {out / "logs", out / "outputs"}) { // nothing is written through a planted link
    if (!util::is_real_directory(dir)) {
      throw RefusedError(dir.string() + " is not a directory of its own (a symlink?)",
                         "remove it, or choose another --out directory");
    }
  }

  if (!common.quiet) {
    std::cerr << fmt::format("refbench: baseline {} ({}), candidate {} ({})\n", *o.baseline, baseline.sha.substr(0, 7),
                             *o.candidate, candidate.sha.substr(0, 7));
  }
  if (!o.workdir && fs::is_symlink(work)) { // <out>/arms is refbench's; a link there leads outside --out
    throw RefusedError(work.string() + " is a symlink: the worktrees would be made where it points",
                       "remove it, or pass --workdir DIR");
  }
  Arms arms(repo, work, baseline, candidate, o.keep_worktrees);
  auto scrub = config.run.scrub_env; // the flag adds to the file's list: more is never less safe
  scrub.insert(scrub.end(), o.scrub_env.begin(), o.scrub_env.end());
  const auto env = process::without_secrets(process::current_environment(), scrub);
  build::BuildTimes build_times{{0.0, 0.0}};
  if (config.build.command) {
    if (!common.quiet) {
      std::cerr << "refbench: building both arms" << (config.build.parallel ? " in parallel" : "") << "\n";
    }
    // what a build leaves running (a daemon that left its process group) is
    // re-parented to refbench and killed once the builds are over
    process::become_subreaper();
    const ReapBuildLeftovers reap{launcher->pid()};
    build_times = build::build_arms(
        {{"baseline", arms.tree(runner::Arm::baseline), (out / "logs/build-baseline.log").string()},
         {"candidate", arms.tree(runner::Arm::candidate), (out / "logs/build-candidate.log").string()}},
        *config.build.command, config.build.env, env, config.build.timeout.value_or(std::chrono::minutes(30)),
        config.build.parallel);
  }

  const auto replicas = make_replicas(arms, out, work, replica_count, config.run.replicate, o.keep_worktrees);

  std::vector<config::PayloadFile> payload_files;
  nlohmann::json payloads_json = nlohmann::json::array();
  for (const auto& size : config.payload_sizes) {
    if (shard && !shard_uses_payload(config, *shard, size.bytes)) { // only this shard's cells read it
      payload_files.push_back({size.label, "", size.bytes});
      continue;
    }
    auto payload = runner::make_payload(out.string(), size.bytes, e.rounds.seed);
    payload_files.push_back({size.label, payload.path, size.bytes});
    payloads_json.push_back({{"label", size.label},
                             {"bytes", size.bytes},
                             {"path", payload.path},
                             {"sha256", payload.sha256},
                             {"reused", payload.reused}});
  }

  // after the builds, which use every CPU, and before {cpus.NAME} is filled in
  apply_isolation(isolation, *launcher, common.quiet);
  auto cells = config::plan_cells(config.cells, payload_files,
                                  {arms.path(runner::Arm::baseline), arms.path(runner::Arm::candidate),
                                   replicas.dirs[0].size() > 1 ? arms.control_path() : std::string()},
                                  env, e.timeout, config::cpu_group_lists(config.cells, isolation));
  runner::RoundSettings settings = e.rounds;
  settings.output_dir = (out / "outputs").string();
  settings.replicas = static_cast<int>(replicas.dirs[0].size());
  auto named = [&](const auto& c) { return e.control_cell && c.name == *e.control_cell; };
  const bool control_planned = shard && std::any_of(cells.begin(), cells.end(), named); // in any shard
  if (shard) {
    cells = runner::cells_of_shard(cells, *shard);
  }
  if (e.control && e.control_cell && (!control_planned || std::any_of(cells.begin(), cells.end(), named))) {
    auto it = std::find_if(cells.begin(), cells.end(), named);
    if (it == cells.end()) {
      throw UsageError(fmt::format("{}: run.control_cell '{}' is not a cell", config_path, *e.control_cell),
                       "name one of the cells (after {size} expansion)");
    }
    cells.push_back(runner::control_of(*it));
  } else {
    settings.auto_control = e.control;
  }

  report::RunContext context{"run",
                             reproduce_line(o, config_path, e, baseline, candidate) +
                                 (shard ? fmt::format(" --shard {}/{}", shard->index, shard->count) : ""),
                             *o.baseline,
                             *o.candidate,
                             settings,
                             {runner::Metric::wall, runner::Metric::cpu, runner::Metric::rss},
                             {runner::Metric::wall},
                             e.threshold,
                             e.alpha,
                             e.precision,
                             o.interval,
                             report::environment_json(&isolation),
                             arms_json(arms, baseline, candidate, *o.baseline, *o.candidate, build_times)};
  if (shard) {
    context.shard = runner::to_json(shard_identity(*shard, baseline.sha, candidate.sha, settings.seed, seed_derived,
                                                   config_text, measurement_settings(e, o.interval)));
    if (!common.quiet) {
      std::cerr << fmt::format("refbench: shard {}/{}: {} cells, seed {}{}\n", shard->index, shard->count,
                               cells.size() - (cells.empty() || !cells.back().control ? 0 : 1), settings.seed,
                               seed_derived ? " (derived from the refs and the config)" : "");
    }
  }
  runner::Journal journal((out / "journal.jsonl").string());
  journal.append(report::journal_header(context, cells, launcher->rss_probe(), settings.seed));

  const auto analysis_settings =
      cli::analysis_settings(e.threshold, e.alpha, settings.min_rounds, o.interval, settings.seed);
  runner::RoundHooks hooks;
  Progress progress(std::cerr, STDERR_FILENO, stderr_progress_mode(common.quiet), settings);
  progress.attach(hooks);
  hooks.place = [&](int, const runner::Placement& placement) { arms.place(placement, replicas.dirs); };
  hooks.precise = [&](const runner::RunRecord& record, std::size_t cell) {
    return analysis::precise_enough(record, cell, analysis::metrics_named(record.cells[cell].meta.gate, {}),
                                    e.precision, analysis_settings);
  };
  auto record = runner::run_rounds(cells, settings, *launcher, journal, hooks);
  progress.finish();
  journal.sync();

  auto results = analysis::analyze(analysis::cell_samples(record, context.metrics, context.gated), analysis_settings);
  auto document = report::results_json(record, context, results);
  document["payloads"] = payloads_json;
  document["config"] = config_path;
  document["harness_peak_rss_bytes"] = process::own_peak_rss_bytes();
  document["total_seconds"] = runner::monotonic_now() - started;
  write_outputs(out, document);
  if (event) {
    publish_to_github(out, document, *event);
  }
  std::cout << util::without_workflow_commands(
      report::render_verdict_table(results, stdout_table_colour(common.color)));
  if (!common.quiet) {
    std::cout << util::without_workflow_commands(report::render_run_summary(report::read_model(document))) << "\n";
    print_warnings(document);
    std::cout << fmt::format("seed {} · {} · report in {}\n", settings.seed,
                             report::format_seconds(record.elapsed_seconds), (out / "report.md").string());
  }
  if (record.interrupted_by != 0) {
    throw InterruptedError(record.interrupted_by);
  }
  for (const auto& cell : record.cells) {
    if (cell.failure && cell.failure->could_not_start) {
      throw RefusedError(fmt::format("cell {}: the {} command {}", cell.name,
                                     runner::arm_label(cell, cell.failure->arm), cell.failure->description),
                         "check the cell's command in " + config_path + " and that the build produced it");
    }
  }
  const std::string verdict = analysis::overall_verdict(results);
  if (verdict == "error") {
    print_failures(record);
    if (runner::low_on_disk(out.string())) {
      std::cerr << "refbench: error: out of disk space during the rounds — free space on " << out.string() << "\n";
    }
  }
  return exit_code_for(verdict, o.fail_on);
}

} // namespace refbench::cli
