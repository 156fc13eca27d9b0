#pragma once
// `refbench compare BASELINE_CMD CANDIDATE_CMD...` (README: the commands): options as parsed
// from the command line, validated into a run, and the run itself.

#include <refbench/config/settings.hpp>
#include <refbench/model/metrics.hpp>
#include <refbench/pipeline/options.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// Runs the comparison described by `options`; returns the exit code or
// throws a refbench::Error.
int run_compare(const CompareOptions& options, const CommonOptions& common);

} // namespace refbench::pipeline
