#pragma once
// The commits of `refbench bisect` on disk (docs/manual/bisect.md): a worktree per
// commit, built once, and each measured step a run of its own through
// measure_and_report, its readings analysed again at the step's confidence.

#include <refbench/analysis/analysis.hpp>
#include <refbench/bisect/search.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/pipeline/bisect_report.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/pipeline/run_plan.hpp>
#include <refbench/process/cpus.hpp>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace refbench::pipeline {

// The commits of a bisect on disk and its measured steps: one worktree per
// commit, built once; each step a run of its own in <out>/steps/NN-KIND.
class BisectSteps {
public:
  // The scrubbed environment and the payloads are made here; the budget
  // (in's settings) starts now and covers every step.
  BisectSteps(Inputs& in, const BisectOptions& o, std::filesystem::path out, std::filesystem::path work,
              const Bench& bench, model::IsolationPlan& isolation, BisectReport& report, bool quiet);

  // The worktree of `sha`, built; nullptr when it does not build.
  const std::string* built(const std::string& sha);

  // One step's readings, analysed at the step's confidence; with every
  // block of rounds measured for it (the first, then each measure_more).
  struct Run {
    std::vector<analysis::MetricResult> rows;
    int rounds = 0;
    std::string dir;                    // the first block's directory, relative to --out
    std::vector<std::string> more_dirs; // the directories of the blocks measured more
    // what measure_more needs to measure the step again
    std::vector<std::string> shas; // good first
    std::string kind;
    double confidence = 0.95;
    model::RunRecord record; // every block's rounds, merged
    std::vector<model::Metric> metrics;
    std::vector<model::Metric> gate;
  };

  // Measures `others` against `good` in one step; `precision` (log units,
  // a half-width at `confidence`) stops its rounds early, else the
  // config's precision at 95 %; `print` shows the step's verdict table.
  Run measure(const std::string& good, const std::vector<std::string>& others, const std::string& kind,
              double confidence, std::optional<double> precision, bool print);

  // `run` with one more block of max_rounds rounds (its own directory and
  // seed), analysed together with the blocks before; none when the budget
  // is spent or `run` already has k_max_more_blocks blocks more
  // (docs/design.md, Bisect).
  std::optional<Run> measure_more(const Run& run);

  bool budget_left() const;

  // The next step measured is explained as run.explain asks (docs/manual/explanations.md: the culprit's step); the
  // others never are.
  void explain_next_step() { m_explain_next = true; }
  const std::filesystem::path& out() const { return m_out; }

  // The pairs a step's reading needs before it is judged: the run's
  // min_rounds; k_fixed_counts when the metric bisected is counted.
  std::size_t needed_pairs() const;

  // Whether what is left of the budget can measure a step of `commits`
  // commits for needed_pairs() rounds, at what a round of the steps
  // before cost per commit; "" when it can (or nothing was measured yet),
  // else the note that says why not.
  std::string short_budget(std::size_t commits) const;

  // Writes bisect.json and report.md as the bisect stands.
  void save() const;

  BisectReport& report() { return m_report; }
  const std::string& repo() const { return m_in.repo; }

private:
  MeasurementPlan plan_step(const std::vector<std::string>& shas, Arms& arms, const std::string& dir,
                            std::optional<double> precision, std::uint64_t seed_offset);
  // Measures one block of a step's rounds into <out>/steps/NN-`kind`; its record.
  model::RunRecord measure_block(const std::vector<std::string>& shas, const std::string& dir,
                                 std::optional<double> precision, double confidence, std::uint64_t seed_offset,
                                 bool print, MeasurementPlan* planned);
  // The worktrees of `shas`, built; throws RefusedError for one that does not build.
  std::vector<std::string> trees_of(const std::vector<std::string>& shas);

  Inputs& m_in;
  const BisectOptions& m_o;
  std::filesystem::path m_out;
  bool m_explain_next = false;
  std::filesystem::path m_work;
  const Bench& m_bench;
  model::IsolationPlan& m_isolation;
  BisectReport& m_report;
  bool m_quiet;
  double m_deadline;
  bool m_pinned = false;
  report::SandboxInfo m_sandbox; // the box the steps' commands run in, made before the first step
  std::vector<std::string> m_env;
  // A counted metric's counts by commit, reused across steps (docs/design.md, Counted bisect).
  bool m_counted = false;
  runner::CountMemo m_counts;
  std::vector<config::PayloadFile> m_payloads;
  nlohmann::json m_payloads_json;
  std::map<std::string, std::optional<git::Worktree>> m_trees; // none: it did not build
  int m_steps = 0;
  double m_commit_round_seconds = 0; // a round of one commit, as the last step measured it
};

// How many blocks of rounds a step may measure beyond its first when it
// cannot tell (docs/design.md, Bisect).
inline constexpr int k_max_more_blocks = 3;

// The reading of `cell` × `metric` for candidate `label` (or the one
// candidate) in `run`; an interval from −∞ to ∞ when the step has none (the
// cell failed).
bisect::Reading reading_of(const BisectSteps::Run& run, const std::string& cell, const std::string& metric,
                           const std::string& label);

// Why `cell` (any of its candidates) or the A/A control of `metric` failed
// in `run`: the first such row's error; none when they did not. A step
// whose rows failed has no evidence, and measuring it again fails again.
std::optional<std::string> failure_of(const BisectSteps::Run& run, const std::string& cell, const std::string& metric);

// The A/A control's reading of `metric` in `run`; none when the step has no
// control of that metric (or it failed).
std::optional<bisect::Reading> control_reading_of(const BisectSteps::Run& run, const std::string& metric);

} // namespace refbench::pipeline
