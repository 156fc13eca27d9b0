#pragma once
// `refbench run` (README: the commands, refbench run) and `refbench resolve`: two refs resolved,
// built side by side in worktrees, measured in interleaved rounds.

#include <refbench/cli/options.hpp>
#include <refbench/config/settings.hpp>

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace refbench::cli {

// The flags as given; unset measurement flags fall back to refbench.toml's
// [run], then to the defaults of config/settings (k_run_defaults).
struct RunOptions {
  std::optional<std::string> config;
  std::string repo = ".";
  std::optional<std::string> baseline;
  std::vector<std::string> candidates; // --candidate, repeatable (README: More candidates)
  config::MeasurementFlags measure;
  std::string out = "refbench-out";
  std::optional<std::string> workdir;
  bool keep_worktrees = false;
  bool allow_same_commit = false;
  bool github = false;
  bool allow_pull_request_target = false; // --github on a pull_request_target event
  std::optional<std::string> shard;       // "K/N" (README: run --shard)
  std::vector<std::string> cells;         // --cells GLOB[,GLOB…]: only the cells matching one
  std::vector<std::string> scrub_env;     // added to run.scrub_env and the credential variables
  std::optional<std::string> history;     // --history DIR (README: Nightly history)
};

struct ResolveOptions {
  std::string repo = ".";
  std::vector<std::string> refs;
};

// Adds what `run` and `bisect` share to `cmd`, bound to `options`: -c/--config,
// --repo, --out, --workdir, --keep-worktrees, --scrub-env.
void add_checkout_options(CLI::App& cmd, RunOptions& options);

// Registers `run` / `resolve` and their flags on `app`, bound to `options`.
CLI::App* add_run_command(CLI::App& app, RunOptions& options);
CLI::App* add_resolve_command(CLI::App& app, ResolveOptions& options);

// Runs the whole pipeline; returns the exit code or throws a refbench::Error.
int run_run(const RunOptions& options, const CommonOptions& common);

// Prints REF<TAB>SHA<TAB>DIRNAME per ref; returns the exit code.
int run_resolve(const ResolveOptions& options);

} // namespace refbench::cli
