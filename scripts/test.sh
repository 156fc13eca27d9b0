#!/usr/bin/env bash
# Builds refbench (warnings are errors) and runs every test: the doctest
# unit tests and the integration scenarios, through CTest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" -DREFBENCH_WERROR=ON "$@"
cd "$build"
ctest --output-on-failure
