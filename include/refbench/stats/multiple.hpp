#pragma once
// Multiple comparisons across the gated cells of a run (docs/manual/statistics.md).

#include <span>
#include <vector>

namespace refbench::stats {

// Benjamini–Hochberg adjusted p-values of `p`, in the input order:
// p_(i) · m / i made monotone from the largest down and capped at 1.
std::vector<double> benjamini_hochberg(std::span<const double> p);

} // namespace refbench::stats
