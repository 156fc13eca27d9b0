#include <refbench/runner/rounds.hpp>
#include <refbench/runner/schedule.hpp>
#include <refbench/util/error.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <map>
#include <refbench/runner/command_output.hpp>
#include <refbench/runner/counted_rounds.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/sha256.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

namespace refbench::runner {
namespace {

// Thrown inside the runner when a command cannot be started at all: the run
// stops at once instead of measuring the other cells to the end.
struct CannotStart {};

// Mutable state of one run; the record is what the caller gets back.
class RoundRunner {
public:
  RoundRunner(const std::vector<CellSpec>& cells, const RoundSettings& settings, process::Executor& executor,
              RoundLog& log, const RoundHooks& hooks)
      : m_cells(cells.begin(), cells.end()), m_settings(settings), m_executor(executor), m_log(log), m_hooks(hooks),
        m_clock(hooks.clock), m_rng(settings.seed), m_last_wall(cells.size(), {0.0, 0.0}),
        m_output_hashes(cells.size()), m_counts(cells.size()),
        m_placements(place_replicas(m_hooks.place ? settings.replicas : 1, settings.max_rounds, settings.seed)) {
    m_record.seed = settings.seed;
    m_record.rss = executor.rss_probe();
    for (const auto& cell : cells) {
      m_record.cells.push_back({cell.name, cell.control, StopReason::running, 0, std::nullopt, cell.meta});
    }
  }

  RunRecord run() {
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
        stop(cell, StopReason::max_rounds);
      }
      trees_changed(last_round(), true);
    } catch (const TreeChanged&) {
      // every cell is an ERROR naming the change
    } catch (const CannotStart&) {
      for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
        stop(cell, StopReason::aborted);
      }
    } catch (const InterruptedError& interrupted) {
      m_record.interrupted_by = interrupted.signal_number();
      for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
        stop(cell, StopReason::interrupted);
      }
    } catch (...) { // a full disk, a launcher that died: the cleanups still run, then the error goes on
      clean_up();
      throw;
    }
    clean_up();
    m_record.elapsed_seconds = m_clock() - start;
    return std::move(m_record);
  }

private:
  struct TreeChanged {};

  // The last round any cell ran.
  int last_round() const {
    int last = 0;
    for (const auto& cell : m_record.cells) {
      last = std::max(last, cell.rounds);
    }
    return last;
  }

  // Asks the tree check after `round`; on a change every cell fails with it
  // (an earlier failure of its own stays) and stops as an ERROR, even one
  // that had stopped: its samples were taken on a changed tree.
  bool trees_changed(int round, bool last) {
    if (!m_hooks.check_trees) {
      return false;
    }
    const auto change = m_hooks.check_trees(round, last);
    if (change.empty()) {
      return false;
    }
    m_log.tree_changed(round, change);
    for (std::size_t i = 0; i < m_record.cells.size(); ++i) {
      auto& cell = m_record.cells[i];
      if (!cell.failure) {
        cell.failure = CellFailure{Arm::baseline, round, change, "", false, std::string(k_tree_check)};
      }
      stop(i, StopReason::error);
      cell.stop = StopReason::error;
    }
    return true;
  }

  // Whether the budget is spent: then no invocation starts.
  bool over_budget() const { return m_clock() >= m_deadline; }

  // Stops every running cell on the budget.
  void stop_all_on_budget() {
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      stop(cell, StopReason::budget);
    }
  }

  // A new cell's baseline slot: the baseline has no such benchmark.
  bool skipped(Slot slot) const { return slot.arm == Arm::baseline && m_cells[slot.cell].meta.candidate_only; }

  // The hooks of `slot`: the A/A control runs the baseline's on both arms,
  // the second where its twin runs (README: Hooks).
  const ArmHooks& hooks_of(Slot slot) const {
    const CellSpec& spec = m_cells[slot.cell];
    if (slot.arm == Arm::baseline) {
      return spec.baseline_hooks;
    }
    if (spec.control) {
      return spec.control_twin_hooks ? *spec.control_twin_hooks : spec.baseline_hooks;
    }
    return spec.candidate_hooks;
  }

  // Runs `hook` of `slot` (with {round} = `round`); a failure becomes the
  // cell's failure naming the hook and stops the cell. True when it ran to exit 0.
  bool run_hook(Slot slot, Hook hook, int round) {
    if (skipped(slot)) {
      return true;
    }
    const auto& hooks = hooks_of(slot);
    const auto& command = hook == Hook::setup ? hooks.setup : hook == Hook::prepare ? hooks.prepare : hooks.cleanup;
    if (!command) {
      return true;
    }
    process::Invocation invocation = command->invocation;
    substitute_placeholders(invocation, round, "", command->shell);
    invocation.despite_interrupt = hook == Hook::cleanup;
    const process::Outcome outcome = m_executor.run(invocation);
    const bool ok = process::succeeded(outcome);
    HookRun run{
        .arm = slot.arm, .hook = hook, .round = round, .ok = ok, .wall = outcome.readings[process::Reading::wall]};
    if (!ok) {
      run.description = process::describe(outcome, invocation.timeout);
      run.stderr_tail = outcome.stderr_tail;
    }
    m_log.hook(run, m_record.cells[slot.cell]);
    if (!ok && !m_record.cells[slot.cell].failure) {
      m_record.cells[slot.cell].failure =
          CellFailure{slot.arm,
                      round,
                      process::describe(outcome, invocation.timeout),
                      outcome.stderr_tail,
                      false, // a hook that cannot start is this cell's ERROR, not the run's
                      std::string(hook_name(hook))};
      stop(slot.cell, StopReason::error);
    }
    return ok;
  }

  // The setup hooks of `cell`, each arm once; the first that fails stops it.
  void set_up(std::size_t cell) {
    for (Arm arm : {Arm::baseline, Arm::candidate}) {
      if (m_record.cells[cell].stop == StopReason::running) {
        run_hook({cell, arm}, Hook::setup, 0);
      }
    }
  }

  // Every cell's cleanup hooks, each arm once, whatever stopped the cell or
  // the run (an interrupt included: they run despite it).
  void clean_up() {
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      for (Arm arm : {Arm::baseline, Arm::candidate}) {
        try {
          run_hook({cell, arm}, Hook::cleanup, m_record.cells[cell].rounds);
        } catch (const std::exception&) {
          // a launcher that died cannot clean up; the run's result stands
        }
      }
    }
  }

  // Points the {arm} links at round `round`'s replicas.
  void place(int round) {
    if (m_hooks.place && m_settings.replicas > 1) {
      m_hooks.place(round, m_placements[static_cast<std::size_t>(round)]);
    }
  }

  // The replica that `slot` runs from in `round`.
  int replica_of(Slot slot, int round) const {
    const Placement& p = m_placements[static_cast<std::size_t>(round)];
    if (slot.arm == Arm::baseline) {
      return p.baseline;
    }
    return m_cells[slot.cell].control ? p.control : p.candidate;
  }

  void warm_up() {
    if (m_settings.warmup > 0) {
      place(0);
    }
    for (int i = 0; i < m_settings.warmup; ++i) {
      for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
        for (Arm arm : {Arm::baseline, Arm::candidate}) {
          if (over_budget()) {
            stop_all_on_budget();
            return;
          }
          if (m_record.cells[cell].stop == StopReason::running) {
            measure({cell, arm}, 0, 0, "");
          }
        }
      }
    }
  }

  // README: What is measured: the A/A control replicates the cheapest cell (by warm-up
  // cost), baseline on both arms; announced to the log (a "cell" line of the journal).
  void add_control_of_cheapest() {
    auto candidates = active_cells();
    std::erase_if(candidates, [&](std::size_t cell) { return m_cells[cell].meta.candidate_only; });
    if (candidates.empty()) {
      return;
    }
    const std::size_t cheapest = cheapest_first(candidates, round_costs()).front();
    CellSpec control = control_of(m_cells[cheapest]);
    m_cells.push_back(control);
    m_last_wall.push_back({m_last_wall[cheapest][0], m_last_wall[cheapest][0]});
    m_output_hashes.emplace_back();
    m_counts.add_like(cheapest);
    m_record.cells.push_back({control.name, true, StopReason::running, 0, std::nullopt, control.meta});
    m_log.control_added(m_record.cells.back(), m_cells[cheapest].name);
    set_up(m_cells.size() - 1);
  }

  void run_round(int round, const std::vector<std::size_t>& active) {
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
      if (m_record.cells[slots[order].cell].stop == StopReason::running) {
        const auto count = counts.find({slots[order].cell, slots[order].arm == Arm::baseline ? 0 : 1});
        measure(slots[order], round, order, pad, count == counts.end() ? Counts{} : count->second);
      }
    }
    for (std::size_t cell : active) {
      if (m_record.cells[cell].stop == StopReason::running) {
        m_record.cells[cell].rounds = round;
        if (round >= m_settings.min_rounds && m_hooks.precise && m_hooks.precise(m_record, cell)) {
          stop(cell, StopReason::precision);
        } else if (round >= m_settings.max_rounds) {
          stop(cell, StopReason::max_rounds);
        }
      }
    }
  }

  // What `slot` runs: the control runs the baseline on both arms, the
  // second through its own link when it has one.
  const process::Invocation& invocation_of(Slot slot) const {
    const CellSpec& spec = m_cells[slot.cell];
    return slot.arm == Arm::baseline ? spec.baseline
           : spec.control            ? (spec.control_twin ? *spec.control_twin : spec.baseline)
                                     : spec.candidate;
  }

  // The {output} path of `slot` substituted into its `invocation` for
  // `round`, removed first so the command makes it afresh (never through a
  // link planted there); "" for a cell without placeholders.
  std::string fresh_output(Slot slot, int round, process::Invocation& invocation) const {
    const CellSpec& spec = m_cells[slot.cell];
    if (!spec.placeholders) {
      return "";
    }
    std::string output = fmt::format("{}/{}-{}.out", m_settings.output_dir, slot.cell, arm_name(slot.arm));
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
    substitute_placeholders(invocation, round, output, spec.shell);
    return output;
  }

  // Whether `cell` still takes counts: it is counted and its counts have
  // not settled (CountLedger::needs_counts).
  bool needs_counts(std::size_t cell) const {
    return !m_cells[cell].counted.empty() && m_counts.needs_counts(cell, m_settings.min_rounds);
  }

  // The counted invocations of round `round` (docs/design.md, Counters):
  // every active cell that still takes counts, once per arm and counter,
  // shuffled like the timed ones and run before them; the counts by (cell,
  // arm index).
  RoundCounts count_round(int round, const std::vector<std::size_t>& active) {
    std::vector<std::size_t> counting;
    std::copy_if(active.begin(), active.end(), std::back_inserter(counting),
                 [&](std::size_t cell) { return needs_counts(cell); });
    RoundCounts counts;
    if (counting.empty()) {
      return counts;
    }
    const double start = m_clock();
    for (Slot slot : shuffled_round(counting, m_rng)) {
      if (over_budget()) {
        break; // the timed pass stops the cells on the budget
      }
      if (m_record.cells[slot.cell].stop == StopReason::running && !skipped(slot)) {
        if (auto counted = count(slot, round)) {
          counts[{slot.cell, slot.arm == Arm::baseline ? 0 : 1}] = *counted;
        }
      }
    }
    m_counts.record(counting, counts, m_clock() - start);
    return counts;
  }

  // The counts of `slot` in `round`: one invocation under each counter its
  // cell's readings need; none when one failed (the cell's ERROR).
  std::optional<Counts> count(Slot slot, int round) {
    Counts counts;
    for (Counter counter : counters_for(m_cells[slot.cell].counted)) {
      auto counted = count_under(slot, round, counter);
      if (!counted) {
        return std::nullopt;
      }
      counts.merge(*counted);
    }
    return counts;
  }

  // One counted invocation of `slot` in `round` under `counter`, its
  // prepare hook first; a failure (of the hook, the command under the
  // counter, or the count) is the cell's ERROR. The pad is fixed: the
  // environment's size changes the instructions the dynamic loader runs.
  std::optional<Counts> count_under(Slot slot, int round, Counter counter) {
    process::Invocation invocation = invocation_of(slot);
    invocation.env.push_back("REFBENCH_PAD=");
    const std::string output = fresh_output(slot, round, invocation);
    if (!run_hook(slot, Hook::prepare, round)) {
      return std::nullopt;
    }
    auto counted = counted_command(invocation, counter, m_settings);
    const process::Outcome outcome = counted ? m_executor.run(*counted) : process::Outcome{};
    if (!output.empty()) {
      std::error_code ignored;
      std::filesystem::remove(output, ignored);
    }
    std::string problem;
    if (!counted) {
      problem = counted.error();
    } else if (!process::succeeded(outcome)) {
      problem = process::describe(outcome, counted->timeout);
    } else if (auto counts = read_counts(counter, invocation, m_settings.counts_dir)) {
      return *counts;
    } else {
      problem = counts.error();
    }
    if (!m_record.cells[slot.cell].failure) {
      m_record.cells[slot.cell].failure =
          CellFailure{slot.arm, round, problem, outcome.stderr_tail, false, std::string(failure_hook(counter))};
    }
    stop(slot.cell, StopReason::error);
    return std::nullopt;
  }

  void measure(Slot slot, int round, std::size_t order, const std::string& pad, const Counts& counts = {}) {
    if (skipped(slot)) {
      return;
    }
    const CellSpec& spec = m_cells[slot.cell];
    process::Invocation invocation = invocation_of(slot);
    invocation.env.push_back("REFBENCH_PAD=" + pad);
    const std::string output = fresh_output(slot, round, invocation);
    const bool reads = reads_report(spec.meta);
    const bool reads_file = reads && reads_output_file(spec.meta);
    invocation.capture_stdout = reads && !reads_file;
    if (!run_hook(slot, Hook::prepare, round)) {
      return; // the cell is an ERROR naming its prepare hook
    }
    if (m_hooks.before_invocation) {
      m_hooks.before_invocation(m_record.cells[slot.cell], slot.arm, round);
    }
    Sample sample{slot.cell, slot.arm, round, order, m_executor.run(invocation), {}, {}, replica_of(slot, round)};
    for (const auto& [reading, value] : counts) {
      sample.outcome.readings[reading] = value;
    }
    if (reads && process::succeeded(sample.outcome)) {
      read_sample_report(spec.meta, sample, reads_file ? output : std::string());
    }
    sample.outcome.stdout_text.clear(); // read above, not kept
    if (!output.empty()) {
      if (spec.check_output && !spec.meta.candidate_only && round == 1 && process::succeeded(sample.outcome)) {
        record_output_hash(slot, output);
      }
      std::error_code ignored;
      std::filesystem::remove(output, ignored);
    }
    m_last_wall[slot.cell][slot.arm == Arm::baseline ? 0 : 1] = sample.outcome.readings[process::Reading::wall];
    m_log.sample(sample, m_record.cells);
    if (!process::succeeded(sample.outcome)) {
      m_record.cells[slot.cell].failure =
          CellFailure{slot.arm, round, process::describe(sample.outcome, invocation.timeout),
                      sample.outcome.stderr_tail, sample.outcome.termination == process::Termination::spawn_failed};
      stop(slot.cell, StopReason::error);
    } else if (!sample.problem.empty() && !m_record.cells[slot.cell].failure) {
      m_record.cells[slot.cell].failure =
          CellFailure{slot.arm, round, sample.problem, sample.outcome.stderr_tail, false};
      stop(slot.cell, StopReason::error);
    }
    const bool cannot_start = sample.outcome.termination == process::Termination::spawn_failed;
    m_record.samples.push_back(std::move(sample));
    if (cannot_start) {
      throw CannotStart{};
    }
  }

  // Hashes `output` of `slot` in round 1; once both arms are in, differing
  // hashes make the cell ERROR (the arms did different work).
  void record_output_hash(Slot slot, const std::string& output) {
    auto& hashes = m_output_hashes[slot.cell];
    auto hash = util::sha256_file(output);
    if (!hash) { // nothing to compare: a missing file is no hash to hold against the other arm's
      if (!m_record.cells[slot.cell].failure) {
        m_record.cells[slot.cell].failure =
            CellFailure{slot.arm, 1, fmt::format("wrote no {{output}} file to compare ({})", hash.error()), "", false};
        stop(slot.cell, StopReason::error);
      }
      return;
    }
    hashes[slot.arm == Arm::baseline ? 0 : 1] = *hash;
    if (!hashes[0].empty() && !hashes[1].empty() && hashes[0] != hashes[1] && !m_record.cells[slot.cell].failure) {
      m_record.cells[slot.cell].failure =
          CellFailure{Arm::candidate, 1,
                      fmt::format("wrote a different {{output}} than the baseline (sha256 {} vs {}): the arms did "
                                  "different work",
                                  hashes[1].substr(0, 12), hashes[0].substr(0, 12)),
                      "", false};
      stop(slot.cell, StopReason::error);
    }
  }

  // What each cell's next round costs: its timed invocations, and its
  // counted ones while it takes counts.
  std::vector<double> round_costs() const {
    std::vector<double> cost;
    for (std::size_t cell = 0; cell < m_last_wall.size(); ++cell) {
      cost.push_back(m_last_wall[cell][0] + m_last_wall[cell][1] + (needs_counts(cell) ? m_counts.last_cost(cell) : 0));
    }
    return cost;
  }

  std::vector<std::size_t> active_cells() const {
    std::vector<std::size_t> active;
    for (std::size_t cell = 0; cell < m_cells.size(); ++cell) {
      if (m_record.cells[cell].stop == StopReason::running) {
        active.push_back(cell);
      }
    }
    return active;
  }

  void drop_over_budget(std::vector<std::size_t>& active, double remaining) {
    for (std::size_t cell : cells_over_budget(active, round_costs(), remaining)) {
      stop(cell, StopReason::budget);
      std::erase(active, cell);
    }
  }

  void stop(std::size_t cell, StopReason reason) {
    auto& record = m_record.cells[cell];
    if (record.stop != StopReason::running) {
      return;
    }
    record.stop = reason;
    m_log.stopped(record);
  }

  std::vector<CellSpec> m_cells;
  const RoundSettings& m_settings;
  process::Executor& m_executor;
  RoundLog& m_log;
  const RoundHooks& m_hooks;
  const Clock& m_clock;
  double m_deadline = 0; // on m_clock: when the budget is spent
  util::Rng m_rng;
  std::vector<std::array<double, 2>> m_last_wall;
  std::vector<std::array<std::string, 2>> m_output_hashes; // round 1 {output} hashes per cell
  CountLedger m_counts;                                    // the counted cells' counts so far
  std::vector<Placement> m_placements;                     // per round, 0 = warm-up
  RunRecord m_record;
};

} // namespace

void substitute_placeholders(process::Invocation& invocation, int round, const std::string& output, bool shell) {
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

RunRecord run_rounds(const std::vector<CellSpec>& cells, const RoundSettings& settings, process::Executor& executor,
                     RoundLog& log, const RoundHooks& hooks) {
  return RoundRunner(cells, settings, executor, log, hooks).run();
}

} // namespace refbench::runner
