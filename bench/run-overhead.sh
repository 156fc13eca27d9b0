#!/usr/bin/env bash
# `refbench run` on the sample project with a fixed budget (default 60 s):
# how many rounds it achieved, and the share of the measurement time spent
# outside the benchmarked processes (scheduling, journal, launcher round
# trips, precision checks), from results.json: 1 − Σ wall / elapsed.
# Usage: bench/run-overhead.sh [BUDGET]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
budget="${1:-60s}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root/scripts/make-sample-repo.sh" "$work/sample" docs >/dev/null
# max-rounds high and precision unreachable, so the budget decides
"$build/src/refbench" run -q --repo "$work/sample" --baseline v1.0.0 --candidate main --budget "$budget" \
  --max-rounds 100000 --precision 0.000001 --fail-on never --out "$work/out" >/dev/null
/usr/bin/python3 - "$work/out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
walls = sum(s["wall"] for c in r["cells"] for s in c["samples"])
invocations = sum(len(c["samples"]) for c in r["cells"])
elapsed = r["elapsed_seconds"]
rounds = max(c["rounds"] for c in r["cells"])
print(f"budget {r['settings']['budget_seconds']:.0f} s: {rounds} rounds, {invocations} invocations "
      f"in {elapsed:.1f} s ({len(r['cells'])} cells incl. the A/A control)")
print(f"time inside benchmarked processes {walls:.2f} s; outside {elapsed - walls:.3f} s "
      f"= {100 * (1 - walls / elapsed):.2f} % (target < 2 %)")
print(f"per invocation outside: {1e6 * (elapsed - walls) / invocations:.0f} µs")
PY
