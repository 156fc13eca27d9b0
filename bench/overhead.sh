#!/usr/bin/env bash
# Per-invocation measurement overhead, all measured in this one run on this
# machine: the median wall refbench reports for /bin/true, next to the
# median of `hyperfine -N` and of a bare posix_spawn + wait4 loop, as ratios.
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

# Interleave the three tools in blocks so machine drift hits all of them.
: >"$work/bare" ; : >"$work/refbench" ; : >"$work/hyperfine"
blocks=5
per=$(( (runs + blocks - 1) / blocks ))
for _ in $(seq "$blocks"); do
  "$work/spawn_loop" "$per" "$true_bin" >>"$work/bare"
  "$refbench" compare -q --no-control --warmup 3 --max-rounds "$per" --budget 1h --seed 1 \
    --out "$work/rb" "$true_bin" "$true_bin" >/dev/null
  /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    for s in c["samples"]:
        if not s["warmup"]:
            print(s["wall"])' "$work/rb/results.json" >>"$work/refbench"
  hyperfine -N --warmup 3 --runs "$per" --export-json "$work/hf.json" "$true_bin" >/dev/null 2>&1
  /usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["results"][0]["times"]:
    print(t)' "$work/hf.json" >>"$work/hyperfine"
done

bare=$(median <"$work/bare")
rb=$(median <"$work/refbench")
hf=$(median <"$work/hyperfine")
awk -v b="$bare" -v r="$rb" -v h="$hf" -v n="$(wc -l <"$work/bare")" 'BEGIN {
  printf "median wall of %s, %d invocations each:\n", "/bin/true", n
  printf "  bare posix_spawn+wait4 loop  %8.1f us   1.000x\n", b * 1e6
  printf "  refbench compare             %8.1f us   %.3fx of bare\n", r * 1e6, r / b
  printf "  hyperfine -N                 %8.1f us   %.3fx of bare\n", h * 1e6, h / b
  printf "refbench / hyperfine: %.3fx (target <= 1.0), refbench / bare: %.3fx (target <= 1.10)\n", r / h, r / b
}'
