#!/usr/bin/env bash
# Time to analyze 100 cells × 3 metrics × 200 rounds with `refbench analyze`
# (CSV in, JSON out: Hodges–Lehmann, signed-rank interval and test, BH), and
# in the same run the time scipy takes for the same tests (wilcoxon per cell
# and metric plus a Hodges–Lehmann median and BH, and the wilcoxon loop
# alone), as ratios: refbench's whole process against scipy's analysis only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work/pairs.csv" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(1)
with open(sys.argv[1], "w") as f:
    f.write("cell,metric,round,baseline,candidate\n")
    for c in range(100):
        for m in ("wall", "cpu", "rss"):
            x = np.exp(rng.normal(0, 0.05, 200))
            y = np.exp(rng.normal(0.02 * (c % 7), 0.05, 200))
            for r in range(200):
                f.write(f"cell{c},{m},{r+1},{x[r]:.9g},{y[r]:.9g}\n")
PY
median_of() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  "$build/src/refbench" analyze --fail-on never --format json "$work/pairs.csv" >"$work/out.json"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
done | median_of >"$work/refbench"
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
alone = []  # scipy's wilcoxon loop alone: the test, no estimate, no BH
for _ in range(5):
    start = time.perf_counter()
    for x, y in data.values():
        stats.wilcoxon(np.log(y / x) - math.log(1.15), alternative="greater")
    alone.append(time.perf_counter() - start)
print(sorted(times)[2], sorted(alone)[2])
PY
rb=$(cat "$work/refbench")
read -r sp alone <"$work/scipy"
awk -v r="$rb" -v s="$sp" -v w="$alone" 'BEGIN {
  printf "analyze 100 cells x 3 metrics x 200 rounds (median of 5):\n"
  printf "  refbench analyze (whole process, CSV parse + JSON out)  %7.3f s   (target < 1 s)\n", r
  printf "  scipy wilcoxon + HL + BH (analysis only, data in memory) %7.3f s\n", s
  printf "  scipy wilcoxon loop alone (test only, data in memory)    %7.3f s\n", w
  printf "  refbench / scipy: %.2fx; refbench / scipy wilcoxon loop alone: %.2fx\n", r / s, r / w
}'
