#pragma once
// Where a cell's change came from (docs/manual/explanations.md): the functions
// and allocation sites that moved most between the arms' counted
// invocations, which runner measures after the rounds, results.json's
// "explanations" carries and the report shows under "Where".

#include <refbench/model/invocation.hpp>
#include <refbench/util/enum_names.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::model {

// How many functions and allocation sites an explanation keeps (the
// report shows fewer; results.json all of these).
inline constexpr std::size_t k_explained_entries = 50;

// Which cells a run explains (`[run] explain`, `--explain`).
enum class ExplainMode { regressions, all, off };
inline constexpr auto k_explain_mode_names = util::enum_names<ExplainMode>(
    {{ExplainMode::regressions, "regressions"}, {ExplainMode::all, "all"}, {ExplainMode::off, "off"}});
inline std::string_view explain_mode_name(ExplainMode mode) { return k_explain_mode_names.name(mode); }
// The default: the cells with a REGRESSION or IMPROVED on a gated metric.
inline constexpr ExplainMode k_default_explain = ExplainMode::regressions;

// One function or allocation site in both arms: instructions, or calls of
// the malloc family.
struct ExplainedEntry {
  std::string function;
  std::string object;
  double baseline = 0;
  double candidate = 0;
  double delta = 0;
};

// A cell (or one benchmark of a suite) to explain, as the pipeline chose it
// from the rounds' verdicts.
struct ExplainTarget {
  std::size_t cell = 0; // in the rounds' cells: its hooks and {output} are the explanation's
  std::string row;      // what is explained: the cell's name, or CELL/BENCHMARK
  Invocation baseline;  // what each arm runs: the cell's command, a suite narrowed to the benchmark
  Invocation candidate;
  std::string scope; // "" the cell's command; else what ran instead, for the report
};

struct Explanation {
  std::string cell;   // the cell or suite row (CELL/BENCHMARK) explained
  std::string source; // what counted: "callgrind"
  double seconds = 0; // what the explanation's invocations took, both arms
  double baseline_instructions = 0;
  double candidate_instructions = 0;
  std::vector<ExplainedEntry> functions;        // by |delta|, largest first
  std::vector<ExplainedEntry> allocation_sites; // by |delta|, largest first
  std::string graph;                            // the picture, relative to --out; empty: none
  std::string scope;                            // what ran: "" the cell's command; for a suite row, how it was narrowed
  std::string problem; // why the cell is not explained (budget, no valgrind, a failed run); empty when it is
};

} // namespace refbench::model
