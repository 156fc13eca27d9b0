#include "round_runner.hpp"

namespace refbench::runner::detail {

bool RoundRunner::skipped(Slot slot) const {
  return slot.arm == model::Arm::baseline && m_cells[slot.cell].meta.candidate_only;
}

const model::ArmHooks& RoundRunner::hooks_of(Slot slot) const {
  const model::CellSpec& spec = m_cells[slot.cell];
  if (slot.arm == model::Arm::baseline) {
    return spec.baseline_hooks;
  }
  if (spec.control) {
    return spec.control_twin_hooks ? *spec.control_twin_hooks : spec.baseline_hooks;
  }
  return spec.candidate_hooks;
}

bool RoundRunner::run_hook(Slot slot, model::Hook hook, int round) {
  std::optional<model::CellFailure> failure;
  const bool ok = run_hook_quietly(slot, hook, round, failure);
  if (!ok && !m_record.cells[slot.cell].failure) {
    m_record.cells[slot.cell].failure = std::move(failure);
    stop(slot.cell, model::StopReason::error);
  }
  return ok;
}

bool RoundRunner::run_hook_quietly(Slot slot, model::Hook hook, int round, std::optional<model::CellFailure>& failure) {
  if (skipped(slot)) {
    return true;
  }
  const auto& hooks = hooks_of(slot);
  const auto& command = hook == model::Hook::setup     ? hooks.setup
                        : hook == model::Hook::prepare ? hooks.prepare
                                                       : hooks.cleanup;
  if (!command) {
    return true;
  }
  model::Invocation invocation = command->invocation;
  substitute_placeholders(invocation, round, "", command->shell);
  invocation.despite_interrupt = hook == model::Hook::cleanup;
  const model::Outcome outcome = m_executor.run(invocation);
  const bool ok = model::succeeded(outcome);
  model::HookRun run{
      .arm = slot.arm, .hook = hook, .round = round, .ok = ok, .wall = outcome.readings[model::Reading::wall]};
  if (!ok) {
    run.description = model::describe(outcome, invocation.timeout);
    run.stderr_tail = outcome.stderr_tail;
    failure = model::CellFailure{slot.arm,
                                 round,
                                 run.description,
                                 outcome.stderr_tail,
                                 false, // a hook that cannot start is this cell's ERROR, not the run's
                                 std::string(hook_name(hook))};
  }
  m_log.hook(run, m_record.cells[slot.cell]);
  return ok;
}

void RoundRunner::set_up(std::size_t cell) {
  for (model::Arm arm : {model::Arm::baseline, model::Arm::candidate}) {
    if (m_record.cells[cell].stop == model::StopReason::running) {
      run_hook({cell, arm}, model::Hook::setup, 0);
    }
  }
}

void RoundRunner::clean_up() {
  for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
    for (model::Arm arm : {model::Arm::baseline, model::Arm::candidate}) {
      try {
        run_hook({cell, arm}, model::Hook::cleanup, m_record.cells[cell].rounds);
      } catch (const std::exception&) {
        // a launcher that died cannot clean up; the run's result stands
      }
    }
  }
}

void RoundRunner::place(int round) {
  if (m_hooks.place && m_settings.replicas > 1) {
    m_hooks.place(round, m_placements[static_cast<std::size_t>(round)]);
  }
}

int RoundRunner::replica_of(Slot slot, int round) const {
  const Placement& p = m_placements[static_cast<std::size_t>(round)];
  if (slot.arm == model::Arm::baseline) {
    return p.baseline;
  }
  return m_cells[slot.cell].control ? p.control : p.candidate;
}

} // namespace refbench::runner::detail
