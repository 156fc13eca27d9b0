#!/usr/bin/env bash
# Rounds needed for 80 % power to flag a true 1.20x and 1.30x past a 1.15x
# gate, at log-noise σ (of the paired log-ratio) 0.03, 0.05 and 0.10: refbench's
# REGRESSION verdict (simulated, bench/power.cpp) next to the paired one-sided
# t-test at α = 0.05 (exact, noncentral t, scipy) as the parametric bound.
# REGRESSION needs the 95 % interval's low end past the gate, which is a
# one-sided test at 2.5 %, so the t-test at α = 0.025 is printed too.
# Usage: bench/power.sh [RUNS_PER_POINT]   (default 2000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
[ -x "$build/bench/refbench_power" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
"$build/bench/refbench_power" "${1:-2000}" | /usr/bin/python3 -W ignore -c '
import math, sys
from scipy import stats
def t_bound(sigma, ratio, gate=1.15, alpha=0.05, target=0.8):
    delta = math.log(ratio) - math.log(gate)
    for n in range(2, 1000):
        crit = stats.t.ppf(1 - alpha, n - 1)
        if stats.nct.sf(crit, n - 1, delta / sigma * math.sqrt(n)) >= target:
            return n
print("sigma  true ratio  refbench rounds  t-test α=0.05  ratio   t-test α=0.025  ratio")
for line in sys.stdin:
    sigma, ratio, n = line.split()
    t = t_bound(float(sigma), float(ratio))
    t2 = t_bound(float(sigma), float(ratio), alpha=0.025)
    print(f"{float(sigma):5.2f}  {float(ratio):10.2f}  {int(n):15d}  {t:13d}  {int(n)/t:5.2f}x  {t2:14d}  {int(n)/t2:5.2f}x")
'
