#include <refbench/analysis/analysis.hpp>
#include <refbench/cli/commands.hpp>
#include <refbench/cli/options.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/history/series.hpp>
#include <refbench/model/metrics.hpp>
#include <refbench/pipeline/analyze.hpp>
#include <refbench/pipeline/bisect.hpp>
#include <refbench/pipeline/comment.hpp>
#include <refbench/pipeline/compare.hpp>
#include <refbench/pipeline/history.hpp>
#include <refbench/pipeline/report.hpp>
#include <refbench/pipeline/run.hpp>

#include <fmt/format.h>

namespace refbench::cli {
namespace {

using pipeline::AnalyzeOptions;
using pipeline::BisectOptions;
using pipeline::CommentOptions;
using pipeline::CompareOptions;
using pipeline::HistoryOptions;
using pipeline::ReportOptions;
using pipeline::ResolveOptions;
using pipeline::RunOptions;

// Adds what `run` and `bisect` share to `cmd`, bound to `o`: -c/--config,
// --repo, --out, --workdir, --keep-worktrees, --scrub-env.
void add_checkout_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("-c,--config", o.config, "Config file (default: refbench.toml in the repository)");
  cmd.add_option("--repo", o.repo, "The git repository")->capture_default_str();
  cmd.add_option("--out", o.out, "Output directory")->capture_default_str();
  cmd.add_option("--workdir", o.workdir, "Where the worktrees go (default <out>/arms)");
  cmd.add_flag("--keep-worktrees", o.keep_worktrees, "Leave the worktrees in place");
  cmd.add_option("--scrub-env", o.scrub_env,
                 "Keep this variable (a name or a glob like AWS_*) from build and cell commands; repeatable");
  add_choice_option(cmd, "--sandbox", o.sandbox, model::k_sandbox_mode_names,
                    "Run the benchmarked commands in a box of namespaces: auto (default: where the kernel allows), "
                    "required or off");
}

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", "Resolve two refs, build both, measure them in interleaved rounds");
  add_checkout_options(*cmd, o);
  cmd->add_option("--baseline", o.baseline, "Baseline ref (or latest-release, default-branch, merge-base)");
  cmd->add_option("--candidate", o.candidates,
                  "Candidate ref (or a keyword); repeat it to compare several candidates with the baseline")
      ->allow_extra_args(false);
  add_measurement_options(*cmd, o.measure, config::k_run_defaults);
  cmd->add_flag("--allow-same-commit", o.allow_same_commit, "Allow an A/A run of one commit");
  cmd->add_option("--shard", o.shard, "Run only shard K of N of the cells (K/N), to merge with `refbench report`");
  cmd->add_option("--cells", o.cells, "Run only the cells matching one of these globs (GLOB[,GLOB...]; repeatable)")
      ->delimiter(',');
  cmd->add_flag("--github", o.github,
                "Take the refs from the GitHub Actions event; write the job summary, outputs and comment.json");
  cmd->add_flag("--allow-pull-request-target", o.allow_pull_request_target, "Let --github act on pull_request_target");
  cmd->add_option("--history", o.history,
                  "Append the results to DIR/history.jsonl (a pull request's run only reads it); history-last "
                  "names its last candidate");
  return cmd;
}

CLI::App* add_resolve_command(CLI::App& app, ResolveOptions& o) {
  CLI::App* cmd = app.add_subcommand("resolve", "Print REF, SHA and directory name for each ref");
  cmd->add_option("refs", o.refs, "Refs or keywords (latest-release, default-branch, merge-base)")->required();
  cmd->add_option("--repo", o.repo, "The git repository")->capture_default_str();
  return cmd;
}

CLI::App* add_bisect_command(CLI::App& app, BisectOptions& o) {
  CLI::App* cmd =
      app.add_subcommand("bisect", "Find the first commit between two refs that made a metric worse (or better)");
  add_checkout_options(*cmd, o.run);
  cmd->add_option("--good", o.good, "The last commit known to be fine (a ref or SHA)")->required();
  cmd->add_option("--bad", o.bad, "A later commit that is slower (a ref or SHA)")->required();
  cmd->add_option("--metric", o.metric,
                  "The metric to bisect: " + model::metric_choices() + ", or a cell's custom metric")
      ->capture_default_str();
  cmd->add_flag("--improvement", o.improvement, "Find the commit that made it better instead");
  cmd->add_flag("--first-parent-only", o.first_parent_only, "Name a merge commit rather than descend into it");
  cmd->add_option("--max-commits", o.max_commits,
                  fmt::format("Allow a range of more commits than {}", pipeline::k_default_max_commits));
  cmd->add_option("--cells", o.run.cells, "Bisect only the cells matching one of these globs (GLOB[,GLOB...])")
      ->delimiter(',');
  add_measurement_options(*cmd, o.run.measure, config::k_run_defaults);
  cmd->add_flag("--github", o.github, "Write the job summary and the culprit output (GitHub Actions)");
  return cmd;
}

CLI::App* add_compare_command(CLI::App& app, CompareOptions& o) {
  CLI::App* cmd =
      app.add_subcommand("compare", "Interleaved A/B of a baseline command and one or more candidates (no git)");
  cmd->add_option("baseline", o.baseline, "Baseline command")->required();
  cmd->add_option("candidate", o.candidates, "Candidate command(s), each compared with the baseline")->required();
  cmd->add_option("-n,--command-name", o.command_names,
                  "Name of a command in the report, once per command in order (baseline first)")
      ->allow_extra_args(false);
  add_measurement_options(*cmd, o.measure, config::k_compare_defaults);
  cmd->add_option("--out", o.out, "Output directory")->capture_default_str();
  cmd->add_option("--name", o.name, "Cell name")->capture_default_str();
  cmd->add_flag("--shell", o.shell, "Run each command with /bin/sh -c instead of splitting it into words");
  cmd->add_flag("--no-control", o.measure.no_control, "Skip the A/A control cell");
  cmd->add_option("--metric", o.metrics, "Metrics to show, comma-separated: " + model::metric_choices())
      ->capture_default_str();
  cmd->add_option("--gate", o.gate, "Metrics that can fail the run")->capture_default_str();
  cmd->add_option("--setup", o.setup, "Run this once per arm before the warm-up (untimed)");
  cmd->add_option("--prepare", o.prepare, "Run this before every invocation (untimed)");
  cmd->add_option("--cleanup", o.cleanup, "Run this once per arm at the end, also after an error or interrupt");
  cmd->add_option("--scrub-env", o.scrub_env,
                  "Keep this variable (a name or a glob like AWS_*) from the commands; repeatable");
  add_choice_option(*cmd, "--sandbox", o.sandbox, model::k_sandbox_mode_names,
                    "Run the commands in a box of namespaces: auto (default: where the kernel allows), required or "
                    "off");
  return cmd;
}

CLI::App* add_analyze_command(CLI::App& app, AnalyzeOptions& o) {
  CLI::App* cmd = app.add_subcommand("analyze", "Statistics and verdicts from samples made elsewhere");
  cmd->add_option("files", o.files, "results.json, journal.jsonl, hyperfine --export-json or CSV files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--threshold", o.threshold,
                  fmt::format("Ratio beyond which a change is a regression (default: the run's, else {})",
                              model::k_default_threshold));
  cmd->add_option(
      "--alpha", o.alpha,
      fmt::format("False discovery rate for regressions (default: the run's, else {})", analysis::k_default_alpha));
  add_choice_option(*cmd, "--better", o.better, pipeline::k_better_names,
                    "Which way CSV and hyperfine values are better (default lower)");
  add_format_option(*cmd, o.format);
  add_interval_option(*cmd, o.interval, "Interval (default: the run's, else signed-rank)");
  add_fail_on_option(*cmd, o.fail_on);
  cmd->add_option("--seed", o.seed, "Seed of the bootstrap (default: the run's seed, else 0)")->check(check_seed);
  return cmd;
}

CLI::App* add_report_command(CLI::App& app, ReportOptions& o) {
  CLI::App* cmd = app.add_subcommand("report", "Re-render a results.json or a killed run's journal.jsonl");
  cmd->add_option("files", o.files, "results.json or journal.jsonl; several files = shards of one run")
      ->required()
      ->check(CLI::ExistingFile);
  add_format_option(*cmd, o.format);
  add_fail_on_option(*cmd, o.fail_on);
  return cmd;
}

CLI::App* add_comment_command(CLI::App& app, CommentOptions& o) {
  CLI::App* cmd = app.add_subcommand("comment", "Create or update the sticky PR comment with a report");
  auto* pr = cmd->add_option("--pr", o.pr, "Pull request number")->check(CLI::PositiveNumber);
  cmd->add_option("--repo", o.repo, "OWNER/NAME (default: $GITHUB_REPOSITORY)");
  auto* file = cmd->add_option("--file", o.file, "report.md or results.json")->capture_default_str();
  cmd->add_option("--marker", o.marker, "Name of the comment, for several refbench comments on one PR");
  cmd->add_option("--cacert", o.cacert, "CA bundle to trust (default: SSL_CERT_FILE, SSL_CERT_DIR, system bundle)");
  cmd->add_option_function<std::string>(
         "--max-wait", [&o](const std::string& text) { o.max_wait = duration_flag("--max-wait", text); },
         fmt::format("Longest total wait for retries and rate limits [default: {}s]",
                     std::chrono::duration_cast<std::chrono::seconds>(o.max_wait).count()))
      ->type_name("DURATION");
  auto* artifact =
      cmd->add_option("--from-artifact", o.from_artifact, "Post DIR/comment.json written by run --github (fork-safe)");
  artifact->excludes(pr)->excludes(file);
  return cmd;
}

CLI::App* add_history_command(CLI::App& app, HistoryOptions& o) {
  CLI::App* cmd = app.add_subcommand("history", "The trend of a nightly history: chained links, creep, change points");
  cmd->add_option("dir", o.dir, "The history directory (its history.jsonl)")->required();
  add_choice_option(*cmd, "--format", o.format, pipeline::k_history_format_names, "Output (default markdown)");
  cmd->add_option("--cells", o.settings.cells, "Only the cells matching one of these globs (GLOB[,GLOB...])")
      ->delimiter(',');
  cmd->add_option("--threshold", o.settings.threshold, "Cumulative ratio beyond which a series is a regression")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_option("--window", o.window,
                  fmt::format("The creep verdict (and exit 1) over the last N links of a chain; 0: the whole chain "
                              "[default: {}, or [history] window of --config]",
                              history::k_default_window))
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
  cmd->add_option("--alpha", o.settings.alpha, "Level of the change points: links (Benjamini-Hochberg) and splits")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--permutations", o.settings.permutations, "Permutations per E-divisive test (fixed baselines)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{19}, std::size_t{100000}));
  cmd->add_option("-c,--config", o.config, "refbench.toml whose [history] window to use");
  cmd->add_option("--seed", o.settings.seed, "Seed of the change points' permutation tests")->capture_default_str();
  return cmd;
}

} // namespace

std::vector<Subcommand> add_subcommands(CLI::App& app, SubcommandOptions& o) {
  // the order of --help
  return {
      {add_compare_command(app, o.compare),
       [&o](const auto& common) { return pipeline::run_compare(o.compare, common); }, Reads::commands},
      {add_analyze_command(app, o.analyze),
       [&o](const auto& common) { return pipeline::run_analyze(o.analyze, common); }, Reads::documents},
      {add_run_command(app, o.run), [&o](const auto& common) { return pipeline::run_run(o.run, common); },
       Reads::commands},
      {add_report_command(app, o.report), [&o](const auto& common) { return pipeline::run_report(o.report, common); },
       Reads::documents},
      {add_comment_command(app, o.comment), [&o](const auto&) { return pipeline::run_comment(o.comment); },
       Reads::documents},
      {add_resolve_command(app, o.resolve), [&o](const auto&) { return pipeline::run_resolve(o.resolve); },
       Reads::refs},
      {add_history_command(app, o.history),
       [&o](const auto& common) { return pipeline::run_history(o.history, common); }, Reads::refs},
      {add_bisect_command(app, o.bisect), [&o](const auto& common) { return pipeline::run_bisect(o.bisect, common); },
       Reads::commands},
  };
}

} // namespace refbench::cli
