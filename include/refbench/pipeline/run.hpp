#pragma once
// `refbench run` (docs/manual/commands.md, docs/manual/commands.md#refbench-run) and `refbench resolve`: two refs
// resolved, built side by side in worktrees, measured in interleaved rounds.

#include <refbench/config/settings.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/options.hpp>

#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// Runs the whole pipeline on a launcher started first; returns the exit
// code or throws a refbench::Error.
int run_run(const RunOptions& options, const CommonOptions& common);

// run_run on `bench`: refs, worktrees, builds, replicas, payloads, cells,
// rounds, analysis and files; `started` on runner::monotonic_now.
int run_on(const Bench& bench, const RunOptions& options, const CommonOptions& common, double started);

// Prints REF<TAB>SHA<TAB>DIRNAME per ref; returns the exit code.
int run_resolve(const ResolveOptions& options);

} // namespace refbench::pipeline
