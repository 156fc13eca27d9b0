#pragma once
// `refbench bisect` (docs/manual/bisect.md): the first commit on the first-parent
// path from --good to --bad that moved a metric, each midpoint measured
// with both ends in the same interleaved rounds, merges descended into.

#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/options.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace refbench::pipeline {

// Runs the bisect; returns 0 (a culprit named), 1 (ambiguous, or a range of
// commits that did not build), 3 (nothing to bisect) or throws a
// refbench::Error.
int run_bisect(const BisectOptions& options, const CommonOptions& common);

// run_bisect on `bench`, which runs every step's rounds.
int bisect_on(const Bench& bench, const BisectOptions& options, const CommonOptions& common);

} // namespace refbench::pipeline
