#!/usr/bin/env bash
# What counts buy (docs/manual/counters.md): a +2 % change judged on wall, on
# instructions and on allocations — the rounds and seconds each took to its
# verdict, its ratio and interval, and the A/A control's interval (each
# metric's spread) — on a quiet machine and again beside a CPU hog on every
# CPU, all in one run. The programs: the bundled example `examples/work`
# (work 50 against work 51: 2 % more xorshift rounds) for wall and
# instructions, tests/fixtures/allocate.c (50 000 against 51 000 mallocs)
# for allocations. Also the cost of one counted invocation against one
# plain run of the same program (valgrind's start-up and slowdown, the
# allocation counter's), from refbench's own journals.
# Usage: bench/counters.sh   (needs a built refbench and valgrind)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
sample="$build/examples/work"
[ -x "$refbench" ] && [ -x "$sample" ] || { echo "bench/counters.sh: build refbench first: scripts/build.sh" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench/counters.sh: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 2; }
work="$(mktemp -d)"
hogs=()
stop_hogs() {
  local pid
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
  hogs=()
}
trap 'stop_hogs; rm -rf "$work"' EXIT
cc -O1 -fno-builtin -o "$work/allocate" "$root/tests/fixtures/allocate.c"

# measure NAME METRIC BASELINE CANDIDATE [FLAG…]: a compare gated on METRIC, adaptive rounds
measure() {
  local metrics="wall"
  [ "$2" = wall ] || metrics="wall,$2"
  "$refbench" compare -q --seed 5 --min-rounds 10 --max-rounds 60 --budget 10m --fail-on never \
    --metric "$metrics" --gate "$2" --out "$work/$1" "${@:5}" "$3" "$4" >/dev/null 2>"$work/$1.err" ||
    { echo "bench/counters.sh: $1 failed: $(cat "$work/$1.err")" >&2; exit 1; }
}

run_all() { # CONDITION
  measure "$1-wall" wall "$sample 50" "$sample 51"
  # wall asked to see 1 %, as the counts are: --threshold 1.01
  measure "$1-wall-1.01" wall "$sample 50" "$sample 51" --threshold 1.01
  measure "$1-instructions" instructions "$sample 50" "$sample 51"
  measure "$1-allocations" allocations "$work/allocate 50000 64" "$work/allocate 51000 64"
}

run_all quiet
for _ in $(seq "$(nproc)"); do
  yes >/dev/null &
  hogs+=("$!")
done
run_all hog
stop_hogs

/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def load(name):
    return json.load(open(f"{work}/{name}/results.json"))
def row(r, cell, metric):
    return next(a for a in r["analysis"] if a["cell"] == cell and a["metric"] == metric)
print("A +2 % change (candidate/baseline), each judged on its own metric, adaptive rounds 10-60;")
print("wall at its 1.15 threshold and at 1.01 (wall-1.01), the counts at their 1.01:\n")
print(f"{'metric':<13} {'machine':<6} {'verdict':<13} {'rounds':>6} {'seconds':>8}  {'ratio [95 % CI]':<26} {'A/A interval':<18}")
base = {}
for condition in ("quiet", "hog"):
    for name in ("wall", "wall-1.01", "instructions", "allocations"):
        metric = name.split("-")[0]
        r = load(f"{condition}-{name}")
        a = row(r, "compare", metric)
        c = row(r, "compare-control", metric)
        rounds = max(cell["rounds"] for cell in r["cells"])
        seconds = r["elapsed_seconds"]
        base.setdefault(condition, (rounds, seconds))
        print(f"{name:<13} {condition:<6} {a['verdict']:<13} {rounds:>6} {seconds:>8.1f}  "
              f"{a['ratio']:.4f}x [{a['ci_low']:.4f}, {a['ci_high']:.4f}]  [{c['ci_low']:.4f}, {c['ci_high']:.4f}]")
print("\nAgainst wall on the same machine (rounds, seconds to the verdict):")
for condition in ("quiet", "hog"):
    wall_rounds, wall_seconds = base[condition]
    for metric in ("instructions", "allocations"):
        r = load(f"{condition}-{metric}")
        rounds = max(cell["rounds"] for cell in r["cells"])
        print(f"  {metric:<13} {condition:<6} {rounds / wall_rounds:.2f}x the rounds, {r['elapsed_seconds'] / wall_seconds:.2f}x the seconds")
print("\nSpread of each metric, the A/A control's interval width as a ratio (hog / quiet):")
for metric in ("wall", "instructions", "allocations"):
    widths = {}
    for condition in ("quiet", "hog"):
        c = row(load(f"{condition}-{metric}"), "compare-control", metric)
        widths[condition] = c["ci_high"] / c["ci_low"]
    print(f"  {metric:<13} quiet {widths['quiet']:.4f}x  hog {widths['hog']:.4f}x")
PY

# the price of one count: a counted invocation of `work 50` against a plain one (median of 5)
/usr/bin/python3 - "$sample" "$work" "$build/src/refbench-alloc.so" <<'PY'
import statistics, subprocess, sys, time, os
sample, work, counter = sys.argv[1], sys.argv[2], sys.argv[3]
def timed(argv, env=None):
    walls = []
    for _ in range(5):
        start = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        walls.append(time.monotonic() - start)
    return statistics.median(walls)
plain = timed([sample, "50"])
counted = timed(["valgrind", "-q", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
                 f"--cachegrind-out-file={work}/cg.%p", sample, "50"])
start_up = timed(["valgrind", "-q", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={work}/cg.%p", "/bin/true"])
print(f"\nOne instruction count of `work 50`: {counted / plain:.1f}x a plain run ({counted:.2f} s against {plain:.3f} s; "
      f"valgrind's start-up alone {start_up:.2f} s)")
os.makedirs(f"{work}/alloc", exist_ok=True)
allocate = [f"{work}/allocate", "1000000", "64"]
plain = timed(allocate)
preloaded = timed(allocate, dict(os.environ, LD_PRELOAD=counter, REFBENCH_ALLOC_DIR=f"{work}/alloc"))
print(f"One allocation count of 1e6 malloc/free pairs: {preloaded / plain:.2f}x a plain run "
      f"({preloaded * 1e3:.1f} ms against {plain * 1e3:.1f} ms)")
PY
