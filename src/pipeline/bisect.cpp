#include <refbench/analysis/from_record.hpp>
#include <refbench/bisect/search.hpp>
#include <refbench/build/build.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/git/commits.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/pipeline/bisect.hpp>
#include <refbench/pipeline/bisect_checks.hpp>
#include <refbench/pipeline/bisect_report.hpp>
#include <refbench/pipeline/bisect_steps.hpp>
#include <refbench/pipeline/github_run.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/run_arms.hpp>
#include <refbench/pipeline/run_plan.hpp>
#include <refbench/pipeline/run_refs.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <unistd.h>

namespace refbench::pipeline {
namespace {

// The chance of naming a wrong commit that one search allows (docs/design.md, Bisect).
constexpr double k_wrong_commit = 0.01;

// A path of commits (the good end first, the bad end last) measured
// by BisectSteps for bisect::search; every step lands in the report, an
// unclear one measured more while the budget and the cap allow.
class PathOracle : public bisect::Oracle {
public:
  PathOracle(BisectSteps& lab, const std::vector<std::string>& path, const std::string& cell, const std::string& metric,
             double confidence, double precision, bool quiet)
      : m_lab(lab), m_path(path), m_cell(cell), m_metric(metric), m_confidence(confidence), m_precision(precision),
        m_quiet(quiet) {}

  bool build(std::size_t index) override { return m_lab.built(m_path[index]) != nullptr; }

  bisect::Measured measure(std::size_t good, std::size_t mid, std::size_t bad) override {
    constexpr double inf = std::numeric_limits<double>::infinity();
    m_last.reset();
    m_failure.clear();
    // a step the budget cannot give its rounds is not started: it would be judged on none
    if (const auto spent = m_lab.short_budget(3); !spent.empty()) {
      m_lab.report().notes.push_back(spent);
      return {.mid = {0, -inf, inf, 0}, .bad = {0, -inf, inf, 0}, .control = std::nullopt, .rounds = 0};
    }
    m_last = m_lab.measure(m_path[good], {m_path[mid], m_path[bad]}, "step", m_confidence, m_precision, false);
    m_lab.report().steps.push_back({"step", git::commit_info(m_lab.repo(), m_path[mid]), m_path[good], m_path[bad]});
    return record(mid, bad);
  }

  std::optional<bisect::Measured> measure_more(std::size_t, std::size_t mid, std::size_t bad) override {
    if (!m_last) {
      return std::nullopt;
    }
    if (!m_failure.empty()) { // measuring it again would fail again: the search ends with the failure
      fail(mid);
      return std::nullopt;
    }
    auto more = m_lab.measure_more(*m_last);
    if (!more) {
      give_up(mid, bad);
      return std::nullopt;
    }
    m_last = std::move(*more);
    return record(mid, bad);
  }

private:
  // The step's readings from m_last, written into its report entry (the last).
  bisect::Measured record(std::size_t mid, std::size_t bad) {
    const bisect::Measured measured{reading_of(*m_last, m_cell, m_metric, git::short_sha(m_path[mid])),
                                    reading_of(*m_last, m_cell, m_metric, git::short_sha(m_path[bad])),
                                    control_reading_of(*m_last, m_metric), m_last->rounds, m_lab.needed_pairs()};
    m_failure = failure_of(*m_last, m_cell, m_metric).value_or("");
    const auto side = bisect::side_of(measured.mid, measured.bad, measured.control, measured.needed);
    auto& step = m_lab.report().steps.back();
    step.confidence = m_confidence;
    fill_step(step, *m_last, measured.mid, measured.control);
    step.bad_ratio.reset();
    if (std::isfinite(measured.bad.low)) {
      step.bad_ratio = std::exp(measured.bad.estimate);
      step.bad_ci_low = std::exp(measured.bad.low);
      step.bad_ci_high = std::exp(measured.bad.high);
    }
    step.side = side == bisect::Side::good ? "good" : side == bisect::Side::bad ? "bad" : "unclear";
    m_lab.save();
    if (!m_quiet) {
      std::cerr << fmt::format("refbench: bisect: {} {} → {}\n", git::short_sha(m_path[mid]),
                               step.ratio ? fmt::format("{:.3f}x", *step.ratio) : std::string("no reading"), step.side);
    }
    m_measured = measured;
    return measured;
  }

  // The report's note and gave_up when the step at `mid` failed: what failed, never a side.
  void fail(std::size_t mid) {
    auto& report = m_lab.report();
    report.gave_up = GaveUp{"step", m_path[mid], report.steps.size() - 1, m_failure, m_last->rounds};
    report.notes.push_back(fmt::format("The step at {} failed after {} rounds, so no side was taken: {}.",
                                       git::short_sha(m_path[mid]), m_last->rounds, m_failure));
    m_lab.save();
  }

  // The report's note and gave_up when the step at `mid` stayed unclear.
  void give_up(std::size_t mid, std::size_t bad) {
    const auto& m = m_measured;
    auto& report = m_lab.report();
    if (m_last->rounds < static_cast<int>(m_lab.needed_pairs())) { // the budget cut its rounds short
      report.gave_up =
          GaveUp{"step", m_path[mid], report.steps.size() - 1,
                 fmt::format("{} of the {} rounds a step needs", m_last->rounds, m_lab.needed_pairs()), m_last->rounds};
      report.notes.push_back(fmt::format("The budget was spent after {} of the {} rounds the step at {} needs, so no "
                                         "side was taken; pass a larger --budget.",
                                         m_last->rounds, m_lab.needed_pairs(), git::short_sha(m_path[mid])));
      m_lab.save();
      return;
    }
    const bool bad_seen = bisect::judge_move(m.bad, m.control, m.bad.estimate > 0 ? 1 : -1, 0) == bisect::Move::clear;
    const auto figures = fmt::format("{} {} against good, the bad end {} {}, {}", git::short_sha(m_path[mid]),
                                     reading_text(m.mid), git::short_sha(m_path[bad]), reading_text(m.bad),
                                     bad_seen ? fmt::format("halfway at {:.3f}x", std::exp(m.bad.estimate / 2))
                                              : "which does not clear " + floor_text(m.control));
    report.gave_up = GaveUp{"step", m_path[mid], report.steps.size() - 1, figures, m_last->rounds};
    report.notes.push_back(fmt::format("The step at {} could not tell its side after {} rounds ({} blocks more; the "
                                       "budget or the cap of {} ended them): {}.",
                                       git::short_sha(m_path[mid]), m_last->rounds, m_last->more_dirs.size(),
                                       k_max_more_blocks, figures));
    m_lab.save();
  }

  BisectSteps& m_lab;
  const std::vector<std::string>& m_path;
  std::string m_cell;
  std::string m_metric;
  double m_confidence;
  double m_precision;
  bool m_quiet;                           // no progress line per step
  std::optional<BisectSteps::Run> m_last; // the step being measured
  bisect::Measured m_measured;
  std::string m_failure; // why the step being measured failed; "" when it did not
};

// The explanation of `cell` that the culprit's step in `dir` made, its
// picture's path made relative to --out; none when it made none.
std::optional<model::Explanation> culprit_explanation(const std::filesystem::path& out, const std::string& dir,
                                                      const std::string& cell) {
  const auto path = (out / dir / "results.json").string();
  const auto text = util::read_file(path);
  if (!text) {
    return std::nullopt;
  }
  for (auto& e : formats::read_document(path, *text).explanations) {
    if (e.cell == cell) {
      if (!e.graph.empty()) {
        e.graph = dir + "/" + e.graph;
      }
      return e;
    }
  }
  return std::nullopt;
}

// Names `culprit` (its parent `parent`) in the report, with its ratio
// against the parent from a step of their own.
void name_culprit(BisectSteps& lab, const std::string& parent, const std::string& culprit, const std::string& cell,
                  const std::string& metric) {
  auto& report = lab.report();
  report.culprit = git::commit_info(lab.repo(), culprit);
  lab.explain_next_step();
  const auto run = lab.measure(parent, {culprit}, "culprit", 0.95, std::nullopt, false);
  report.culprit_where = culprit_explanation(lab.out(), run.dir, cell);
  const auto reading = reading_of(run, cell, metric, "");
  BisectStep step{"culprit", *report.culprit, parent, culprit};
  fill_step(step, run, reading, control_reading_of(run, metric));
  if (step.ratio) {
    report.culprit_ratio = step.ratio;
    report.culprit_ci_low = step.ci_low;
    report.culprit_ci_high = step.ci_high;
  }
  report.steps.push_back(step);
}

// When `merge` (a merge commit named by the search) should be descended
// into: the first-parent path from its parents' merge base to its second
// parent, when that side alone shows the move; else none, with a note that
// carries the check's figures.
std::optional<std::pair<std::vector<std::string>, double>>
merged_side(BisectSteps& lab, const BisectOptions& o, const git::CommitInfo& merge, const std::string& cell) {
  const std::string base = git::merge_base(lab.repo(), merge.parents[0], merge.parents[1]);
  std::vector<std::string> side;
  try {
    side = base.empty() ? std::vector<std::string>{} : git::first_parent_path(lab.repo(), base, merge.parents[1]);
  } catch (const RefusedError&) {
    side.clear();
  }
  if (side.size() < 2 || !lab.built(side.front()) || !lab.built(side.back())) {
    lab.report().notes.push_back(fmt::format("The merge {} is named: its merged side has no first-parent path that "
                                             "builds at both ends to descend into.",
                                             git::short_sha(merge.sha)));
    return std::nullopt;
  }
  const auto check = check_move(lab, o, side.front(), side.back(), cell, "merged-side", false);
  if (check.moved) {
    return std::pair{side, check.moved->estimate};
  }
  const auto range = fmt::format("{}..{}", git::short_sha(side.front()), git::short_sha(side.back()));
  if (!check.failure.empty()) {
    lab.report().gave_up = GaveUp{"merged-side", side.back(), lab.report().steps.size() - 1, check.failure,
                                  lab.report().steps.back().rounds};
    lab.report().notes.push_back(fmt::format("The merge {} is named: its merged side alone ({}) could not be "
                                             "measured — {}.",
                                             git::short_sha(merge.sha), range, check.failure));
  } else if (check.unclear) {
    lab.report().gave_up = GaveUp{"merged-side", side.back(), lab.report().steps.size() - 1, check.figures,
                                  lab.report().steps.back().rounds};
    lab.report().notes.push_back(fmt::format(
        "The merge {} is named: the rounds could not tell whether its merged side alone ({}) shows the move — {} "
        "(the budget or the cap of {} more blocks ended them).",
        git::short_sha(merge.sha), range, check.figures, k_max_more_blocks));
  } else {
    lab.report().notes.push_back(fmt::format("The merge {} is named: its merged side alone ({}) does not show the "
                                             "move — {} — so the change came from combining the two sides.",
                                             git::short_sha(merge.sha), range, check.figures));
  }
  lab.save();
  return std::nullopt;
}

// Bisects `path` (good first, bad last, both built) for `cell` × `metric`,
// whose bad end moved by `moved` (log units); names the culprit, or the
// range, in the report; descends into a merge named unless
// --first-parent-only.
void bisect_path(BisectSteps& lab, const BisectOptions& o, const std::vector<std::string>& path,
                 const std::string& cell, double moved, bool quiet) {
  const double confidence = bisect::step_confidence(path.size(), k_wrong_commit);
  // a step's rounds stop once its intervals (at its confidence) have a half-width of a quarter of the move
  const double precision = std::abs(moved) / 4;
  PathOracle oracle(lab, path, cell, o.metric, confidence, precision, quiet);
  const auto outcome = bisect::search(path.size(), oracle);
  auto& report = lab.report();
  const auto culprit = outcome.culprit();
  if (!culprit) {
    report.ambiguous = outcome.ambiguous;
    report.range_good = path[outcome.good];
    report.range_bad = path[outcome.bad];
    return;
  }
  const auto info = git::commit_info(lab.repo(), path[*culprit]);
  if (info.parents.size() >= 2 && !o.first_parent_only) {
    if (auto side = merged_side(lab, o, info, cell)) {
      report.descent.push_back(info);
      bisect_path(lab, o, side->first, cell, side->second, quiet);
      return;
    }
  }
  name_culprit(lab, path[*culprit - 1], path[*culprit], cell, o.metric);
}

} // namespace
} // namespace refbench::pipeline

namespace refbench::pipeline {
namespace {

// The metric bisected, shown and gated by every cell that can: a built-in
// one is added to the cells that do not list it (`--metric instructions`
// counts every cell); a custom one must be some cell's, else UsageError
// before anything is built. A step's rounds then stop on that metric's
// precision alone.
void show_metric(Inputs& in, const std::string& metric) {
  const bool builtin = model::parse_metric(metric).has_value();
  bool shown = false;
  for (auto& cell : in.config.cells) {
    if (builtin && std::ranges::find(cell.metrics, metric) == cell.metrics.end()) {
      cell.metrics.push_back(metric);
    }
    if (builtin || std::ranges::any_of(cell.custom, [&](const auto& m) { return m.name == metric; })) {
      cell.gate = {metric};
      shown = true;
    }
  }
  if (shown) {
    return;
  }
  throw UsageError(fmt::format("--metric {}: no cell of {} shows that metric", metric, in.config_path),
                   fmt::format("name a built-in metric ({}) or a [[cell.metric]] of a cell", model::metric_choices()));
}

// The path good..bad, first parent only, refused before anything is built
// when it cannot be bisected (docs/manual/bisect.md).
std::vector<std::string> checked_path(const Inputs& in, const BisectOptions& o, const git::ResolvedRef& good,
                                      const git::ResolvedRef& bad) {
  if (good.sha == bad.sha) {
    throw UsageError(
        fmt::format("--good {} and --bad {} are the same commit {}", o.good, o.bad, git::short_sha(good.sha)),
        "pass the last commit known to be fine as --good and a later one as --bad");
  }
  if (!git::is_ancestor(in.repo, good.sha, bad.sha)) {
    throw RefusedError(
        fmt::format("--good {} is not an ancestor of --bad {}: there is no range to bisect", o.good, o.bad),
        "pass an older commit of the same history as --good");
  }
  const auto count = git::first_parent_count(in.repo, good.sha, bad.sha);
  const auto max = o.max_commits.value_or(k_default_max_commits);
  if (count > max) {
    throw UsageError(
        fmt::format("{}..{} has {} commits on its first-parent path, more than {}", o.good, o.bad, count, max),
        fmt::format("narrow the range, or pass --max-commits {}", count));
  }
  return git::first_parent_path(in.repo, good.sha, bad.sha);
}

// Ends a bisect whose confirming step found no move: the note and
// gave_up in the report, then RefusedError (exit 3); MeasurementError
// (exit 4) when a row it looked at failed.
[[noreturn]] void refuse_nothing_to_bisect(BisectSteps& lab, const BisectOptions& o, const MoveCheck& check,
                                           const std::filesystem::path& out) {
  auto& report = lab.report();
  const std::string wanted = o.improvement ? "faster (or better)" : "slower (or worse)";
  report.status = "done";
  if (!check.failure.empty()) { // no evidence either way: the failure, exit 4
    report.gave_up = GaveUp{"confirm", report.bad, report.steps.size() - 1, check.failure, report.steps.back().rounds};
    report.notes.push_back(fmt::format("The confirming step failed, so nothing was bisected: {}.", check.failure));
    lab.save();
    if (o.github) {
      publish_bisect_to_github(out, "");
    }
    throw MeasurementError(
        fmt::format("bisect: the confirming step of {} against {} failed: {}", o.bad, o.good, check.failure),
        "fix what failed (the table above and the logs in " + out.string() + ") and rerun");
  }
  if (check.unclear) {
    report.gave_up = GaveUp{"confirm", report.bad, report.steps.size() - 1, check.figures, report.steps.back().rounds};
    report.notes.push_back(fmt::format("Nothing to bisect: the rounds could not tell whether a cell's {} got {} from "
                                       "good to bad — {} (the budget or the cap of {} more blocks ended them).",
                                       o.metric, wanted, check.figures, k_max_more_blocks));
  } else {
    report.notes.push_back(fmt::format("Nothing to bisect: no cell's {} got {} from good to bad beyond the A/A "
                                       "control{}.",
                                       o.metric, wanted, check.figures.empty() ? "" : " — " + check.figures));
  }
  lab.save();
  if (o.github) {
    publish_bisect_to_github(out, "");
  }
  throw RefusedError(
      check.unclear
          ? fmt::format("nothing to bisect: the rounds could not tell whether {} moved from {} to {}: {} (the table "
                        "above)",
                        o.metric, o.good, o.bad, check.figures)
          : fmt::format("nothing to bisect: no cell's {} got {} from {} to {} beyond the A/A control (the table above)",
                        o.metric, wanted, o.good, o.bad),
      check.unclear ? "pass a larger --budget (or --max-rounds), or bisect on a quieter machine"
                    : "check the range, the metric (--metric) and --improvement");
}

} // namespace

int run_bisect(const BisectOptions& o, const CommonOptions& common) {
  process::install_interrupt_handlers();
  auto launcher = process::Launcher::start(); // before refbench grows: RSS honesty (docs/manual/measurement.md)
  process::hide_from_commands();
  return bisect_on(launcher_bench(*launcher), o, common);
}

int bisect_on(const Bench& bench, const BisectOptions& o, const CommonOptions& common) {
  auto in = read_inputs(o.run);
  show_metric(in, o.metric);
  if (in.settings.replicas.value > 1 && in.settings.replicas.origin != "default") {
    throw UsageError("bisect measures each commit in its one worktree; --replicas does not apply",
                     "drop --replicas (and run.replicas) for bisect");
  }
  in.settings.replicas.value = 1;
  if (!in.config.baseline_arm.empty() || !in.config.candidate_arm.empty()) {
    throw UsageError(in.config_path + ": [arms.baseline] / [arms.candidate] make two arms differ on purpose; bisect "
                                      "compares commits with the same settings",
                     "bisect with a config without [arms.*] (pass -c FILE)");
  }
  check_box_possible(o.run.sandbox.value_or(in.config.run.sandbox.value_or(model::SandboxMode::automatic)),
                     static_cast<bool>(bench.box));
  const auto good = git::resolve(in.repo, o.good);
  const auto bad = git::resolve(in.repo, o.bad);
  const auto path = checked_path(in, o, good, bad);
  const auto [out, work] = out_and_work(o.run);
  make_out_dirs(out);
  auto isolation = process::plan_isolation_here(in.settings.isolate.value, config::cpu_split_requests(in.config.cells));
  BisectReport report;
  report.good = good.sha;
  report.bad = bad.sha;
  report.metric = o.metric;
  BisectSteps lab(in, o, out, work, bench, isolation, report, common.quiet);
  if (!common.quiet) {
    std::cerr << fmt::format("refbench: bisect: {} commits from {} ({}) to {} ({})\n", path.size() - 1, o.good,
                             git::short_sha(good.sha), o.bad, git::short_sha(bad.sha));
  }
  try {
    const auto check = check_move(lab, o, good.sha, bad.sha, std::nullopt, "confirm", true);
    if (!check.moved) {
      refuse_nothing_to_bisect(lab, o, check, out);
    }
    report.cell = check.moved->cell;
    bisect_path(lab, o, path, check.moved->cell, check.moved->estimate, common.quiet);
    report.status = "done";
    lab.save();
  } catch (const InterruptedError&) {
    report.status = "interrupted";
    lab.save();
    throw;
  }
  *bench.out << bisect_markdown(report);
  if (o.github) {
    publish_bisect_to_github(out, report.culprit ? report.culprit->sha : std::string());
  }
  return report.culprit ? 0 : 1;
}

} // namespace refbench::pipeline
