#!/usr/bin/env bash
# Installs the dependencies, builds refbench (warnings are errors) and runs
# every test through CTest: unit tests, calibration suite, integration
# scenarios, one per CPU at a time; the scenarios that time things hold the
# `timing` lock (tests/integration/CMakeLists.txt), so they still run one by
# one and never beside the unit or calibration tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DREFBENCH_WERROR=ON "$@"
cd "$build"
ctest --output-on-failure -j"$(nproc)"
