#!/usr/bin/env bash
# Counts per benchmark against the harness's own times (docs/manual/suites.md,
# docs/manual/suites.md#counts-per-benchmark), in one run of this script:
#   (a) the Google Benchmark example (examples/suites/google-benchmark) with
#       BM_hash's loop made 2 % longer (20000 -> 20400 hash rounds): the rounds
#       and seconds refbench needs to decide it gated on `instructions`
#       against gated on `cpu_time` (--max-rounds 40, precision stopping on),
#       quiet and beside `yes` on each CPU (started and killed by PID here);
#   (b) what counting costs a suite of 50 benchmarks (generated: 50 loops of
#       100..5000 hash rounds): an A/A run of 10 rounds counted
#       (metrics cpu_time, instructions, allocations) against the same run
#       timed only, seconds of each, and the callgrind invocations, counted by
#       a `valgrind` shim first on the PATH.
# Usage: bench/suite-counts.sh   (needs a built refbench, valgrind and libbenchmark-dev)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
[ -x "$refbench" ] || { echo "bench/suite-counts.sh: build refbench first: scripts/build.sh" >&2; exit 2; }
real_valgrind="$(type -P valgrind)" ||
  { echo "bench/suite-counts.sh: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 2; }
[ -f /usr/include/benchmark/benchmark.h ] ||
  { echo "bench/suite-counts.sh: libbenchmark-dev is not installed (scripts/install-deps.sh)" >&2; exit 2; }
work="$(mktemp -d)"
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  hogs=()
}
trap 'stop_hogs; rm -rf "$work"' EXIT

mkdir -p "$work/shim"
cat >"$work/shim/valgrind" <<SH
#!/bin/sh
case " \$* " in *" --tool=callgrind "*) echo callgrind >>"\${SUITE_COUNTS_LOG:-/dev/null}" ;; esac
exec "$real_valgrind" "\$@"
SH
chmod +x "$work/shim/valgrind"

git_in() {
  local dir="$1"
  shift
  GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid \
    GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$dir" "$@"
}

# (a) the example, BM_hash +2 %
repo="$work/example"
mkdir -p "$repo"
cp "$root/examples/suites/google-benchmark/"{Makefile,bench.cpp} "$repo/"
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m baseline
sed -i 's/hash_rounds(1, 20000)/hash_rounds(1, 20400)/' "$repo/bench.cpp"
git_in "$repo" commit -q -am "BM_hash +2 %"
config() { # GATE: the example's cell, counted, gated on GATE
  cat <<TOML
[build]
command = "make"
[run]
budget = "10m"
[[cell]]
name = "micro"
suite = "google-benchmark"
command = ["{arm}/bench", "--benchmark_min_time=0.05", "--benchmark_format=json"]
metrics = ["cpu_time", "instructions"]
gate = ["$1"]
threshold = { cpu_time = 1.01 }
TOML
}
config instructions >"$work/instructions.toml"
config cpu_time >"$work/cpu_time.toml"

decide() { # LABEL GATE
  "$refbench" run -q --repo "$repo" --config "$work/$2.toml" --baseline main~1 --candidate main --seed 21 \
    --max-rounds 40 --fail-on never --explain off --out "$work/a-$1-$2" >/dev/null 2>"$work/a-$1-$2.err" ||
    { echo "bench/suite-counts.sh: $1 $2 failed: $(tail -n 5 "$work/a-$1-$2.err")" >&2; exit 1; }
}
decide quiet instructions
decide quiet cpu_time
yes >/dev/null &
hogs+=($!)
yes >/dev/null &
hogs+=($!)
decide hog instructions
decide hog cpu_time
stop_hogs

echo "(a) the Google Benchmark example, BM_hash's loop +2 % (threshold 1.01 on both):"
/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
print(f"{'machine':8} {'gated on':13} {'BM_hash':>8} {'95% CI':>17} {'verdict':13} {'rounds':>6} {'seconds':>8}")
for label in ("quiet", "hog"):
    for gate in ("instructions", "cpu_time"):
        r = json.load(open(f"{work}/a-{label}-{gate}/results.json"))
        a = next(a for a in r["analysis"] if a["cell"] == "micro/BM_hash" and a["metric"] == gate)
        ci = f"[{a['ci_low']:.3f}, {a['ci_high']:.3f}]" if a.get("ci_low") is not None else "-"
        print(f"{label:8} {gate:13} {a['ratio']:8.4f} {ci:>17} {a['verdict']:13} {a['n']:6d} {r['total_seconds']:8.1f}")
PY

# (b) 50 benchmarks: counted against timed
suite="$work/fifty"
mkdir -p "$suite"
{
  echo '#include <benchmark/benchmark.h>'
  echo '#include <cstdint>'
  echo 'static std::uint64_t hash_rounds(std::uint64_t x, long n) {'
  echo '  for (long i = 0; i < n; ++i) { x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; benchmark::DoNotOptimize(x); }'
  echo '  return x;'
  echo '}'
  for i in $(seq 1 50); do
    echo "static void BM_$i(benchmark::State& s) { for (auto _ : s) benchmark::DoNotOptimize(hash_rounds($i, $((i * 100)))); }"
    echo "BENCHMARK(BM_$i);"
  done
  echo 'BENCHMARK_MAIN();'
} >"$suite/bench.cpp"
printf 'bench: bench.cpp\n\tg++ -O2 -o $@ bench.cpp -lbenchmark -lpthread\n' >"$suite/Makefile"
git_in "$suite" init -q -b main
git_in "$suite" add -A
git_in "$suite" commit -q -m fifty
fifty() { # NAME METRICS
  cat >"$work/$1.toml" <<TOML
[build]
command = "make"
[run]
budget = "20m"
[[cell]]
name = "fifty"
suite = "google-benchmark"
command = ["{arm}/bench", "--benchmark_min_time=0.05", "--benchmark_format=json"]
metrics = $2
TOML
  : >"$work/$1.callgrind"
  SUITE_COUNTS_LOG="$work/$1.callgrind" PATH="$work/shim:$PATH" \
    "$refbench" run -q --repo "$suite" --config "$work/$1.toml" --baseline main --candidate main --allow-same-commit \
    --seed 22 --min-rounds 10 --max-rounds 10 --fail-on never --explain off --out "$work/b-$1" >/dev/null \
    2>"$work/b-$1.err" || { echo "bench/suite-counts.sh: $1 failed: $(tail -n 5 "$work/b-$1.err")" >&2; exit 1; }
}
fifty timed '["cpu_time"]'
fifty counted '["cpu_time", "instructions", "allocations"]'
echo
echo "(b) a suite of 50 benchmarks, A/A, 10 rounds, the A/A control included (4 suite invocations a round):"
/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def figures(name):
    r = json.load(open(f"{work}/b-{name}/results.json"))
    calls = sum(1 for _ in open(f"{work}/{name}.callgrind"))
    rows = [a for a in r["analysis"] if a["metric"] == "instructions" and not a["control"]]
    off = [a for a in rows if abs(a["ratio"] - 1) > 0.001]
    return r["total_seconds"], calls, len(rows), len(off)
t_seconds, t_calls, _, _ = figures("timed")
c_seconds, c_calls, rows, off = figures("counted")
print(f"timed only: {t_seconds:.1f} s; counted: {c_seconds:.1f} s ({c_seconds / t_seconds:.2f}x), "
      f"{c_calls} callgrind invocations ({c_calls / 10:.1f} a round), {rows} rows counted, {off} off 1.000 by more than 0.001")
PY
