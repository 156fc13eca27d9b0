#pragma once
// Pure scheduling decisions: the shuffled order of a round, the per-round
// pad, which cells fit the remaining budget (docs/manual/measurement.md).

#include <refbench/model/record.hpp>
#include <refbench/util/rng.hpp>

#include <string>
#include <vector>

namespace refbench::runner {

// One entry of a round's invocation list.
struct Slot {
  std::size_t cell = 0;
  model::Arm arm = model::Arm::baseline;
  bool operator==(const Slot&) const = default;
};

// Both arms of every cell in `active`, shuffled by `rng`.
std::vector<Slot> shuffled_round(const std::vector<std::size_t>& active, util::Rng& rng);

// The REFBENCH_PAD value of a round: 0–4095 random letters from `rng`.
std::string round_pad(util::Rng& rng);

// Of `active` cells with estimated round costs `cost` (indexed by cell),
// the ones to drop so the rest fit in `remaining_seconds`: the most
// expensive first, ties broken by the higher index. Returned in drop order.
std::vector<std::size_t> cells_over_budget(const std::vector<std::size_t>& active, const std::vector<double>& cost,
                                           double remaining_seconds);

// `cells` indices sorted cheapest-first by `cost` (stable for equal costs).
std::vector<std::size_t> cheapest_first(std::vector<std::size_t> cells, const std::vector<double>& cost);

} // namespace refbench::runner
