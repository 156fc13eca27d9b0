#pragma once
// docs/manual/suites.md: a suite cell — one invocation per arm per round runs the
// whole suite — as the rows that the analysis, the reports and results.json
// see: one cell per benchmark, named CELL/BENCHMARK, its harness's
// measures as its metrics (suites::measure_info: unit, direction), the
// harness's primary measure gated unless the cell's gate says otherwise.

#include <refbench/model/record.hpp>

#include <string>
#include <vector>

namespace refbench::model {

struct SuiteRows {
  RunRecord record;
  // docs/manual/config.md#new-and-removed-cells: "CELL/BENCHMARK" of each benchmark the
  // baseline reported and the candidate, which did report, never did
  std::vector<std::string> removed;
};

// Whether `record` has a suite cell that is not yet rows.
bool has_suite_cells(const RunRecord& record);

// Whether `benchmark` of a suite cell with `meta` is one --cells asked for
// (CellMeta::rows; all when none).
bool wanted(const CellMeta& meta, const std::string& benchmark);

// `record` with each suite cell replaced by its rows, in the order its
// harness first reported them; every other cell as it was. A row:
// * takes the suite's usable samples, each with its benchmark's figures;
// * is the suite's ERROR when the suite failed, and its own when the
//   harness reported the benchmark as failed (naming it);
// * is NEW when only the candidate reported it (the baseline did report);
// * is a level of a sweep when other benchmarks differ from it only in
//   their last "/ARG" (suites::sweep_level);
// * is dropped unless it matches one of the cell's row globs (--cells).
// A suite that failed before its harness reported anything stays one row,
// named as the cell, with its ERROR.
SuiteRows suite_rows(const RunRecord& record);

// suite_rows in place: `record` becomes its rows, and the removed rows'
// names not yet in `removed` are appended to it. Nothing changes when
// `record` has no suite cell.
void to_rows(RunRecord& record, std::vector<std::string>& removed);

// The benchmark name of `row` (meta.benchmark) within its suite cell's
// name: "micro/BM_vec/8" → "micro"; for the A/A control's rows the
// suite's own name ("micro-control/BM_b" → "micro").
std::string suite_of_row(const CellRecord& row);

} // namespace refbench::model
