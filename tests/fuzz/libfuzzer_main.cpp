// libFuzzer entry of the target REFBENCH_FUZZ_TARGET (one binary per
// target): any exception but UsageError/RefusedError aborts, which libFuzzer
// reports as a crash with the input that caused it.

#include "targets.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const refbench::fuzz::Target* target = refbench::fuzz::find_target(REFBENCH_FUZZ_TARGET);
  std::string what;
  if (refbench::fuzz::run(*target, {reinterpret_cast<const char*>(data), size}, what) ==
      refbench::fuzz::Outcome::internal_error) {
    std::fprintf(stderr, "refbench fuzz %s: internal error: %s\n", target->name, what.c_str());
    std::abort();
  }
  return 0;
}

#if !defined(__clang__)
// GCC's -fsanitize-coverage=trace-cmp traces float and double comparisons
// too, through hooks libFuzzer's runtime does not define (its value profile
// follows integer comparisons only): there is nothing to record.
extern "C" void __sanitizer_cov_trace_cmpf(float, float) {}
extern "C" void __sanitizer_cov_trace_cmpd(double, double) {}
#endif
