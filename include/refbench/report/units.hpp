#pragma once
// Human-readable values for reports (docs/manual/output-files.md: ns/µs/ms/s; KiB/MiB/GiB).

#include <string>

namespace refbench::report {

// `seconds` with 4 significant digits in ns, µs, ms or s, e.g. "471.8 ms".
std::string format_seconds(double seconds);

// `bytes` in B, KiB, MiB or GiB with 4 significant digits, e.g. "12.25 MiB".
std::string format_bytes(double bytes);

// A duration for people: `seconds` as format_seconds below a minute, then
// "2 min 05 s", "1 h 02 min".
std::string format_duration(double seconds);

// A ratio as "1.203x".
std::string format_ratio(double ratio);

} // namespace refbench::report
