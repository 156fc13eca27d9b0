#include "round_runner.hpp"

#include <refbench/runner/command_output.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>

namespace refbench::runner::detail {

const process::Invocation& RoundRunner::invocation_of(Slot slot) const {
  const CellSpec& spec = m_cells[slot.cell];
  return slot.arm == Arm::baseline ? spec.baseline
         : spec.control            ? (spec.control_twin ? *spec.control_twin : spec.baseline)
                                   : spec.candidate;
}

std::string RoundRunner::fresh_output(Slot slot, int round, process::Invocation& invocation) const {
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

void RoundRunner::measure(Slot slot, int round, std::size_t order, const std::string& pad, const Counts& counts) {
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
  check_links(round);
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
        CellFailure{slot.arm, round, process::describe(sample.outcome, invocation.timeout), sample.outcome.stderr_tail,
                    sample.outcome.termination == process::Termination::spawn_failed};
    stop(slot.cell, StopReason::error);
  } else if (!sample.problem.empty() && !m_record.cells[slot.cell].failure) {
    m_record.cells[slot.cell].failure = CellFailure{slot.arm, round, sample.problem, sample.outcome.stderr_tail, false};
    stop(slot.cell, StopReason::error);
  }
  const bool cannot_start = sample.outcome.termination == process::Termination::spawn_failed;
  m_record.samples.push_back(std::move(sample));
  if (cannot_start) {
    throw CannotStart{};
  }
}

void RoundRunner::record_output_hash(Slot slot, const std::string& output) {
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

bool RoundRunner::needs_counts(std::size_t cell) const {
  return !m_cells[cell].counted.empty() && m_counts.needs_counts(cell, m_settings.min_rounds);
}

RoundCounts RoundRunner::count_round(int round, const std::vector<std::size_t>& active) {
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

std::optional<Counts> RoundRunner::count(Slot slot, int round) {
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

std::optional<Counts> RoundRunner::count_under(Slot slot, int round, Counter counter) {
  process::Invocation invocation = invocation_of(slot);
  invocation.env.push_back("REFBENCH_PAD=");
  const std::string output = fresh_output(slot, round, invocation);
  if (!run_hook(slot, Hook::prepare, round)) {
    return std::nullopt;
  }
  check_links(round);
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

} // namespace refbench::runner::detail
