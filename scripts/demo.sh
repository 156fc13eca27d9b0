#!/usr/bin/env bash
# From a fresh machine to a real comparison: installs the dependencies,
# builds refbench and compares the bundled example program doing 20 and
# 26 million rounds of work (1.3x), with the A/A control beside it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
work="$build/examples/work"
set +e
"$build/src/refbench" compare --out "$build/demo-out" --max-rounds 30 "$work 20" "$work 26"
rc=$?
set -e
if [ "$rc" -eq 1 ]; then
  echo "refbench exited with 1: the candidate regressed, which is what this example is built to show."
  exit 0
fi
exit "$rc"
