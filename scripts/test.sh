#!/usr/bin/env bash
# Installs the dependencies, builds refbench (warnings are errors) and runs
# every test through CTest: unit tests, calibration suite, integration
# scenarios. One at a time by default: on a 2-CPU machine a scenario that
# only checks messages still takes CPU time from one that times things.
# REFBENCH_TEST_JOBS=N runs N at once; the scenarios that time things hold
# the `timing` lock (tests/integration/CMakeLists.txt), so they never run
# beside each other or the unit and calibration tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DREFBENCH_WERROR=ON "$@"
cd "$build"
ctest --output-on-failure -j"${REFBENCH_TEST_JOBS:-1}"
