#include <refbench/analysis/analysis.hpp>
#include <refbench/bisect/search.hpp>
#include <refbench/git/commits.hpp>
#include <refbench/pipeline/bisect_checks.hpp>

#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <string>

namespace refbench::pipeline {

// "1.234x [1.100, 1.300]" of a log-ratio reading; "no reading" without one.
std::string reading_text(const bisect::Reading& r) {
  if (!std::isfinite(r.low) || !std::isfinite(r.high)) {
    return "no reading";
  }
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", std::exp(r.estimate), std::exp(r.low), std::exp(r.high));
}

// "the A/A control's ±12.3 %" of a control reading; "no A/A control" without one.
std::string floor_text(const std::optional<bisect::Reading>& control) {
  const double floor = bisect::floor_of(control);
  if (!control) {
    return "no A/A control";
  }
  return std::isfinite(floor) ? fmt::format("the A/A control's ±{:.1f} %", 100 * (std::exp(floor) - 1))
                              : "an A/A control without an interval";
}

// Fills `step`'s figures from `run`: `reading` as its ratio, the control's
// interval, rounds, blocks and directories.
void fill_step(BisectStep& step, const BisectSteps::Run& run, const bisect::Reading& reading,
               const std::optional<bisect::Reading>& control) {
  if (std::isfinite(reading.low) && std::isfinite(reading.high)) {
    step.ratio = std::exp(reading.estimate);
    step.ci_low = std::exp(reading.low);
    step.ci_high = std::exp(reading.high);
  }
  if (control) {
    step.control_ratio = std::exp(control->estimate);
    step.control_ci_low = std::exp(control->low);
    step.control_ci_high = std::exp(control->high);
  }
  step.rounds = run.rounds;
  step.dir = run.dir;
  step.more_dirs = run.more_dirs;
}

namespace {

// The direction of the move bisect looks for, in log-ratio units: +1 when
// the metric goes up (a slowdown of a lower-is-better metric, or an
// improvement of a higher-is-better one), −1 when it goes down.
int wanted_sign(const analysis::MetricResult& row, bool improvement) {
  const bool up_is_worse = row.direction == analysis::Direction::lower_is_better;
  return up_is_worse != improvement ? 1 : -1;
}

} // namespace

MoveCheck check_move(BisectSteps& lab, const BisectOptions& o, const std::string& good, const std::string& bad,
                     const std::optional<std::string>& only_cell, const std::string& kind, bool print) {
  auto run = lab.measure(good, {bad}, kind, 0.95, std::nullopt, print);
  lab.report().steps.push_back({kind, git::commit_info(lab.repo(), bad), good, bad});
  while (true) {
    MoveCheck check;
    const auto control = control_reading_of(run, o.metric);
    const analysis::MetricResult* shown = nullptr; // the row the step's figures come from
    bisect::Reading shown_reading;
    bisect::Move shown_move = bisect::Move::none;
    for (const auto& r : run.rows) {
      if (r.metric != o.metric || r.control || (only_cell && r.cell != *only_cell) || r.candidate_only) {
        continue;
      }
      const auto reading = reading_of(run, r.cell, o.metric, "");
      const auto move = bisect::judge_move(reading, control, wanted_sign(r, o.improvement), std::log(r.threshold),
                                           lab.needed_pairs());
      if (r.error && check.failure.empty()) {
        check.failure = failure_of(run, r.cell, o.metric).value_or("");
      }
      if (move == bisect::Move::clear &&
          (!check.moved || std::abs(reading.estimate) > std::abs(check.moved->estimate))) {
        check.moved = Moved{r.cell, reading.estimate};
      }
      check.unclear = check.unclear || move == bisect::Move::unclear;
      const bool better_shown = !shown || (move == bisect::Move::clear) > (shown_move == bisect::Move::clear) ||
                                ((move == bisect::Move::clear) == (shown_move == bisect::Move::clear) &&
                                 std::abs(reading.estimate) > std::abs(shown_reading.estimate));
      if (better_shown) {
        shown = &r;
        shown_reading = reading;
        shown_move = move;
      }
    }
    auto& step = lab.report().steps.back();
    fill_step(step, run, shown ? shown_reading : bisect::Reading{0, NAN, NAN, 0}, control);
    step.move = check.moved ? "clear" : check.unclear ? "unclear" : "none";
    if (shown) {
      step.cell = shown->cell;
      check.figures = fmt::format("{} {} {}, {} after {} rounds", shown->cell, o.metric, reading_text(shown_reading),
                                  floor_text(control), run.rounds);
    }
    if (check.failure.empty()) {
      check.failure = failure_of(run, "", o.metric).value_or(""); // the control's
    }
    lab.save();
    if (check.moved || !check.unclear || !check.failure.empty()) {
      check.unclear = check.unclear && !check.moved;
      return check;
    }
    auto more = lab.measure_more(run);
    if (!more) {
      return check;
    }
    run = std::move(*more);
  }
}

} // namespace refbench::pipeline
