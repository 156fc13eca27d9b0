#pragma once
// What bisect's confirming and merged-side checks decide (docs/manual/bisect.md):
// whether a cell moved from one commit to another beyond the A/A control
// of the same rounds, measured more while it cannot tell; and how a
// step's readings are written into the report.

#include <refbench/bisect/search.hpp>
#include <refbench/pipeline/bisect_report.hpp>
#include <refbench/pipeline/bisect_steps.hpp>
#include <refbench/pipeline/options.hpp>

#include <optional>
#include <string>

namespace refbench::pipeline {

// "1.234x [1.100, 1.300]" of a log-ratio reading; "no reading" without one.
std::string reading_text(const bisect::Reading& r);

// "the A/A control's ±12.3 %" of a control reading; "no A/A control" without one.
std::string floor_text(const std::optional<bisect::Reading>& control);

// Fills `step`'s figures from `run`: `reading` as its ratio, the control's
// interval, rounds, blocks and directories.
void fill_step(BisectStep& step, const BisectSteps::Run& run, const bisect::Reading& reading,
               const std::optional<bisect::Reading>& control);

// The cell a check follows from here on, and its move in log-ratio units.
struct Moved {
  std::string cell;
  double estimate = 0;
};
// What a check found.
struct MoveCheck {
  std::optional<Moved> moved;
  bool unclear = false; // it gave up: some cell could have moved, the rounds could not tell
  std::string figures;  // the followed (or most moved) cell's reading against the control, for notes
  std::string failure;  // why a row it looked at failed: no evidence either way
};

// The cell that moved most from `good` to `bad` in `metric` further than the
// A/A control of the same rounds (bisect::judge_move; a REGRESSION, or an
// improvement with --improvement), and its log-ratio. A step that cannot tell
// measures more while the budget and the cap allow. `only_cell` limits it to
// that cell. `kind` names the check in the report ("confirm", "merged-side").
MoveCheck check_move(BisectSteps& lab, const BisectOptions& o, const std::string& good, const std::string& bad,
                     const std::optional<std::string>& only_cell, const std::string& kind, bool print);

} // namespace refbench::pipeline
