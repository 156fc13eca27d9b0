#pragma once
// Placement (docs/manual/measurement.md, "Replicas"): where a file's pages land
// in memory biases its speed, so each arm runs from byte-identical replicas
// and every round draws which replica each {arm} link points to. Pure: the
// schedule only; the links are moved by whoever owns them.

#include <cstdint>
#include <vector>

namespace refbench::runner {

// The replica (0-based) behind each link in one round: the baseline's
// {arm}, the candidate's, and the A/A control's second baseline arm.
struct Placement {
  int baseline = 0;
  int candidate = 0;
  int control = 0; // never equal to `baseline` when there are 2 or more replicas
};

// The placements of rounds 0 (warm-up) to `rounds` for `replicas` replicas
// per arm, drawn from `seed`: over rounds 1..k, each replica of each link is
// used equally often ± 1, for every k; the control's replica differs from
// the baseline's in every round. `replicas` ≥ 1 (1: every placement is 0).
std::vector<Placement> place_replicas(int replicas, int rounds, std::uint64_t seed);

} // namespace refbench::runner
