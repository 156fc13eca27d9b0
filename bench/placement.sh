#!/usr/bin/env bash
# Placement: byte-identical copies of one CPU-heavy program with a large
# hot code footprint (Debian's zstd, whose executable holds the whole
# compression library), compressing one ~7 MB tar, can differ in speed
# because of where each file's pages land in memory.
#  1. COPIES (default 48) fresh copies at paths of equal length; each copy
#     against copy 00 with `compare --replicas 1` (ROUNDS rounds, no
#     control); prints the spread of the ratios and how many intervals
#     exclude 1.0, then reruns the most extreme copy with another seed to
#     tell the file from the moment.
#  2. RUNS (default 20) A/A `run --allow-same-commit` of a repository whose
#     build copies zstd into each worktree, with replicas = 1 and with the
#     default (3); prints how often each gives a non-PASS wall verdict or a
#     wall interval that excludes 1.0.
# Takes about 15 minutes on 2 vCPUs (COPIES=12 RUNS=6 for a quick look).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
refbench="${REFBENCH:-${BUILD_DIR:-$root/build}/src/refbench}"
copies="${COPIES:-48}"
runs="${RUNS:-20}"
rounds="${ROUNDS:-20}"
zstd="$(command -v zstd)" || { echo "placement.sh: needs zstd (apt-get install zstd)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
{ tar cf - /usr/include /usr/share/perl5 2>/dev/null || true; } | head -c 7000000 >"$work/input.tar" || true
[ "$(stat -c %s "$work/input.tar")" -eq 7000000 ] || { echo "placement.sh: could not make the 7 MB input" >&2; exit 2; }

field() { /usr/bin/python3 -c 'import json,sys; a=next(a for a in json.load(open(sys.argv[1]))["analysis"] if a["metric"]=="wall" and not a["control"]); print(*(a[k] for k in sys.argv[2:]))' "$@"; }

echo "== 1. $copies byte-identical copies of $zstd, each against copy 00 ($rounds rounds, compare --replicas 1)"
for k in $(seq -w 0 $((copies - 1))); do
  mkdir -p "$work/c$k"
  cat "$zstd" >"$work/c$k/zstd" # read and written: a fresh file, never a link or reflink
  chmod +x "$work/c$k/zstd"
done
: >"$work/ratios"
for k in $(seq -w 1 $((copies - 1))); do
  "$refbench" compare -q --replicas 1 --no-control --isolate off --fail-on never --seed "$((10#$k))" \
    --max-rounds "$rounds" --min-rounds "$rounds" --budget 600s --out "$work/cmp" \
    "$work/c00/zstd -q -5 -c $work/input.tar" "$work/c$k/zstd -q -5 -c $work/input.tar" >/dev/null
  echo "$k $(field "$work/cmp/results.json" ratio ci_low ci_high)" >>"$work/ratios"
done
/usr/bin/python3 - "$work/ratios" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
r = sorted(float(x[1]) for x in rows)
excl = [x for x in rows if float(x[2]) > 1 or float(x[3]) < 1]
print(f"ratios of {len(rows)} copies to copy 00: min {r[0]:.3f}x, median {r[len(r)//2]:.3f}x, max {r[-1]:.3f}x")
print(f"intervals excluding 1.0: {len(excl)} of {len(rows)}: " + ", ".join(f"c{x[0]} {float(x[1]):.3f}x [{float(x[2]):.3f}, {float(x[3]):.3f}]" for x in excl))
worst = max(rows, key=lambda x: abs(float(x[1]) - 1))
open(sys.argv[1] + ".worst", "w").write(worst[0])
PY
worst=$(cat "$work/ratios.worst")
"$refbench" compare -q --replicas 1 --no-control --isolate off --fail-on never --seed 777 \
  --max-rounds "$rounds" --min-rounds "$rounds" --budget 600s --out "$work/cmp" \
  "$work/c00/zstd -q -5 -c $work/input.tar" "$work/c$worst/zstd -q -5 -c $work/input.tar" >/dev/null
echo "most extreme copy c$worst rerun with another seed: $(field "$work/cmp/results.json" ratio ci_low ci_high)"

echo "== 2. $runs A/A runs of one commit (the build copies zstd into each worktree), replicas = 1 vs the default"
repo="$work/repo"
mkdir -p "$repo"
cp "$work/input.tar" "$repo/input.tar"
cat >"$repo/refbench.toml" <<TOML
[build]
command = "cat $zstd > zstd && chmod +x zstd"

[run]
control = true

[[cell]]
name = "zstd"
command = ["{arm}/zstd", "-q", "-5", "-c", "{arm}/input.tar"]
TOML
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=b -c user.email=b@b.invalid add -A
git -C "$repo" -c user.name=b -c user.email=b@b.invalid commit -q -m bench
for replicas in 1 3; do
  : >"$work/aa-$replicas"
  for i in $(seq 1 "$runs"); do
    "$refbench" run -q --repo "$repo" --baseline main --candidate main --allow-same-commit --replicas "$replicas" \
      --isolate off --fail-on never --seed "$((1000 + i))" --max-rounds "$rounds" --min-rounds "$rounds" \
      --budget 600s --out "$work/aa" >/dev/null 2>&1 || true
    echo "$(field "$work/aa/results.json" verdict ratio ci_low ci_high)" >>"$work/aa-$replicas"
  done
  /usr/bin/python3 - "$work/aa-$replicas" "$replicas" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
non_pass = sum(1 for x in rows if x[0] != "PASS")
excl = sum(1 for x in rows if float(x[2]) > 1 or float(x[3]) < 1)
spread = sorted(float(x[1]) for x in rows)
print(f"replicas = {sys.argv[2]}: {len(rows)} A/A runs, non-PASS wall verdicts {non_pass}, intervals excluding 1.0 {excl}, "
      f"ratios {spread[0]:.3f}x .. {spread[-1]:.3f}x")
PY
done
