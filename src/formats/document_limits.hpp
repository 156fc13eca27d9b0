#pragma once
// Bounds on the counts a results.json or journal may record, far above any
// real run, so that a corrupt value is refused before it sizes a loop or a
// table (results_json.cpp, run_header_json.cpp).

#include <cstdint>

namespace refbench::formats::limits {

inline constexpr std::int64_t k_max_count = 100000000;
inline constexpr std::int64_t k_max_replicas = 1000;
inline constexpr std::int64_t k_max_shards = 100000;

} // namespace refbench::formats::limits
