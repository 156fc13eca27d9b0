#pragma once
// The alternative interval of `--interval bootstrap` (docs/manual/statistics.md): a seeded
// bias-corrected and accelerated (BCa) bootstrap of the Hodges–Lehmann
// pseudo-median. Pure: the same seed and data give the same interval.

#include <refbench/stats/signed_rank.hpp>

#include <cstdint>
#include <span>

namespace refbench::stats {

inline constexpr int k_bootstrap_resamples = 10000;

// BCa interval at `confidence` from `resamples` resamples drawn with the
// generator seeded by `seed`. [NaN, NaN] for empty `d`; a single point when
// every resample agrees. Like the signed-rank interval it reaches its
// confidence only from 6 values on (below, a bootstrap is not trustworthy).
Interval bca_bootstrap_interval(std::span<const double> d, double confidence, std::uint64_t seed,
                                int resamples = k_bootstrap_resamples);

} // namespace refbench::stats
