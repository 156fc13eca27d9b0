#pragma once
// `refbench bisect` (README: Bisect): the first commit on the first-parent
// path from --good to --bad that moved a metric, each midpoint measured
// with both ends in the same interleaved rounds, merges descended into.

#include <refbench/cli/options.hpp>
#include <refbench/cli/run_command.hpp>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>

namespace refbench::cli {

struct BisectOptions {
  RunOptions run; // repo, config, measurement flags, out, workdir, cells, scrub-env
  std::string good;
  std::string bad;
  std::string metric = "wall";
  bool improvement = false;       // bisect an improvement instead of a regression
  bool first_parent_only = false; // stop at the first merge named
  std::optional<std::size_t> max_commits;
  bool github = false; // the job summary and the `culprit` output
};

// The most commits a range may have without --max-commits.
inline constexpr std::size_t k_default_max_commits = 10000;

// Registers `bisect` and its flags on `app`, bound to `options`.
CLI::App* add_bisect_command(CLI::App& app, BisectOptions& options);

// Runs the bisect; returns 0 (a culprit named), 1 (ambiguous, or a range of
// commits that did not build), 3 (nothing to bisect) or throws a
// refbench::Error.
int run_bisect(const BisectOptions& options, const CommonOptions& common);

} // namespace refbench::cli
