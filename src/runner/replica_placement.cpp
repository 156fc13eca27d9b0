#include <refbench/runner/replica_placement.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <numeric>
#include <span>

namespace refbench::runner {
namespace {

// The salt that keeps the placement stream apart from the round shuffles
// drawn from the same seed.
constexpr std::uint64_t k_placement_salt = 0x706c6163656d656eULL; // "placemen"

} // namespace

std::vector<Placement> place_replicas(int replicas, int rounds, std::uint64_t seed) {
  std::vector<Placement> placements(static_cast<std::size_t>(std::max(rounds, 0)) + 1);
  if (replicas <= 1) {
    return placements;
  }
  util::Rng rng(seed ^ k_placement_salt);
  const auto n = static_cast<std::size_t>(replicas);
  std::vector<int> baseline(n);
  std::vector<int> candidate(n);
  // rounds come in blocks of `replicas`: each block uses every replica of
  // each link once, in its own shuffled order, which keeps every prefix
  // balanced within one use; the control is the baseline shifted by a
  // block-wide offset in 1..replicas-1, so it is a permutation too
  for (std::size_t start = 1; start < placements.size(); start += n) {
    std::iota(baseline.begin(), baseline.end(), 0);
    std::iota(candidate.begin(), candidate.end(), 0);
    rng.shuffle(std::span(baseline));
    rng.shuffle(std::span(candidate));
    const int shift = 1 + static_cast<int>(rng.below(n - 1));
    for (std::size_t i = 0; i < n && start + i < placements.size(); ++i) {
      placements[start + i] = {baseline[i], candidate[i], (baseline[i] + shift) % replicas};
    }
  }
  return placements;
}

} // namespace refbench::runner
