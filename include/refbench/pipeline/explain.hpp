#pragma once
// Explanations in a measured run (docs/manual/explanations.md): the counter they
// run under, which cells the rounds' verdicts ask to explain, and their
// pictures written under the output directory.

#include <refbench/model/explanation.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/profile/diff.hpp>
#include <refbench/runner/rounds.hpp>

#include <filesystem>
#include <string_view>
#include <vector>

namespace refbench::pipeline {

// Finds valgrind on `path` for the explanations `plan.settings.explain`
// asks for, or records why there is none (never an error: the run measures
// as it would, and its explanations say what to install).
void plan_explanations(MeasurementPlan& plan, std::string_view path);

// The cells of the record the rounds made that `plan` explains: with
// `regressions`, every cell or suite row whose gated metric is a
// REGRESSION or IMPROVED; with `all`, every cell and row; never the A/A
// control. A suite row runs its suite narrowed to the benchmark through the
// harness's filter, where it has one.
runner::ExplainChoice explain_choice(const MeasurementPlan& plan);

// The explanations the rounds made, with their call trees, as they come.
struct Explained {
  std::vector<model::Explanation> explanations;
  std::vector<profile::Frame> trees; // per explanation; an empty name: none
};

// Writes each explained tree as `why/N-NAME.svg` under `out` (a fresh file,
// never through a link) and points its explanation's `graph` at it;
// a picture that cannot be written leaves `graph` empty and says so in
// `problem`'s stead on stderr.
void write_explanation_graphs(const std::filesystem::path& out, Explained& explained);

} // namespace refbench::pipeline
