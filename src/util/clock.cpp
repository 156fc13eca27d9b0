#include <refbench/util/clock.hpp>

#include <ctime>

namespace refbench::util {
namespace {

double seconds_of(const timespec& ts) {
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

} // namespace

double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return seconds_of(ts);
}

double monotonic_resolution_seconds() {
  static const double resolution = [] {
    timespec ts{};
    clock_getres(CLOCK_MONOTONIC, &ts);
    return seconds_of(ts);
  }();
  return resolution;
}

} // namespace refbench::util
