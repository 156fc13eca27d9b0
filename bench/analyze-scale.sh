#!/usr/bin/env bash
# How `refbench analyze` scales with the size of outside data: wall time and
# peak RSS (GNU time) for one cell of n pairs (CSV) at n = 1e3 … 1e6, for
# one hyperfine export of n times per command (unpaired) at n = 1e3 … 3e5,
# and for a CSV of many distinct cells, each with the log-log slope fitted
# over its sizes (1 = linear; the estimates and intervals are O(n log n)).
# Usage: bench/analyze-scale.sh   (needs a built refbench and /usr/bin/time)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -x "$refbench" ] || { echo "build refbench first: scripts/build.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time missing: apt-get install time" >&2; exit 1; }

paired_sizes="1000 10000 100000 1000000"
unpaired_sizes="1000 10000 100000 300000"
cell_counts="1000 10000 50000"

/usr/bin/python3 - "$work" "$paired_sizes" "$unpaired_sizes" "$cell_counts" <<'PY'
import json, sys
import numpy as np
work, paired, unpaired, cells = sys.argv[1], *(list(map(int, a.split())) for a in sys.argv[2:5])
rng = np.random.default_rng(1)
for n in paired:
    x = np.exp(rng.normal(0, 0.05, n))
    y = x * np.exp(rng.normal(0.02, 0.05, n))
    with open(f"{work}/paired-{n}.csv", "w") as f:
        f.write("round,baseline,candidate\n")
        f.writelines(f"{r + 1},{a:.9g},{b:.9g}\n" for r, (a, b) in enumerate(zip(x, y)))
for n in unpaired:
    times = [np.exp(rng.normal(m, 0.05, n)) * 0.01 for m in (0.0, 0.02)]
    with open(f"{work}/unpaired-{n}.json", "w") as f:
        json.dump({"results": [{"command": c, "times": [float(f"{t:.9g}") for t in ts]}
                               for c, ts in zip(("baseline", "candidate"), times)]}, f)
for c in cells:
    with open(f"{work}/cells-{c}.csv", "w") as f:
        f.write("cell,round,baseline,candidate\n")
        for r in range(2):
            f.writelines(f"cell{i},{r + 1},{1 + rng.random():.6f},{1 + rng.random():.6f}\n" for i in range(c))
PY

# measure KIND N FILE: one analyze, appending "KIND N seconds KiB" to $work/table
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time" \
    "$refbench" analyze --fail-on never --format json "$3" >"$work/out.json" 2>"$work/err" ||
    { cat "$work/err" >&2; echo "refbench analyze failed on $1 n=$2" >&2; exit 1; }
  read -r seconds kib <"$work/time"
  echo "$1 $2 $seconds $kib" >>"$work/table"
}
: >"$work/table"
for n in $paired_sizes; do measure paired "$n" "$work/paired-$n.csv"; done
for n in $unpaired_sizes; do measure unpaired "$n" "$work/unpaired-$n.json"; done
for c in $cell_counts; do measure cells "$c" "$work/cells-$c.csv"; done

awk '
  function sec(v) { return v < 0.01 ? 0.01 : v } # below GNU time'"'"'s resolution
  { kind[NR] = $1; n[NR] = $2; s[NR] = $3; kib[NR] = $4 }
  END {
    printf "refbench analyze, one run per size (wall from GNU time, 10 ms resolution)\n"
    printf "%-9s %9s %9s %11s\n", "input", "n", "wall s", "peak RSS"
    for (i = 1; i <= NR; i++) {
      printf "%-9s %9d %9.2f %8.1f MiB\n", kind[i], n[i], s[i], kib[i] / 1024
    }
    printf "log-log slopes (1 = linear): least squares over all sizes, and between the two largest\n"
    split("paired unpaired cells", kinds, " ")
    for (k = 1; k <= 3; k++) {
      m = 0; sx = sy = sr = sxx = sxy = sxr = 0; last = before = 0
      for (i = 1; i <= NR; i++) {
        if (kind[i] != kinds[k]) continue
        x = log(n[i]); y = log(sec(s[i])); r = log(kib[i])
        m++; sx += x; sy += y; sr += r; sxx += x * x; sxy += x * y; sxr += x * r
        before = last; last = i
      }
      d = m * sxx - sx * sx
      top = log(n[last] / n[before])
      printf "  %-9s wall %.2f (largest two %.2f)   peak RSS %.2f (largest two %.2f)\n", kinds[k],
        (m * sxy - sx * sy) / d, log(sec(s[last]) / sec(s[before])) / top,
        (m * sxr - sx * sr) / d, log(kib[last] / kib[before]) / top
    }
  }' "$work/table"
