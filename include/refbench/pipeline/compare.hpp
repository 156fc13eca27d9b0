#pragma once
// `refbench compare BASELINE_CMD CANDIDATE_CMD...` (docs/manual/commands.md): options as parsed
// from the command line, validated into a run, and the run itself.

#include <refbench/config/settings.hpp>
#include <refbench/model/metrics.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/options.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// Runs the comparison described by `options` on refbench's launcher;
// returns the exit code or throws a refbench::Error. The options are
// checked (UsageError) before the launcher starts.
int run_compare(const CompareOptions& options, const CommonOptions& common);

// run_compare on `bench` (the launcher, or a FakeExecutor in tests), the
// run timed from `started` (runner::monotonic_now).
int compare_on(const Bench& bench, const CompareOptions& options, const CommonOptions& common, double started);

} // namespace refbench::pipeline
