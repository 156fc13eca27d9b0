#!/usr/bin/env bash
# The unit tests under AddressSanitizer + UndefinedBehaviorSanitizer: builds
# refbench_unit_tests (Debug, warnings are errors) into BUILD_DIR (the
# first argument) and runs them there. CTest runs this as the test
# `sanitizers` when scripts/test.sh configures the build (docs/manual/building.md#tests-and-benchmarks).
# Two test cases are left to the plain unit run:
# - the oracle of "… equal the listing at n = 2000 …" sorts six million
#   numbers per input shape: a quarter of this run's time at -O0 under ASan
#   (26 of 109 s). The same functions run here against smaller listings,
#   beyond the listing threshold included.
# - "an A/A run of a 500-benchmark suite …" analyses 40 seeded runs of 500
#   rows each: 227 s at -O0 under ASan, against 12 s in the plain run, and
#   the code it drives (a suite's rows, their analysis and BH family) runs
#   here in the smaller cases of the same files.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:?usage: test-sanitizers.sh BUILD_DIR}"
BUILD_DIR="$build" BUILD_TYPE=Debug BUILD_TARGET=refbench_unit_tests \
  "$root/scripts/build.sh" -DREFBENCH_WERROR=ON -DREFBENCH_SANITIZE=ON -DREFBENCH_TEST_SANITIZERS=OFF
cd "$build/tests/unit"
./refbench_unit_tests --test-case-exclude='*equal the listing at n = 2000*,*an A/A run of a 500-benchmark suite*'
