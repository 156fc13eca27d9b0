#pragma once
// What `refbench bisect` found, as bisect.json, report.md and the terminal
// summary (docs/manual/bisect.md). Written after every step, so a killed bisect
// leaves the steps it measured.

#include <refbench/git/commits.hpp>
#include <refbench/model/explanation.hpp>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// One measured step: `commit` against `good`, with `bad` in the same rounds.
struct BisectStep {
  // "confirm" (good vs bad), "merged-side" (a merge's merged side alone),
  // "step" (a midpoint), "culprit" (vs its parent)
  std::string kind;
  git::CommitInfo commit;
  std::string good; // SHAs of the ends it was measured against
  std::string bad;
  std::optional<double> ratio; // the commit against good, with its interval
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  double confidence = 0.95;
  std::optional<double> bad_ratio; // the bad end against good in the same rounds (steps only), with its interval
  std::optional<double> bad_ci_low;
  std::optional<double> bad_ci_high;
  // the A/A control of the same rounds (the good end against itself), at the step's confidence
  std::optional<double> control_ratio;
  std::optional<double> control_ci_low;
  std::optional<double> control_ci_high;
  std::string side; // "good", "bad", "unclear"; "" for the other kinds
  std::string move; // confirm and merged-side: "clear", "none", "unclear" (bisect::judge_move); "" otherwise
  std::string cell; // confirm and merged-side: the cell whose figures are shown
  int rounds = 0;
  std::string dir;                    // the step's run directory, relative to --out
  std::vector<std::string> more_dirs; // the blocks of rounds measured more, relative to --out
};

// The check that could not decide within the budget and the cap on more
// rounds (docs/manual/bisect.md): which, at which commit, and its figures.
struct GaveUp {
  std::string check;    // "confirm", "merged-side" or "step"
  std::string commit;   // the commit it measured (the midpoint; the bad end of a confirm)
  std::size_t step = 0; // its index in BisectReport::steps
  std::string figures;  // its readings against the A/A control, as text
  int rounds = 0;
};

// The whole bisect, as far as it got.
struct BisectReport {
  std::string status = "running"; // "running", "done", "interrupted"
  std::string good;               // the range asked for (full SHAs)
  std::string bad;
  std::string metric;
  std::string cell; // the cell followed (the one that moved most between good and bad)
  std::optional<git::CommitInfo> culprit;
  std::optional<double> culprit_ratio; // against its parent, 95 %
  std::optional<double> culprit_ci_low;
  std::optional<double> culprit_ci_high;
  // where the culprit changed the cell (docs/manual/explanations.md): its step's
  // explanation, its picture relative to --out
  std::optional<model::Explanation> culprit_where;
  bool ambiguous = false;
  std::string range_good; // when no single commit is named: the culprit is in (range_good, range_bad]
  std::string range_bad;
  std::vector<std::string> skipped; // commits that did not build
  int builds = 0;                   // commits built, the two ends included
  int counted_passes = 0;           // counted passes run (a counted metric's; reused counts not included)
  std::vector<BisectStep> steps;
  std::vector<git::CommitInfo> descent; // the merges passed through, outermost first
  std::vector<std::string> notes;       // what the reader should know (a merge not descended into, …)
  std::optional<GaveUp> gave_up;        // the check that gave up, if one did
};

// bisect.json: `culprit` ({sha, subject, author, date, ratio, ci_low,
// ci_high} or null), `builds`, `steps` (each with its A/A control's
// interval), `descent`, `gave_up` (or null), and the rest of `report`.
nlohmann::json bisect_json(const BisectReport& report);

// report.md: the comment marker, a headline naming the culprit (or the
// range), the descent, the step table (with each step's A/A floor) and the
// notes.
std::string bisect_markdown(const BisectReport& report);

} // namespace refbench::pipeline
