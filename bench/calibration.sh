#!/usr/bin/env bash
# The calibration suite with 10 000 simulated runs per scenario instead of
# CI's 1 000 (tighter estimates of coverage, false positives and FDR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
REFBENCH_CALIBRATION_RUNS="${1:-10000}" "$build/tests/calibration/refbench_calibration"
