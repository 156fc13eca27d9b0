#!/usr/bin/env bash
# Installs the dependencies, builds refbench (warnings are errors) and runs
# every test through CTest: unit tests, calibration suite, integration
# scenarios, and the unit tests again under ASan + UBSan (the test
# `sanitizers`, built in $BUILD_DIR-asan; -DREFBENCH_TEST_SANITIZERS=OFF
# leaves it out). Two at a time by default (REFBENCH_TEST_JOBS=N runs N): the
# scenarios that time things run alone (RUN_SERIAL,
# tests/integration/CMakeLists.txt), so a test that only checks messages or
# computes (the unit tests, the calibration suite, the sanitizer build)
# never takes CPU time from one that times things; those whose assertions
# hold on a loaded machine run beside each other.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DREFBENCH_WERROR=ON -DREFBENCH_TEST_SANITIZERS=ON "$@"
cd "$build"
ctest --output-on-failure -j"${REFBENCH_TEST_JOBS:-2}"
