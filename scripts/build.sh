#!/usr/bin/env bash
# Configures and builds refbench into $BUILD_DIR (default build/).
# Extra arguments go to cmake's configure step, e.g. -DREFBENCH_SANITIZE=ON.
# BUILD_TARGET=name builds that one target (and what it needs) instead of all.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
