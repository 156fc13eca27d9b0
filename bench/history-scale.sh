#!/usr/bin/env bash
# How `refbench history` scales with the history's length (docs/manual/history.md): chained histories of 100 series (tests/integration/history_gen.py,
# as `run --history` writes them) at 100, 300 and 1000 nights (10^4 … 10^5
# lines, ~65 MB at 10^5): the whole process's wall time and peak RSS (GNU
# time), Markdown and JSON, against the floor of Debian's python3 only parsing
# the same file with json.loads per line, measured in the same run; and the
# log-log slope of time over lines (1 = linear).
# Usage: bench/history-scale.sh   (needs a built refbench and /usr/bin/time)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -x "$refbench" ] || { echo "build refbench first: scripts/build.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time missing: apt-get install time" >&2; exit 1; }
nights_list="100 300 1000"
series=100

# best of three: wall seconds and KiB of the fastest run of "$@"
best_of_three() {
  local best="" kib="" s k
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
      [ "$?" = 1 ] || { cat "$work/err" >&2; echo "failed: $*" >&2; exit 1; }
    read -r s k <"$work/time"
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$s" kib="$k"; fi
  done
  echo "$best $kib"
}

: >"$work/table"
for nights in $nights_list; do
  /usr/bin/python3 "$root/tests/integration/history_gen.py" "$work/h$nights" "$nights" "$series" 10 1 >/dev/null
  lines=$((nights * series))
  bytes=$(stat -c %s "$work/h$nights/history.jsonl")
  read -r floor _ < <(best_of_three /usr/bin/python3 -c '
import json, sys
with open(sys.argv[1]) as f:
    for line in f:
        json.loads(line)' "$work/h$nights/history.jsonl")
  read -r markdown markdown_kib < <(best_of_three "$refbench" history "$work/h$nights")
  read -r json json_kib < <(best_of_three "$refbench" history "$work/h$nights" --format json)
  echo "$lines $bytes $floor $markdown $markdown_kib $json $json_kib" >>"$work/table"
done

awk '
  function sec(v) { return v < 0.01 ? 0.01 : v }
  { n[NR] = $1; bytes[NR] = $2; floor[NR] = sec($3); md[NR] = sec($4); mdk[NR] = $5; js[NR] = sec($6); jsk[NR] = $7 }
  END {
    printf "%8s %7s %10s %10s %7s %8s %10s %7s %8s\n", "lines", "MB", "json.loads", "markdown", "ratio", "MiB", "json", "ratio", "MiB"
    for (i = 1; i <= NR; i++)
      printf "%8d %7.1f %9.2fs %9.2fs %6.2fx %8.0f %9.2fs %6.2fx %8.0f\n", n[i], bytes[i] / 1e6, floor[i], md[i],
             md[i] / floor[i], mdk[i] / 1024, js[i], js[i] / floor[i], jsk[i] / 1024
    # least-squares slope of log(time) on log(lines)
    for (i = 1; i <= NR; i++) { x = log(n[i]); sx += x; sxx += x * x; smd += log(md[i]); sxmd += x * log(md[i]); sjs += log(js[i]); sxjs += x * log(js[i]) }
    d = NR * sxx - sx * sx
    printf "log-log slope of time over lines: markdown %.2f, json %.2f (1 = linear)\n", (NR * sxmd - sx * smd) / d, (NR * sxjs - sx * sjs) / d
    printf "bound at %d lines: 3x the json.loads floor and 256 MiB; markdown %s, json %s\n", n[NR],
           (md[NR] <= 3 * floor[NR] && mdk[NR] <= 262144) ? "within" : "NOT within", (js[NR] <= 3 * floor[NR] && jsk[NR] <= 262144) ? "within" : "NOT within"
  }' "$work/table"
