#include <refbench/runner/counted_rounds.hpp>
#include <refbench/runner/record.hpp>

#include <algorithm>

namespace refbench::runner {

CountLedger::CountLedger(std::size_t cells) : m_counts(cells), m_last_seconds(cells, 0.0) {}

void CountLedger::add_like(std::size_t like) {
  m_counts.emplace_back();
  m_last_seconds.push_back(m_last_seconds[like]);
}

bool CountLedger::needs_counts(std::size_t cell, int min_rounds) const {
  const auto& counts = m_counts[cell];
  if (counts.size() < static_cast<std::size_t>(std::max(k_settled_counts, min_rounds))) {
    return true;
  }
  return std::any_of(counts.end() - k_settled_counts, counts.end(),
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
