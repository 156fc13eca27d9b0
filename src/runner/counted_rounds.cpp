#include <refbench/process/counters.hpp>
#include <refbench/runner/counted_rounds.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

namespace refbench::runner {

std::vector<Counter> counters_for(const std::vector<model::Reading>& readings) {
  const auto shows = [&](model::Reading reading) { return std::ranges::count(readings, reading) > 0; };
  std::vector<Counter> counters;
  if (shows(model::Reading::instructions)) {
    counters.push_back(Counter::instructions);
  }
  if (shows(model::Reading::allocations) || shows(model::Reading::allocated_bytes)) {
    counters.push_back(Counter::allocations);
  }
  return counters;
}

std::string_view failure_hook(Counter counter) {
  return counter == Counter::instructions ? model::k_counted_run : model::k_allocation_run;
}

std::expected<model::Invocation, std::string> counted_command(const model::Invocation& invocation, Counter counter,
                                                              const model::RoundSettings& settings) {
  const std::filesystem::path dir = settings.counts_dir;
  if (dir.empty() || !process::clear_counts(dir)) {
    return std::unexpected(fmt::format("could not be counted: cannot empty {}", dir.string()));
  }
  if (counter == Counter::instructions) {
    if (!settings.counter) {
      return std::unexpected("could not be counted: the run has no instruction counter");
    }
    return process::counted_invocation(invocation, *settings.counter, dir);
  }
  auto library = process::write_allocation_counter(dir);
  if (!library) {
    return std::unexpected("could not be counted: " + library.error());
  }
  return process::allocation_counted_invocation(invocation, *library, dir);
}

std::expected<Counts, std::string> read_counts(Counter counter, const model::Invocation& invocation,
                                               const std::string& counts_dir) {
  if (counter == Counter::instructions) {
    auto total = process::read_instruction_count(counts_dir);
    if (!total) {
      return std::unexpected(total.error());
    }
    return Counts{{model::Reading::instructions, *total}};
  }
  auto allocations = process::read_allocation_count(counts_dir, invocation);
  if (!allocations) {
    return std::unexpected(allocations.error());
  }
  return Counts{{model::Reading::allocations, allocations->calls},
                {model::Reading::allocated_bytes, allocations->bytes}};
}

CountLedger::CountLedger(std::size_t cells) : m_counts(cells), m_last_seconds(cells, 0.0) {}

void CountLedger::add_like(std::size_t like) {
  m_counts.emplace_back();
  m_last_seconds.push_back(m_last_seconds[like]);
}

bool CountLedger::needs_counts(std::size_t cell, int min_rounds) const {
  const auto& counts = m_counts[cell];
  if (counts.size() < static_cast<std::size_t>(std::max(model::k_settled_counts, min_rounds))) {
    return true;
  }
  return std::any_of(counts.end() - model::k_settled_counts, counts.end(),
                     [&](const std::array<Counts, 2>& pair) { return pair != counts.back(); });
}

void CountLedger::record(const std::vector<std::size_t>& cells, const RoundCounts& counts, double seconds) {
  for (std::size_t cell : cells) {
    const auto baseline = counts.find({cell, 0});
    const auto candidate = counts.find({cell, 1});
    if (baseline != counts.end() && candidate != counts.end()) {
      m_counts[cell].push_back({baseline->second, candidate->second});
    }
    m_last_seconds[cell] = seconds / static_cast<double>(cells.size());
  }
}

} // namespace refbench::runner
