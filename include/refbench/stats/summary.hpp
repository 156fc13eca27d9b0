#pragma once
// Simple order statistics on samples; pure functions, no I/O.

#include <span>

namespace refbench::stats {

// The median of `values` (mean of the two middle values for an even count);
// NaN for an empty span.
double median(std::span<const double> values);

} // namespace refbench::stats
