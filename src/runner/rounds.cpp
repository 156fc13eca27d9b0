#include "round_runner.hpp"

#include <refbench/util/error.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>

namespace refbench::runner {
namespace detail {

RoundRunner::RoundRunner(const std::vector<model::CellSpec>& cells, const model::RoundSettings& settings,
                         process::Executor& executor, model::RoundLog& log, const RoundHooks& hooks)
    : m_cells(cells.begin(), cells.end()), m_settings(settings), m_executor(executor), m_log(log), m_hooks(hooks),
      m_clock(hooks.clock), m_rng(settings.seed), m_last_wall(cells.size(), {0.0, 0.0}), m_output_hashes(cells.size()),
      m_counts(cells.size()),
      m_placements(place_replicas(m_hooks.place ? settings.replicas : 1, settings.max_rounds, settings.seed)) {
  m_record.seed = settings.seed;
  m_record.rss = executor.rss_probe();
  for (const auto& cell : cells) {
    m_record.cells.push_back({cell.name, cell.control, model::StopReason::running, 0, std::nullopt, cell.meta});
  }
}

model::RunRecord RoundRunner::run() {
  const double start = m_clock();
  m_deadline = start + m_settings.budget_seconds;
  try {
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      set_up(cell);
    }
    warm_up();
    if (trees_changed(0, false)) {
      throw TreeChanged{};
    }
    if (m_settings.auto_control) {
      add_control_of_cheapest();
    }

    for (int round = 1; round <= (m_settings.warm_up_only ? 0 : m_settings.max_rounds); ++round) {
      auto active = active_cells();
      drop_over_budget(active, m_settings.budget_seconds - (m_clock() - start));
      if (active.empty()) {
        break;
      }
      place(round);
      run_round(round, active);
      if (m_hooks.observer) {
        m_hooks.observer(round, active_cells().size(), m_clock() - start);
      }
      if (trees_changed(round, false)) {
        throw TreeChanged{};
      }
    }
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      stop(cell, model::StopReason::max_rounds);
    }
    if (!trees_changed(last_round(), true)) {
      explain();
    }
  } catch (const TreeChanged&) {
    // every cell is an ERROR naming the change
  } catch (const CannotStart&) {
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      stop(cell, model::StopReason::aborted);
    }
  } catch (const InterruptedError& interrupted) {
    m_record.interrupted_by = interrupted.signal_number();
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      stop(cell, model::StopReason::interrupted);
    }
  } catch (...) { // a full disk, a launcher that died: the cleanups still run, then the error goes on
    clean_up();
    throw;
  }
  clean_up();
  m_record.elapsed_seconds = m_clock() - start - m_explain_seconds; // warm-up and rounds (and hooks)
  return std::move(m_record);
}

int RoundRunner::last_round() const {
  int last = 0;
  for (const auto& cell : m_record.cells) {
    last = std::max(last, cell.rounds);
  }
  return last;
}

bool RoundRunner::trees_changed(int round, bool last) {
  if (!m_hooks.check_trees) {
    return false;
  }
  const auto change = m_hooks.check_trees(round, last);
  if (change.empty()) {
    return false;
  }
  fail_all_on_change(round, change);
  return true;
}

void RoundRunner::check_links(int round) {
  if (!m_hooks.check_links) {
    return;
  }
  if (const auto moved = m_hooks.check_links(); !moved.empty()) {
    fail_all_on_change(round, "a move of " + moved);
    throw TreeChanged{};
  }
}

void RoundRunner::fail_all_on_change(int round, const std::string& change) {
  m_log.tree_changed(round, change);
  for (std::size_t i = 0; i < m_record.cells.size(); ++i) {
    auto& cell = m_record.cells[i];
    if (!cell.failure) {
      cell.failure =
          model::CellFailure{model::Arm::baseline, round, change, "", false, std::string(model::k_tree_check)};
    }
    stop(i, model::StopReason::error);
    cell.stop = model::StopReason::error;
  }
}

bool RoundRunner::over_budget() const { return m_clock() >= m_deadline; }

void RoundRunner::stop_all_on_budget() {
  for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
    stop(cell, model::StopReason::budget);
  }
}

void RoundRunner::warm_up() {
  if (m_settings.warmup > 0) {
    place(0);
  }
  for (int i = 0; i < m_settings.warmup; ++i) {
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      for (model::Arm arm : {model::Arm::baseline, model::Arm::candidate}) {
        if (over_budget()) {
          stop_all_on_budget();
          return;
        }
        if (m_record.cells[cell].stop == model::StopReason::running) {
          measure({cell, arm}, 0, 0, "");
        }
      }
    }
  }
}

void RoundRunner::add_control_of_cheapest() {
  auto candidates = active_cells();
  std::erase_if(candidates, [&](std::size_t cell) { return m_cells[cell].meta.candidate_only; });
  if (candidates.empty()) {
    return;
  }
  const std::size_t cheapest = cheapest_first(candidates, round_costs()).front();
  model::CellSpec control = control_of(m_cells[cheapest]);
  m_cells.push_back(control);
  m_last_wall.push_back({m_last_wall[cheapest][0], m_last_wall[cheapest][0]});
  m_output_hashes.emplace_back();
  m_counts.add_like(cheapest);
  m_record.cells.push_back({control.name, true, model::StopReason::running, 0, std::nullopt, control.meta});
  m_log.control_added(m_record.cells.back(), m_cells[cheapest].name);
  set_up(m_cells.size() - 1);
}

void RoundRunner::run_round(int round, const std::vector<std::size_t>& active) {
  std::string pad = round_pad(m_rng);
  // shuffle the cells in index order: an order taken from measured costs
  // would make the schedule of a seed depend on timing noise
  auto slots = shuffled_round(active, m_rng);
  const auto counts = count_round(round, active);
  for (std::size_t order = 0; order < slots.size(); ++order) {
    if (over_budget()) { // the round's unpaired samples are dropped by the analysis
      stop_all_on_budget();
      return;
    }
    if (m_record.cells[slots[order].cell].stop == model::StopReason::running) {
      const auto count = counts.find({slots[order].cell, slots[order].arm == model::Arm::baseline ? 0 : 1});
      measure(slots[order], round, order, pad, count == counts.end() ? Counts{} : count->second);
    }
  }
  for (std::size_t cell : active) {
    if (m_record.cells[cell].stop == model::StopReason::running) {
      m_record.cells[cell].rounds = round;
      if (round >= m_settings.min_rounds && m_hooks.precise && m_hooks.precise(m_record, cell)) {
        stop(cell, model::StopReason::precision);
      } else if (round >= m_settings.max_rounds) {
        stop(cell, model::StopReason::max_rounds);
      }
    }
  }
}

std::vector<double> RoundRunner::round_costs() const {
  std::vector<double> cost;
  for (std::size_t cell = 0; cell < m_last_wall.size(); ++cell) {
    cost.push_back(m_last_wall[cell][0] + m_last_wall[cell][1] + (needs_counts(cell) ? m_counts.last_cost(cell) : 0));
  }
  return cost;
}

std::vector<std::size_t> RoundRunner::active_cells() const {
  std::vector<std::size_t> active;
  for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
    if (m_record.cells[cell].stop == model::StopReason::running) {
      active.push_back(cell);
    }
  }
  return active;
}

void RoundRunner::drop_over_budget(std::vector<std::size_t>& active, double remaining) {
  for (std::size_t cell : cells_over_budget(active, round_costs(), remaining)) {
    stop(cell, model::StopReason::budget);
    std::erase(active, cell);
  }
}

void RoundRunner::stop(std::size_t cell, model::StopReason reason) {
  auto& record = m_record.cells[cell];
  if (record.stop != model::StopReason::running) {
    return;
  }
  record.stop = reason;
  m_log.stopped(record);
}

} // namespace detail

void substitute_placeholders(model::Invocation& invocation, int round, const std::string& output, bool shell) {
  const std::vector<std::pair<std::string, std::string>> values{{"{round}", std::to_string(round)},
                                                                {"{output}", output}};
  auto fill = [&](std::string& text, bool script) {
    if (script) {
      text = util::fill_shell_script(text, values);
      return;
    }
    for (const auto& [placeholder, value] : values) {
      text = util::replace_all(std::move(text), placeholder, value);
    }
  };
  for (std::size_t i = 0; i < invocation.argv.size(); ++i) {
    fill(invocation.argv[i], shell && i == 2);
  }
  for (auto& entry : invocation.env) {
    fill(entry, false);
  }
}

model::RunRecord run_rounds(const std::vector<model::CellSpec>& cells, const model::RoundSettings& settings,
                            process::Executor& executor, model::RoundLog& log, const RoundHooks& hooks) {
  return detail::RoundRunner(cells, settings, executor, log, hooks).run();
}

} // namespace refbench::runner
