#pragma once
// `refbench analyze FILE...` (docs/manual/commands.md, docs/manual/output-files.md): statistics and the verdict table
// from samples made elsewhere or by an earlier run.

#include <refbench/pipeline/options.hpp>

#include <string>
#include <vector>

namespace refbench::pipeline {

// Analyses the files of `options` and prints the result; returns the exit code.
int run_analyze(const AnalyzeOptions& options, const CommonOptions& common);

} // namespace refbench::pipeline
