// Catch2 (v2, Debian's catch2) benchmarks: the candidate ref
// (candidate.patch) makes "parse" 1.4x slower.
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>

#include <cstdint>

namespace {

std::uint64_t hash_rounds(std::uint64_t seed, long n) {
  std::uint64_t x = seed;
  for (long i = 0; i < n; ++i) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

} // namespace

TEST_CASE("hashing") {
  BENCHMARK("parse") { return hash_rounds(1, 20000); };
  BENCHMARK("encode") { return hash_rounds(2, 15000); };
  BENCHMARK("checksum") { return hash_rounds(3, 8000); };
}
