#!/usr/bin/env bash
# Per-invocation measurement overhead, all measured in this one run on this
# machine: the median wall refbench reports for /bin/true, spawned in its
# box (docs/manual/security.md; where the machine makes one) and unboxed
# (--sandbox off), next to the median of `hyperfine -N` and of a bare
# posix_spawn + wait4 loop, as ratios; what entering the box costs a whole
# `compare` once; and, where the build has bench/refbench_spawn_ab, the
# launcher's spawn against posix_spawn in one process, interleaved.
# Usage: bench/overhead.sh [RUNS]   (default 300; needs a built refbench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
runs="${1:-300}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -x "$refbench" ] || { echo "build refbench first: scripts/build.sh" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "hyperfine missing: scripts/install-deps.sh" >&2; exit 1; }
cc -O2 -o "$work/spawn_loop" "$root/bench/spawn_loop.c"
true_bin="$(type -P true)"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# the measured (not warm-up) walls of results file $1, one a line
walls() {
  /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    for s in c["samples"]:
        if not s["warmup"]:
            print(s["wall"])' "$1"
}
json_mode() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["environment"]["sandbox"]["mode"])' "$1"; }

# Interleave the tools in blocks of about 50 so machine drift (here ±10 %
# from one minute to the next) hits all of them alike.
: >"$work/bare" ; : >"$work/refbench" ; : >"$work/unboxed" ; : >"$work/hyperfine" ; : >"$work/whole"
blocks=$(( runs / 50 > 5 ? runs / 50 : 5 ))
per=$(( (runs + blocks - 1) / blocks ))
for _ in $(seq "$blocks"); do
  "$work/spawn_loop" "$per" "$true_bin" >>"$work/bare"
  for box in auto off; do
    "$refbench" compare -q --no-control --warmup 3 --max-rounds "$per" --budget 1h --seed 1 --sandbox "$box" \
      --out "$work/rb-$box" "$true_bin" "$true_bin" >/dev/null
    # a whole compare of one round, which enters the box once (or not)
    start=$(date +%s.%N)
    "$refbench" compare -q --no-control --warmup 0 --max-rounds 1 --min-rounds 1 --seed 1 --sandbox "$box" \
      --out "$work/one-$box" "$true_bin" "$true_bin" >/dev/null
    awk -v box="$box" -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print box, b - a}' >>"$work/whole"
  done
  [ "$(json_mode "$work/rb-auto/results.json")" != none ] || echo "no box on this machine: both rows are unboxed" >&2
  walls "$work/rb-auto/results.json" >>"$work/refbench"
  walls "$work/rb-off/results.json" >>"$work/unboxed"
  hyperfine -N --warmup 3 --runs "$per" --export-json "$work/hf.json" "$true_bin" >/dev/null 2>&1
  /usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["results"][0]["times"]:
    print(t)' "$work/hf.json" >>"$work/hyperfine"
done

bare=$(median <"$work/bare")
rb=$(median <"$work/refbench")
unboxed=$(median <"$work/unboxed")
hf=$(median <"$work/hyperfine")
whole_box=$(awk '$1 == "auto" {print $2}' "$work/whole" | median)
whole_off=$(awk '$1 == "off" {print $2}' "$work/whole" | median)
awk -v b="$bare" -v r="$rb" -v u="$unboxed" -v h="$hf" -v n="$(wc -l <"$work/bare")" -v mode="$(json_mode "$work/rb-auto/results.json")" \
  -v wb="$whole_box" -v wo="$whole_off" 'BEGIN {
  printf "median wall of %s, %d invocations each:\n", "/bin/true", n
  printf "  bare posix_spawn+wait4 loop       %8.1f us   1.000x\n", b * 1e6
  printf "  refbench compare (box: %-10s) %8.1f us   %.3fx of bare\n", mode, r * 1e6, r / b
  printf "  refbench compare --sandbox off    %8.1f us   %.3fx of bare\n", u * 1e6, u / b
  printf "  hyperfine -N                      %8.1f us   %.3fx of bare\n", h * 1e6, h / b
  printf "refbench / hyperfine: %.3fx (target <= 1.0), refbench / bare: %.3fx (target <= 1.10), boxed / unboxed: %.3fx\n", r / h, r / b, r / u
  printf "a whole one-round compare: %.1f ms boxed, %.1f ms unboxed (entering the box: %+.1f ms)\n", wb * 1e3, wo * 1e3, (wb - wo) * 1e3
}'
# the spawn alone: no second process, no box, the same process for both
if [ -x "$build/bench/refbench_spawn_ab" ]; then
  "$build/bench/refbench_spawn_ab" "$runs" "$true_bin" | awk '{
    printf "the launcher'"'"'s spawn in one process, interleaved with posix_spawn: %.1f us against %.1f us, %.3fx\n", $1 * 1e6, $2 * 1e6, $1 / $2 }'
fi
