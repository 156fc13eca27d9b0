#include <doctest/doctest.h>

#include <refbench/util/clock.hpp>

#include <chrono>
#include <ctime>
#include <thread>

using namespace refbench::util;

TEST_CASE("util::monotonic_seconds") {
  SUBCASE("never goes back") {
    double last = monotonic_seconds();
    for (int i = 0; i < 1000; ++i) {
      const double now = monotonic_seconds();
      CHECK(now >= last);
      last = now;
    }
  }
  SUBCASE("counts the seconds of CLOCK_MONOTONIC") {
    timespec before{};
    clock_gettime(CLOCK_MONOTONIC, &before);
    const double start = monotonic_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double elapsed = monotonic_seconds() - start;
    timespec after{};
    clock_gettime(CLOCK_MONOTONIC, &after);
    const double outer =
        static_cast<double>(after.tv_sec - before.tv_sec) + static_cast<double>(after.tv_nsec - before.tv_nsec) * 1e-9;
    CHECK(elapsed >= 0.020);
    CHECK(elapsed <= outer);
  }
}

TEST_CASE("util::monotonic_resolution_seconds") {
  const double resolution = monotonic_resolution_seconds();
  CHECK(resolution > 0);
  CHECK(resolution <= 1e-3); // Linux's high-resolution timers give 1 ns
}
