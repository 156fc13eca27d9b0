#!/usr/bin/env bash
# The unit tests under AddressSanitizer + UndefinedBehaviorSanitizer: builds
# refbench_unit_tests (Debug, warnings are errors) into BUILD_DIR (the
# first argument) and runs them there. CTest runs this as the test
# `sanitizers` when scripts/test.sh configures the build (README: Tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:?usage: test-sanitizers.sh BUILD_DIR}"
BUILD_DIR="$build" BUILD_TYPE=Debug BUILD_TARGET=refbench_unit_tests \
  "$root/scripts/build.sh" -DREFBENCH_WERROR=ON -DREFBENCH_SANITIZE=ON -DREFBENCH_TEST_SANITIZERS=OFF
ctest --test-dir "$build" --output-on-failure -R '^unit$'
