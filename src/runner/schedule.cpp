#include <refbench/runner/schedule.hpp>

#include <algorithm>
#include <numeric>
#include <span>

namespace refbench::runner {

std::vector<Slot> shuffled_round(const std::vector<std::size_t>& active, util::Rng& rng) {
  std::vector<Slot> slots;
  slots.reserve(active.size() * 2);
  for (std::size_t cell : active) {
    slots.push_back({cell, model::Arm::baseline});
    slots.push_back({cell, model::Arm::candidate});
  }
  rng.shuffle(std::span(slots));
  return slots;
}

std::string round_pad(util::Rng& rng) {
  std::string pad(rng.below(4096), 'x');
  for (char& c : pad) {
    c = static_cast<char>('a' + rng.below(26));
  }
  return pad;
}

std::vector<std::size_t> cheapest_first(std::vector<std::size_t> cells, const std::vector<double>& cost) {
  std::stable_sort(cells.begin(), cells.end(), [&](std::size_t a, std::size_t b) { return cost[a] < cost[b]; });
  return cells;
}

std::vector<std::size_t> cells_over_budget(const std::vector<std::size_t>& active, const std::vector<double>& cost,
                                           double remaining_seconds) {
  std::vector<std::size_t> by_cost = active;
  std::sort(by_cost.begin(), by_cost.end(),
            [&](std::size_t a, std::size_t b) { return cost[a] != cost[b] ? cost[a] > cost[b] : a > b; });
  double total = std::accumulate(active.begin(), active.end(), 0.0,
                                 [&](double sum, std::size_t cell) { return sum + cost[cell]; });
  std::vector<std::size_t> dropped;
  for (std::size_t cell : by_cost) {
    if (total <= remaining_seconds) {
      break;
    }
    total -= cost[cell];
    dropped.push_back(cell);
  }
  return dropped;
}

} // namespace refbench::runner
