#!/usr/bin/env bash
# Rows per second of refbench's analysis on 1 000 rows (cells × metrics) of
# 200 pairs each — Hodges–Lehmann ratio, signed-rank interval, both one-sided
# signed-rank tests, medians, BH — against scipy on the same data in the same
# run: scipy's wilcoxon plus a Hodges–Lehmann median and BH, and its
# wilcoxon loop alone. Three figures of refbench's: the analysis alone in
# memory (bench/analyze_rows.cpp, what scipy's figures are comparable to),
# and `refbench analyze` as a whole process (CSV parse + JSON out).
# ROWS=N and PAIRS=N change the size.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
rows="${ROWS:-1000}"
pairs="${PAIRS:-200}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --build "$build" --target refbench refbench_analyze_rows >/dev/null
/usr/bin/python3 - "$work/pairs.csv" "$rows" "$pairs" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(1)
rows, pairs = int(sys.argv[2]), int(sys.argv[3])
with open(sys.argv[1], "w") as f:
    f.write("cell,metric,round,baseline,candidate\n")
    for c in range(rows):
        x = np.exp(rng.normal(0, 0.05, pairs))
        y = np.exp(rng.normal(0.02 * (c % 7), 0.05, pairs))
        for r in range(pairs):
            f.write(f"cell{c},wall,{r+1},{x[r]:.9g},{y[r]:.9g}\n")
PY
median_of() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
read -r in_memory results < <("$build/bench/refbench_analyze_rows" "$work/pairs.csv" 11)
[ "$results" = "$rows" ] || { echo "analyze_rows gave $results results, not $rows" >&2; exit 1; }
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  "$build/src/refbench" analyze --fail-on never --format json "$work/pairs.csv" >"$work/out.json"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
done | median_of >"$work/process"
/usr/bin/python3 -W ignore - "$work/pairs.csv" >"$work/scipy" <<'PY'
import sys, time, csv, math
import numpy as np
from scipy import stats
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    rows.setdefault((r["cell"], r["metric"]), ([], []))
    rows[(r["cell"], r["metric"])][0].append(float(r["baseline"]))
    rows[(r["cell"], r["metric"])][1].append(float(r["candidate"]))
data = {k: (np.array(a), np.array(b)) for k, (a, b) in rows.items()}
times = []
for _ in range(5):
    start = time.perf_counter()
    ps = []
    for x, y in data.values():
        d = np.log(y / x)
        i, j = np.triu_indices(len(d))
        hl = np.median((d[i] + d[j]) / 2)
        ps.append(stats.wilcoxon(d - math.log(1.15), alternative="greater").pvalue)
    p = np.array(ps); order = np.argsort(p); m = len(p)
    adj = np.minimum.accumulate((p[order] * m / np.arange(1, m + 1))[::-1])[::-1]
    times.append(time.perf_counter() - start)
alone = []  # scipy's wilcoxon loop alone: one test, no estimate, no interval, no BH
for _ in range(5):
    start = time.perf_counter()
    for x, y in data.values():
        stats.wilcoxon(np.log(y / x) - math.log(1.15), alternative="greater")
    alone.append(time.perf_counter() - start)
print(sorted(times)[2], sorted(alone)[2])
PY
process=$(cat "$work/process")
read -r sp alone <"$work/scipy"
awk -v n="$rows" -v k="$pairs" -v a="$in_memory" -v r="$process" -v s="$sp" -v w="$alone" 'BEGIN {
  printf "analysis of %d rows x %d pairs (medians):\n", n, k
  printf "  refbench, analysis in memory                     %7.3f s  %8.0f rows/s  (target <= 0.1 s)\n", a, n / a
  printf "  refbench analyze, whole process (CSV in, JSON out) %5.3f s  %8.0f rows/s\n", r, n / r
  printf "  scipy wilcoxon + HL + BH, data in memory         %7.3f s  %8.0f rows/s\n", s, n / s
  printf "  scipy wilcoxon loop alone, data in memory        %7.3f s  %8.0f rows/s\n", w, n / w
  printf "  refbench in memory / scipy wilcoxon + HL + BH: %.2fx the time; / scipy wilcoxon alone: %.2fx\n", a / s, a / w
}'
