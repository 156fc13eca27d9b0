#pragma once
// What `refbench bisect` found, as bisect.json, report.md and the terminal
// summary (README: Bisect). Written after every step, so a killed bisect
// leaves the steps it measured.

#include <refbench/git/commits.hpp>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace refbench::cli {

// One measured step: `commit` against `good`, with `bad` in the same rounds.
struct BisectStep {
  std::string kind; // "confirm" (good vs bad), "step" (a midpoint), "culprit" (vs its parent)
  git::CommitInfo commit;
  std::string good; // SHAs of the ends it was measured against
  std::string bad;
  std::optional<double> ratio; // the commit against good, with its interval
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  double confidence = 0.95;
  std::optional<double> bad_ratio; // the bad end against good in the same rounds (steps only)
  std::string side;                // "good", "bad", "unclear"; "" for confirm and culprit steps
  int rounds = 0;
  std::string dir; // the step's run directory, relative to --out
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
  bool ambiguous = false;
  std::string range_good; // when no single commit is named: the culprit is in (range_good, range_bad]
  std::string range_bad;
  std::vector<std::string> skipped; // commits that did not build
  int builds = 0;                   // commits built, the two ends included
  std::vector<BisectStep> steps;
  std::vector<git::CommitInfo> descent; // the merges passed through, outermost first
  std::vector<std::string> notes;       // what the reader should know (a merge not descended into, …)
};

// bisect.json: `culprit` ({sha, subject, author, date, ratio, ci_low,
// ci_high} or null), `builds`, `steps`, `descent`, and the rest of `report`.
nlohmann::json bisect_json(const BisectReport& report);

// report.md: the comment marker, a headline naming the culprit (or the
// range), the descent, the step table and the notes.
std::string bisect_markdown(const BisectReport& report);

} // namespace refbench::cli
