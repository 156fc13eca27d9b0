#include <doctest/doctest.h>

#include <refbench/util/rng.hpp>

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

using refbench::util::Rng;

TEST_CASE("util::Rng") {
  SUBCASE("xoshiro256** reference output") {
    // First outputs for seed 42 from a separate Python transcription of the
    // reference splitmix64 and xoshiro256** code (Blackman & Vigna, prng.di.unimi.it).
    Rng reference(42);
    CHECK(reference.next() == 0x15780b2e0c2ec716ULL);
    CHECK(reference.next() == 0x6104d9866d113a7eULL);
    CHECK(reference.next() == 0xae17533239e499a1ULL);
    Rng a(42);
    Rng b(42);
    for (int i = 0; i < 100; ++i) {
      CHECK(a.next() == b.next());
    }
    Rng c(43);
    CHECK(Rng(42).next() != c.next());
  }
  SUBCASE("below is uniform: chi-square over 10 buckets") {
    Rng rng(7);
    std::array<int, 10> counts{};
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
      ++counts[rng.below(10)];
    }
    double chi2 = 0;
    for (int count : counts) {
      chi2 += (count - n / 10.0) * (count - n / 10.0) / (n / 10.0);
    }
    CHECK(chi2 < 27.88); // chi-square 9 d.o.f., p = 0.001
  }
  SUBCASE("shuffle is a seeded permutation") {
    std::vector<int> items(50);
    std::iota(items.begin(), items.end(), 0);
    auto first = items;
    auto second = items;
    Rng(9).shuffle(std::span(first));
    Rng(9).shuffle(std::span(second));
    CHECK(first == second);
    CHECK(first != items);
    std::sort(first.begin(), first.end());
    CHECK(first == items);
  }
  SUBCASE("every position is equally likely") {
    Rng rng(11);
    std::array<std::array<int, 4>, 4> where{};
    for (int trial = 0; trial < 40000; ++trial) {
      std::array<int, 4> items{0, 1, 2, 3};
      rng.shuffle(std::span<int>(items));
      for (int pos = 0; pos < 4; ++pos) {
        ++where[items[pos]][pos];
      }
    }
    for (const auto& row : where) {
      for (int count : row) {
        CHECK(count == doctest::Approx(10000).epsilon(0.05));
      }
    }
  }
}
