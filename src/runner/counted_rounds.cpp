#include <refbench/process/counters.hpp>
#include <refbench/runner/counted_rounds.hpp>
#include <refbench/util/enum_names.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fmt/format.h>

namespace refbench::runner {

namespace {

constexpr std::array k_instruction_readings{model::Reading::instructions};
constexpr std::array k_allocation_readings{model::Reading::allocations, model::Reading::allocated_bytes};

constexpr std::array<CounterInfo, k_counter_count> k_counter_table{{
    {Counter::instructions, k_instruction_readings, model::k_counted_run,
     [](const model::Invocation& invocation, const model::RoundSettings& settings,
        const std::filesystem::path& dir) -> std::expected<model::Invocation, std::string> {
       if (!settings.counter) {
         return std::unexpected("could not be counted: the run has no instruction counter");
       }
       return process::counted_invocation(invocation, *settings.counter, dir);
     },
     [](const model::Invocation&, const std::filesystem::path& dir) -> std::expected<Counts, std::string> {
       auto total = process::read_instruction_count(dir);
       if (!total) {
         return std::unexpected(total.error());
       }
       return Counts{.readings = {{model::Reading::instructions, *total}}};
     }},
    {Counter::allocations, k_allocation_readings, model::k_allocation_run,
     [](const model::Invocation& invocation, const model::RoundSettings&,
        const std::filesystem::path& dir) -> std::expected<model::Invocation, std::string> {
       auto library = process::write_allocation_counter(dir);
       if (!library) {
         return std::unexpected("could not be counted: " + library.error());
       }
       return process::allocation_counted_invocation(invocation, *library, dir);
     },
     [](const model::Invocation& invocation, const std::filesystem::path& dir) -> std::expected<Counts, std::string> {
       auto allocations = process::read_allocation_count(dir, invocation);
       if (!allocations) {
         return std::unexpected(allocations.error());
       }
       return Counts{.readings = {{model::Reading::allocations, allocations->calls},
                                  {model::Reading::allocated_bytes, allocations->bytes}}};
     }},
}};

// Row i is Counter i, with a hook word and readings (its wrapper and
// reader: the unit test's), and every counted reading is taken by exactly
// one row.
constexpr bool counter_rows_whole() {
  if (!util::rows_in_enum_order(k_counter_table, &CounterInfo::counter)) {
    return false;
  }
  for (const auto& row : k_counter_table) {
    if (row.failure_hook.empty() || row.readings.empty()) {
      return false;
    }
  }
  for (std::size_t r = 0; r < model::k_reading_count; ++r) {
    const auto reading = static_cast<model::Reading>(r);
    std::size_t takers = 0;
    for (const auto& row : k_counter_table) {
      takers += static_cast<std::size_t>(std::ranges::count(row.readings, reading));
    }
    if (takers != (model::counted(reading) ? 1U : 0U)) {
      return false;
    }
  }
  return true;
}
static_assert(counter_rows_whole(), "k_counter_table: row i must be Counter i, whole, and every counted Reading "
                                    "taken by exactly one row");

} // namespace

std::span<const CounterInfo> built_in_counters() { return k_counter_table; }

const CounterInfo& counter_info(Counter counter) { return k_counter_table[static_cast<std::size_t>(counter)]; }

std::vector<Counter> counters_for(const std::vector<model::Reading>& readings) {
  std::vector<Counter> counters;
  for (const auto& row : k_counter_table) {
    if (std::ranges::any_of(row.readings, [&](model::Reading r) { return std::ranges::count(readings, r) > 0; })) {
      counters.push_back(row.counter);
    }
  }
  return counters;
}

std::string_view failure_hook(Counter counter) { return counter_info(counter).failure_hook; }

std::expected<model::Invocation, std::string> counted_command(const model::Invocation& invocation, Counter counter,
                                                              const model::RoundSettings& settings) {
  const std::filesystem::path dir = settings.counts_dir;
  if (dir.empty() || !process::clear_counts(dir)) {
    return std::unexpected(fmt::format("could not be counted: cannot empty {}", dir.string()));
  }
  return counter_info(counter).wrap(invocation, settings, dir);
}

std::expected<Counts, std::string> read_counts(Counter counter, const model::Invocation& invocation,
                                               const std::string& counts_dir) {
  return counter_info(counter).read(invocation, counts_dir);
}

std::optional<Counts> CountMemo::reuse(const std::string& key) const {
  const auto taken = m_taken.find(key);
  if (taken == m_taken.end() || taken->second.size() < static_cast<std::size_t>(required(key)) ||
      !std::ranges::all_of(taken->second, [&](const Counts& c) { return c == taken->second.front(); })) {
    return std::nullopt;
  }
  return taken->second.front();
}

int CountMemo::required(const std::string& key) const {
  const auto it = m_required.find(key);
  return it == m_required.end() ? 1 : it->second;
}

void CountMemo::add(const std::string& key, const Counts& counts) {
  m_taken[key].push_back(counts);
  ++m_passes;
}

CountLedger::CountLedger(std::size_t cells) : m_counts(cells), m_last_seconds(cells, 0.0) {}

void CountLedger::add_like(std::size_t like) {
  m_counts.emplace_back();
  m_last_seconds.push_back(m_last_seconds[like]);
}

bool CountLedger::needs_counts(std::size_t cell, int min_rounds) const {
  const auto& counts = m_counts[cell];
  if (counts.size() < static_cast<std::size_t>(model::k_fixed_counts)) {
    return true;
  }
  const auto same = [&](const std::array<Counts, 2>& pair) { return pair == counts.front(); };
  if (std::all_of(counts.begin(), counts.end(), same)) {
    return false; // fixed: every counted round read the same on each arm
  }
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
