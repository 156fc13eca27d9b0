#!/usr/bin/env bash
# From a fresh machine to a real verdict: installs the dependencies, builds
# refbench, makes the sample repository (release v1.0.0 as the baseline,
# `main` doing 30 % more work) and runs `refbench run` on it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
sample="$(mktemp -d)/sample"
trap 'rm -rf "$(dirname "$sample")"' EXIT
"$root/scripts/make-sample-repo.sh" "$sample" slower
set +e
"$build/src/refbench" run --repo "$sample" --baseline latest-release --candidate main \
  --budget 60s --out "$build/demo-out"
rc=$?
set -e
if [ "$rc" -eq 1 ]; then
  echo "refbench exited with 1: the candidate regressed, which is what this sample is built to show."
  exit 0
fi
exit "$rc"
