#include <refbench/analysis/from_record.hpp>
#include <refbench/build/build.hpp>
#include <refbench/build/replicas.hpp>
#include <refbench/config/cells.hpp>
#include <refbench/config/config.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/pipeline/github_run.hpp>
#include <refbench/pipeline/history.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/pipeline/run.hpp>
#include <refbench/pipeline/run_arms.hpp>
#include <refbench/pipeline/run_plan.hpp>
#include <refbench/pipeline/run_refs.hpp>
#include <refbench/pipeline/shard_run.hpp>
#include <refbench/pipeline/terminal.hpp>
#include <refbench/process/counters.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/machine.hpp>
#include <refbench/process/reaper.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/payloads.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <memory>
#include <unistd.h>

namespace refbench::pipeline {
namespace {

namespace fs = std::filesystem;

// The settings that affect measurement, as text: part of what the shards
// of one run must share (docs/manual/commands.md#shards).
std::string measurement_settings(const config::MeasurementSettings& s, const config::RunConfig& run) {
  return fmt::format("budget={} max_rounds={} min_rounds={} warmup={} timeout_ns={} precision={} threshold={} "
                     "alpha={} interval={} control={} control_cell={}",
                     s.budget_seconds.value, s.max_rounds.value, s.min_rounds.value, s.warmup.value,
                     s.timeout.value.count(), s.precision.value, s.threshold.value, s.alpha.value,
                     analysis::interval_name(s.interval.value), s.control.value, run.control_cell.value_or(""));
}

std::string reproduce_line(const RunOptions& o, const std::string& config_path, const config::MeasurementSettings& s,
                           const git::ResolvedRef& baseline, const std::vector<git::ResolvedRef>& candidates) {
  std::string candidate_flags;
  for (const auto& candidate : candidates) {
    candidate_flags += " --candidate " + candidate.sha;
  }
  return fmt::format("refbench run --repo {} --config {} --baseline {}{} --seed {} --budget {}s "
                     "--max-rounds {} --min-rounds {} --warmup {} --precision {} --threshold {} --alpha {} "
                     "--interval {} --fail-on {}",
                     util::quote_shell_word(o.repo), util::quote_shell_word(config_path), baseline.sha, candidate_flags,
                     s.seed.value, s.budget_seconds.value, s.max_rounds.value, s.min_rounds.value, s.warmup.value,
                     s.precision.value, s.threshold.value, s.alpha.value, analysis::interval_name(s.interval.value),
                     config::fail_on_name(s.fail_on.value)) +
         (o.allow_same_commit ? " --allow-same-commit" : "") +
         (o.measure.isolate ? " --isolate " + util::quote_shell_word(*o.measure.isolate) : "") +
         (o.measure.replicas ? fmt::format(" --replicas {}", *o.measure.replicas) : "") +
         (o.measure.counters ? " --counters " + std::string(model::counter_source_name(*o.measure.counters)) : "") +
         (o.cells.empty() ? "" : " --cells " + util::quote_shell_word(fmt::format("{}", fmt::join(o.cells, ","))));
}

// Builds both arms with `env`; refbench reaps what the builds leave running.
build::BuildTimes build_both(const config::Config& config, const Arms& arms, const fs::path& out,
                             const std::vector<std::string>& env, pid_t keep, bool quiet) {
  if (!config.build.command) {
    return {std::vector<double>(arms.candidate_count() + 1, 0.0)};
  }
  if (!quiet) {
    std::cerr << "refbench: building " << (arms.candidate_count() == 1 ? "both arms" : "every arm")
              << (config.build.parallel ? " in parallel" : "") << "\n";
  }
  // what a build leaves running (a daemon that left its process group) is
  // re-parented to refbench and killed once the builds are over
  process::become_subreaper();
  const ReapBuildLeftovers reap{keep};
  std::vector<build::ArmBuild> builds{
      {"baseline", arms.tree(model::Arm::baseline), (out / "logs/build-baseline.log").string()}};
  for (std::size_t k = 0; k < arms.candidate_count(); ++k) { // candidate, candidate-2, …
    const std::string name = k == 0 ? "candidate" : fmt::format("candidate-{}", k + 1);
    builds.push_back({name, arms.candidate_tree(k), (out / "logs" / ("build-" + name + ".log")).string()});
  }
  return build::build_arms(builds, *config.build.command, config.build.env, env,
                           config.build.timeout.value_or(std::chrono::minutes(30)), config.build.parallel);
}

} // namespace

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

namespace {

// docs/manual/commands.md#more-candidates: what a run of several candidates cannot do
// (shards, a history: its series are one candidate's); replicas, on by
// default, are off (said unless `quiet`).
void check_candidates(const RunOptions& o, Inputs& in, bool quiet, bool history) {
  if (o.candidates.size() <= 1) {
    return;
  }
  if (history) {
    throw UsageError(fmt::format("--history keeps the series of one candidate; this run names {}", o.candidates.size()),
                     "run each candidate with its own --history DIR, or drop --history (and [history] dir)");
  }
  if (in.shard) {
    throw UsageError("--shard splits a run of one candidate; this run names " + std::to_string(o.candidates.size()),
                     "shard each candidate's run, or drop --shard");
  }
  if (in.settings.replicas.value > 1 && in.settings.replicas.origin == "default") {
    in.settings.replicas.value = 1;
    if (!quiet) {
      std::cerr << "refbench: note: replicas are made for one candidate, so this run of " << o.candidates.size()
                << " measures each arm in its one worktree\n";
    }
  } else if (in.settings.replicas.value > 1) {
    throw UsageError(fmt::format("replicas ({}) are made for one candidate; this run names {}",
                                 in.settings.replicas.value, o.candidates.size()),
                     "pass --replicas 1 (or set run.replicas = 1) to compare several candidates");
  }
}

// Before anything is built: a counter when a cell shows a counted metric
// (docs/manual/counters.md).
void check_counter(const Inputs& in) {
  for (const auto& cell : in.config.cells) {
    for (const auto& name : cell.metrics) {
      if (const auto metric = model::parse_metric(name);
          metric && model::metric_info(*metric).stored == model::Reading::instructions) {
        counter_here(in.settings);
        return;
      }
    }
  }
}

// Before anything is built: disk for every checkout, one build per arm
// (build.disk each) and the payloads.
void check_run_disk(const Inputs& in, const fs::path& out, const fs::path& work, const git::ResolvedRef& baseline,
                    const std::vector<git::ResolvedRef>& candidates) {
  std::vector<std::uint64_t> payload_bytes;
  for (const auto& size : in.config.payload_sizes) {
    payload_bytes.push_back(size.bytes);
  }
  std::uint64_t candidate_bytes = 0;
  for (const auto& candidate : candidates) {
    candidate_bytes += git::checkout_size_bytes(in.repo, candidate.sha);
  }
  runner::check_disk(out.string(), work.string(),
                     runner::disk_needs(git::checkout_size_bytes(in.repo, baseline.sha), candidate_bytes,
                                        in.config.build.disk.value_or(k_default_build_disk) * candidates.size(),
                                        payload_bytes, in.settings.replicas.value));
}

// The cells to measure: every candidate's, NEW ones marked, the A/A control added.
std::vector<model::CellSpec> run_cells(std::vector<model::CellSpec> planned, const Inputs& in,
                                       const BaselineCells& lifecycle, MeasurementPlan& plan) {
  plan.header.removed_cells = mark_new_cells(planned, in.config, lifecycle);
  // every cell NEW: the run's verdict is inconclusive and its warning says why (report::run_warnings)
  return with_control(std::move(planned), in, plan.auto_control);
}

// docs/manual/security.md: the box that `o` (over the config) asks for; where
// it is "required", refused at once (exit 3) when the kernel already says no.
model::SandboxMode sandbox_mode_of(const RunOptions& o, const Inputs& in, const Bench& bench) {
  const auto mode = o.sandbox.value_or(in.config.run.sandbox.value_or(model::SandboxMode::automatic));
  check_box_possible(mode, static_cast<bool>(bench.box));
  return mode;
}

// The run's environment once `bench`'s commands are in the box of `paths`
// that `mode` asks for (docs/manual/security.md): after the builds and the
// replicas, before the payloads are used.
report::EnvironmentInfo boxed_environment(const Bench& bench, model::SandboxMode mode, const process::BoxPaths& paths,
                                          const model::IsolationPlan& isolation, bool quiet) {
  auto environment = report::environment_info(process::machine_facts(), &isolation);
  environment.sandbox = box_commands(bench.box, mode, paths, std::cerr, quiet);
  return environment;
}

// docs/manual/security.md: records the arms' trees (and the payloads) as
// built, for `sinks`' rounds to check within `in`'s budget, exempting
// what its run.writable says; says what that cost, unless `quiet`.
void watch_trees(Sinks& sinks, const Arms& arms, const ArmReplicas& replicas, const fs::path& payloads,
                 const Inputs& in, bool quiet) {
  const auto& writable = in.config.run.writable;
  const double budget_seconds = in.settings.budget_seconds.value;
  const double hashing = util::monotonic_seconds();
  const auto manifests =
      std::make_shared<const std::vector<build::TreeManifest>>(take_manifests(arms, replicas, payloads, writable));
  const double hashed = util::monotonic_seconds() - hashing;
  const auto checking = std::make_shared<double>(0.0);
  // trees whose hashing alone would take more than a tenth of the budget are not hashed again at the end
  const bool rehash = hashed <= k_tree_check_share * budget_seconds;
  sinks.check_trees = tree_check(manifests, checking, k_tree_check_free, rehash);
  if (auto exempt = exempt_line(*manifests, writable); !exempt.empty()) {
    sinks.amend = [exempt = std::move(exempt), next = std::move(sinks.amend)](report::RunDocument& document) {
      document.warnings.push_back({"", exempt});
      if (next) {
        next(document);
      }
    };
  }
  if (!quiet) {
    std::cerr << trees_line(*manifests, hashed);
    if (!rehash) {
      std::cerr << fmt::format("refbench: hashing them took more than a tenth of the {:.0f} s budget: the last check "
                               "compares what lstat says (kind, mode, size, inode, times), not their bytes again\n",
                               budget_seconds);
    }
    sinks.after_rounds = [checking] {
      std::cerr << fmt::format("refbench: the checks of the arms' trees took {:.3f} s in all\n", *checking);
    };
  }
}

// A pull request's arms as `event` names them (its branches), the
// candidate's only when it is the event's (`event_candidate`).
void name_pull_request_arms(const github::EventPlan& event, git::ResolvedRef& baseline,
                            std::vector<git::ResolvedRef>& candidates, bool event_candidate) {
  baseline.name = event.baseline_name.value_or(baseline.name);
  if (event_candidate) {
    candidates.front().name = event.candidate_name.value_or(candidates.front().name);
  }
}

// docs/manual/commands.md#shards: the shard `plan` measures, recorded in its header
// and (unless `quiet`) said.
void record_shard(MeasurementPlan& plan, const Inputs& in, const std::string& baseline_sha,
                  const std::string& candidate_sha, bool seed_derived, bool quiet) {
  plan.header.shard = shard_identity(*in.shard, baseline_sha, candidate_sha, plan.settings.seed.value, seed_derived,
                                     in.config_text, measurement_settings(in.settings, in.config.run));
  if (!quiet) {
    const auto& cells = plan.cells;
    std::cerr << fmt::format("refbench: shard {}/{}: {} cells, seed {}{}\n", in.shard->index, in.shard->count,
                             cells.size() - (cells.empty() || !cells.back().control ? 0 : 1), plan.settings.seed.value,
                             seed_derived ? " (derived from the refs and the config)" : "");
  }
}

// Where a run's results go besides its --out: the GitHub event's check and
// comment, the nightly history.
struct Destinations {
  fs::path out;
  std::optional<github::EventPlan> event;
  std::optional<fs::path> history_dir;
  bool pull_request = false;
};

// The rest of a run's `sinks`: a shard's suites split, the results published to `to`'s event and history.
void finish_sinks(Sinks& sinks, MeasurementPlan& plan, const Inputs& in, const Bench& bench, const Destinations& to,
                  bool quiet) {
  if (in.shard) { // docs/manual/suites.md: a suite's benchmarks split over the shards, once the suite has listed them
    for (const auto& line : split_suites(plan, *in.shard, bench.executor, sinks.place)) {
      if (!quiet) {
        std::cerr << util::printable(line) << "\n";
      }
    }
  }
  if (to.event) {
    sinks.publish = [out = to.out, event = *to.event](const report::RunDocument& document) {
      publish_to_github(out, document, event);
    };
  }
  add_history(sinks, to.history_dir, to.pull_request, in.repo, quiet,
              in.config.history_window.value_or(history::k_default_window));
}

} // namespace

int run_run(const RunOptions& options, const CommonOptions& common) {
  const double started = runner::monotonic_now();
  process::install_interrupt_handlers();
  auto launcher = process::Launcher::start(); // before refbench grows: RSS honesty (docs/manual/measurement.md)
  process::hide_from_commands();
  return run_on(launcher_bench(*launcher), options, common, started);
}

int run_on(const Bench& bench, const RunOptions& options, const CommonOptions& common, double started) {
  auto in = read_inputs(options);
  auto [o, event, pr_base_sha] = refs_from_event(options);
  if (o.candidates.empty()) { // the flags win, then the GitHub event, then run.candidates
    o.candidates = in.config.run.candidates;
  }
  const auto history_dir = history_dir_of(o, in.config);
  check_history_place(o, in.config, in.repo, pr_base_sha.has_value());
  check_candidates(o, in, common.quiet, history_dir.has_value());
  check_counter(in);
  const auto sandbox_mode = sandbox_mode_of(o, in, bench);
  auto isolation = process::plan_isolation_here(in.settings.isolate.value, config::cpu_split_requests(in.config.cells));
  auto [baseline, candidates] = resolve_refs(o, in.repo, pr_base_sha, history_dir);
  const bool seed_derived = in.shard && in.settings.seed.origin == "random"; // docs/manual/commands.md#shards
  if (seed_derived) {
    in.settings.seed = {model::derived_seed(baseline.sha, candidates.front().sha, in.config_text), "derived"};
  }
  if (pr_base_sha) { // a PR's arms are reported by branch name
    name_pull_request_arms(*event, baseline, candidates, options.candidates.empty());
  }
  const auto [out, work] = out_and_work(o);
  // docs/manual/config.md#new-and-removed-cells
  const auto lifecycle = baseline_cells(in.repo, baseline.sha, in.config_path);
  if (!lifecycle.warning.empty() && !common.quiet) {
    std::cerr << "refbench: warning: " << util::printable(lifecycle.warning) << "\n";
  }
  check_run_disk(in, out, work, baseline, candidates);
  make_out_dirs(out);
  if (!common.quiet) {
    std::cerr << arms_line(o, baseline, candidates);
  }
  if (!o.workdir && fs::is_symlink(work)) { // <out>/arms is refbench's; a link there leads outside --out
    throw RefusedError(work.string() + " is a symlink: the worktrees would be made where it points",
                       "remove it, or pass --workdir DIR");
  }
  Arms arms(in.repo, work, baseline, candidates, o.keep_worktrees);
  auto scrub = in.config.run.scrub_env; // the flag adds to the file's list: more is never less safe
  scrub.insert(scrub.end(), o.scrub_env.begin(), o.scrub_env.end());
  const auto env = process::without_secrets(process::current_environment(), scrub);
  const auto build_times = build_both(in.config, arms, out, env, bench.keep, common.quiet);
  const auto replicas =
      make_replicas(arms, out, work, in.settings.replicas.value, in.config.run.replicate, o.keep_worktrees);
  nlohmann::json payloads_json;
  const auto payload_files = make_payloads(in, out, in.settings.seed.value, payloads_json);

  // after the builds, which use every CPU, and before {cpus.NAME} is filled in
  apply_isolation(isolation, bench, common.quiet);
  MeasurementPlan plan{.settings = in.settings,
                       .output_dir = (out / "outputs").string(),
                       .replicas = static_cast<int>(replicas.dirs[0].size()),
                       .out = out,
                       .could_not_start_hint =
                           "check the cell's command in " + in.config_path + " and that the build produced it"};
  record_arms(plan.header, arms, baseline, candidates, o, in.config, build_times);
  std::vector<std::string> labels;
  for (const auto& arm : plan.header.candidates) {
    labels.push_back(arm.label());
  }
  plan.cells =
      run_cells(plan_candidates(in, arms, replicas, payload_files, env, isolation, labels), in, lifecycle, plan);
  plan.header.command = "run";
  plan.header.reproduce = reproduce_line(o, in.config_path, in.settings, baseline, candidates) +
                          (in.shard ? fmt::format(" --shard {}/{}", in.shard->index, in.shard->count) : "");
  plan.header.environment = boxed_environment(
      bench, sandbox_mode, box_paths(out, work, replicas, arms, in.config.run.writable), isolation, common.quiet);
  plan_counts(plan);
  if (in.shard) {
    record_shard(plan, in, baseline.sha, candidates.front().sha, seed_derived, common.quiet);
  }
  plan.payloads = payloads_json;
  plan.config = in.config_path;
  formats::JournalWriter journal((out / "journal.jsonl").string());
  Sinks sinks = sinks_of(bench, common);
  sinks.place = [&](int, const runner::Placement& placement) { arms.place(placement, replicas.dirs); };
  sinks.check_links = [&] { return arms.moved_links(); };
  watch_trees(sinks, arms, replicas, out / "payloads", in, common.quiet);
  sinks.started = started;
  finish_sinks(sinks, plan, in, bench, {out, event, history_dir, pr_base_sha.has_value()}, common.quiet);
  return measure_and_report(plan, bench.executor, journal, sinks);
}

} // namespace refbench::pipeline
