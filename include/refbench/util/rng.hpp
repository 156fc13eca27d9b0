#pragma once
// The seeded random generator behind every shuffle and pad, specified here
// (xoshiro256** seeded by splitmix64) so that a seed gives the same schedule
// on every platform and standard library.

#include <cstdint>
#include <span>
#include <utility>

namespace refbench::util {

class Rng {
public:
  // Seeds the state from `seed` through splitmix64.
  explicit Rng(std::uint64_t seed);

  // The next 64 random bits.
  std::uint64_t next();

  // A uniform integer in [0, `bound`) without modulo bias; `bound` > 0.
  std::uint64_t below(std::uint64_t bound);

  // Fisher–Yates shuffle of `items` in place.
  template <typename T> void shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      std::swap(items[i - 1], items[below(i)]);
    }
  }

private:
  std::uint64_t m_state[4];
};

// A fresh seed from the operating system's entropy source.
std::uint64_t random_seed();

} // namespace refbench::util
