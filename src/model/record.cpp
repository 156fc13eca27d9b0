#include <refbench/model/record.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace refbench::model {

bool fixed_counts(const std::vector<double>& baseline, const std::vector<double>& candidate) {
  const auto alike = [](const std::vector<double>& values) {
    return std::ranges::all_of(values, [&](double v) { return v == values.front(); });
  };
  return std::min(baseline.size(), candidate.size()) >= static_cast<std::size_t>(k_fixed_counts) && alike(baseline) &&
         alike(candidate);
}

CellSpec control_of(const CellSpec& cell) {
  CellSpec control = cell;
  control.name += k_control_suffix;
  control.control = true;
  control.check_output = false;
  control.meta.family.clear(); // a replica is not a point of its payload family's fit
  control.meta.payload_bytes = 0;
  control.meta.sweep.clear(); // nor of its sweep's table
  control.meta.params.clear();
  control.meta.candidate.clear(); // both its arms run the baseline
  return control;
}

bool usable(const Sample& sample) { return succeeded(sample.outcome) && sample.problem.empty(); }

std::string cell_title(const std::string& name, const std::string& candidate) {
  return candidate.empty() ? name : name + " (" + candidate + ")";
}

std::string cell_title(const CellRecord& cell) { return cell_title(cell.name, cell.meta.candidate); }

std::string arm_label(const CellRecord& cell, Arm arm) {
  if (cell.control) {
    return "baseline (A/A control)";
  }
  return arm == Arm::candidate && !cell.meta.candidate.empty() ? "candidate " + cell.meta.candidate
                                                               : std::string(arm_name(arm));
}

std::string failure_subject(const CellRecord& cell, const CellFailure& failure) {
  if (failure.hook == k_tree_check) {
    return "the check of the arms' trees found";
  }
  if (failure.hook == k_counted_run || failure.hook == k_allocation_run || failure.hook == k_benchmark_count) {
    return fmt::format("the {} command, run under the {} counter,", arm_label(cell, failure.arm),
                       failure.hook == k_allocation_run ? "allocation" : "instruction");
  }
  return fmt::format("the {} {}", arm_label(cell, failure.arm),
                     failure.hook.empty() ? std::string("command") : failure.hook + " hook");
}

std::string failure_when(const CellFailure& failure) {
  if (failure.hook == hook_name(Hook::setup)) {
    return "before warm-up";
  }
  if (failure.hook == hook_name(Hook::cleanup)) {
    return "after the last round";
  }
  const std::string round = failure.round == 0 ? "warm-up" : fmt::format("round {}", failure.round);
  if (failure.hook == k_tree_check) {
    return "after " + round;
  }
  if (failure.hook == k_counted_run || failure.hook == k_allocation_run || failure.hook == k_benchmark_count) {
    return "in " + round;
  }
  return failure.hook.empty() ? "in " + round : "before its run in " + round;
}

void append_record(RunRecord& into, const RunRecord& run) {
  const std::size_t offset = into.cells.size();
  into.cells.insert(into.cells.end(), run.cells.begin(), run.cells.end());
  for (auto sample : run.samples) {
    sample.cell += offset;
    into.samples.push_back(std::move(sample));
  }
  into.elapsed_seconds = std::max(into.elapsed_seconds, run.elapsed_seconds);
}

void merge_rounds(RunRecord& into, const RunRecord& more) {
  int last_round = 0;
  for (const auto& sample : into.samples) {
    last_round = std::max(last_round, sample.round);
  }
  std::vector<std::size_t> cell_of(more.cells.size());
  for (std::size_t c = 0; c < more.cells.size(); ++c) {
    const auto& cell = more.cells[c];
    const auto same = std::find_if(into.cells.begin(), into.cells.end(), [&](const CellRecord& known) {
      return known.name == cell.name && known.meta.candidate == cell.meta.candidate && known.control == cell.control;
    });
    if (same == into.cells.end()) {
      cell_of[c] = into.cells.size();
      into.cells.push_back(cell);
      continue;
    }
    cell_of[c] = static_cast<std::size_t>(same - into.cells.begin());
    same->rounds += cell.rounds;
    same->stop = cell.stop;
    if (!same->failure) {
      same->failure = cell.failure;
    }
  }
  for (auto sample : more.samples) {
    sample.cell = cell_of[sample.cell];
    if (sample.round > 0) { // warm-up stays round 0
      sample.round += last_round;
    }
    into.samples.push_back(std::move(sample));
  }
  into.elapsed_seconds += more.elapsed_seconds;
  into.interrupted_by = into.interrupted_by != 0 ? into.interrupted_by : more.interrupted_by;
}

} // namespace refbench::model
