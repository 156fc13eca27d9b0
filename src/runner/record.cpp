#include <refbench/runner/record.hpp>

namespace refbench::runner {

std::string_view arm_name(Arm arm) { return arm == Arm::baseline ? "baseline" : "candidate"; }

CellSpec control_of(const CellSpec& cell) {
  CellSpec control = cell;
  control.name += k_control_suffix;
  control.control = true;
  control.check_output = false;
  control.meta.family.clear(); // a replica is not a point of its payload family's fit
  control.meta.payload_bytes = 0;
  return control;
}

bool usable(const Sample& sample) { return process::succeeded(sample.outcome) && sample.problem.empty(); }

std::string arm_label(const CellRecord& cell, Arm arm) {
  return cell.control ? std::string("baseline (A/A control)") : std::string(arm_name(arm));
}

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
  case StopReason::running:
    return "running";
  case StopReason::precision:
    return "precision";
  case StopReason::max_rounds:
    return "max-rounds";
  case StopReason::budget:
    return "budget";
  case StopReason::error:
    return "error";
  case StopReason::interrupted:
    return "interrupted";
  case StopReason::aborted:
    return "aborted";
  }
  return "unknown";
}

} // namespace refbench::runner
