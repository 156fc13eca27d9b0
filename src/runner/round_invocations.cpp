#include "round_runner.hpp"

#include <refbench/model/command_output.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>

namespace refbench::runner::detail {

void read_report(const model::CellMeta& meta, model::Sample& sample, const std::string& output) {
  if (output.empty()) {
    const bool cut = sample.outcome.stdout_bytes > sample.outcome.stdout_text.size();
    model::read_sample_report(meta, sample, sample.outcome.stdout_text, cut);
    return;
  }
  auto content = util::read_file(output, model::k_max_output_report_bytes, util::Readable::regular_here);
  if (!content) {
    sample.problem = fmt::format("wrote no readable {{output}} file to read its metrics from: {}", content.error());
    return;
  }
  model::read_sample_report(meta, sample, *content, false);
}

const model::Invocation& RoundRunner::invocation_of(Slot slot) const {
  const model::CellSpec& spec = m_cells[slot.cell];
  return slot.arm == model::Arm::baseline ? spec.baseline
         : spec.control                   ? (spec.control_twin ? *spec.control_twin : spec.baseline)
                                          : spec.candidate;
}

std::string RoundRunner::fresh_output(Slot slot, int round, model::Invocation& invocation) const {
  const model::CellSpec& spec = m_cells[slot.cell];
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
  const model::CellSpec& spec = m_cells[slot.cell];
  model::Invocation invocation = invocation_of(slot);
  invocation.env.push_back("REFBENCH_PAD=" + pad);
  const std::string output = fresh_output(slot, round, invocation);
  const bool reads = reads_report(spec.meta);
  const bool reads_file = reads && reads_output_file(spec.meta);
  invocation.capture_stdout = reads && !reads_file;
  if (!run_hook(slot, model::Hook::prepare, round)) {
    return; // the cell is an ERROR naming its prepare hook
  }
  check_links(round);
  if (m_hooks.before_invocation) {
    m_hooks.before_invocation(m_record.cells[slot.cell], slot.arm, round);
  }
  model::Sample sample{slot.cell, slot.arm, round, order, m_executor.run(invocation), {}, {}, replica_of(slot, round)};
  for (const auto& [reading, value] : counts.readings) {
    sample.outcome.readings[reading] = value;
  }
  if (reads && model::succeeded(sample.outcome)) {
    read_report(spec.meta, sample, reads_file ? output : std::string());
    add_benchmark_counts(sample, counts);
  }
  sample.outcome.stdout_text.clear(); // read above, not kept
  if (!output.empty()) {
    if (spec.check_output && !spec.meta.candidate_only && round == 1 && model::succeeded(sample.outcome)) {
      record_output_hash(slot, output);
    }
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
  }
  m_last_wall[slot.cell][slot.arm == model::Arm::baseline ? 0 : 1] = sample.outcome.readings[model::Reading::wall];
  m_log.sample(sample, m_record.cells);
  if (!model::succeeded(sample.outcome)) {
    m_record.cells[slot.cell].failure =
        model::CellFailure{slot.arm, round, model::describe(sample.outcome, invocation.timeout),
                           sample.outcome.stderr_tail, sample.outcome.termination == model::Termination::spawn_failed};
    stop(slot.cell, model::StopReason::error);
  } else if (!sample.problem.empty() && !m_record.cells[slot.cell].failure) {
    m_record.cells[slot.cell].failure =
        model::CellFailure{slot.arm, round, sample.problem, sample.outcome.stderr_tail, false};
    stop(slot.cell, model::StopReason::error);
  }
  const bool cannot_start = sample.outcome.termination == model::Termination::spawn_failed;
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
      m_record.cells[slot.cell].failure = model::CellFailure{
          slot.arm, 1, fmt::format("wrote no {{output}} file to compare ({})", hash.error()), "", false};
      stop(slot.cell, model::StopReason::error);
    }
    return;
  }
  hashes[slot.arm == model::Arm::baseline ? 0 : 1] = *hash;
  if (!hashes[0].empty() && !hashes[1].empty() && hashes[0] != hashes[1] && !m_record.cells[slot.cell].failure) {
    m_record.cells[slot.cell].failure =
        model::CellFailure{model::Arm::candidate, 1,
                           fmt::format("wrote a different {{output}} than the baseline (sha256 {} vs {}): the arms did "
                                       "different work",
                                       hashes[1].substr(0, 12), hashes[0].substr(0, 12)),
                           "", false};
    stop(slot.cell, model::StopReason::error);
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
    if (m_record.cells[slot.cell].stop == model::StopReason::running && !skipped(slot)) {
      if (auto counted = count(slot, round)) {
        counts[{slot.cell, slot.arm == model::Arm::baseline ? 0 : 1}] = *counted;
      }
    }
  }
  m_counts.record(counting, counts, m_clock() - start);
  return counts;
}

std::optional<Counts> RoundRunner::count(Slot slot, int round) {
  const std::string key =
      m_hooks.count_memo && m_hooks.count_key ? m_hooks.count_key(m_cells[slot.cell], slot.arm) : std::string();
  if (!key.empty()) {
    if (auto reused = m_hooks.count_memo->reuse(key)) {
      return reused;
    }
  }
  auto counts = take_counts(slot, round);
  if (counts && !key.empty()) {
    m_hooks.count_memo->add(key, *counts);
  }
  return counts;
}

std::optional<Counts> RoundRunner::take_counts(Slot slot, int round) {
  if (m_cells[slot.cell].meta.suite) {
    return count_benchmarks(slot, round);
  }
  Counts counts;
  for (Counter counter : counters_for(m_cells[slot.cell].counted)) {
    auto counted = count_under(slot, round, counter);
    if (!counted) {
      return std::nullopt;
    }
    counts.readings.merge(counted->readings);
  }
  return counts;
}

std::optional<Counts> RoundRunner::count_under(Slot slot, int round, Counter counter) {
  model::Invocation invocation = invocation_of(slot);
  invocation.env.push_back("REFBENCH_PAD=");
  const std::string output = fresh_output(slot, round, invocation);
  if (!run_hook(slot, model::Hook::prepare, round)) {
    return std::nullopt;
  }
  check_links(round);
  auto counted = counted_command(invocation, counter, m_settings);
  const model::Outcome outcome = counted ? m_executor.run(*counted) : model::Outcome{};
  if (!output.empty()) {
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
  }
  std::string problem;
  if (!counted) {
    problem = counted.error();
  } else if (!model::succeeded(outcome)) {
    problem = model::describe(outcome, counted->timeout);
  } else if (auto counts = read_counts(counter, invocation, m_settings.counts_dir)) {
    return *counts;
  } else {
    problem = counts.error();
  }
  if (!m_record.cells[slot.cell].failure) {
    m_record.cells[slot.cell].failure =
        model::CellFailure{slot.arm, round, problem, outcome.stderr_tail, false, std::string(failure_hook(counter))};
  }
  stop(slot.cell, model::StopReason::error);
  return std::nullopt;
}

} // namespace refbench::runner::detail
