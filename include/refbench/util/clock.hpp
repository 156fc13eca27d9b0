#pragma once
// The one monotonic clock every duration refbench measures is read from.

namespace refbench::util {

// Seconds since some fixed point in the past (CLOCK_MONOTONIC): never goes
// back, not moved by changes to the wall-clock time.
double monotonic_seconds();

// The resolution of monotonic_seconds() in seconds, as the kernel reports it.
double monotonic_resolution_seconds();

} // namespace refbench::util
