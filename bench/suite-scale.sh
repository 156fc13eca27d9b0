#!/usr/bin/env bash
# How `refbench run` scales with the benchmarks a suite reports: a BMF suite
# (a Python script writing N benchmarks of one measure to {output}) measured A/A for 3
# rounds at each N, the whole command timed; prints seconds, peak RSS and
# the time per benchmark against the smallest N's (1.00x: linear).
# Usage: bench/suite-scale.sh [N ...]   (default 1000 4000 16000 20000 100000; needs a built refbench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
[ -x "$refbench" ] || { echo "build refbench first: scripts/build.sh" >&2; exit 1; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 4000 16000 20000 100000)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
mkdir -p "$repo"
cat >"$repo/gen.py" <<'PY'
import json, random, sys
n = int(sys.argv[1])
with open(sys.argv[2], "w") as out:
    json.dump({f"b{i:07d}": {"latency": {"value": 1000.0 + random.random()}} for i in range(n)}, out)
PY
git -C "$repo" init -q -b main
printf 'x\n' >"$repo/README"
GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid \
  git -C "$repo" -c core.hooksPath=/dev/null add -A
GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid \
  git -C "$repo" commit -q -m base
first=""
printf '%10s %10s %12s %16s\n' benchmarks seconds "peak RSS" "s/benchmark"
for n in "${sizes[@]}"; do
  cat >"$work/refbench.toml" <<TOML
[[cell]]
name = "s"
suite = "bmf"
from = "file"
command = ["/usr/bin/python3", "$repo/gen.py", "$n", "{output}"]
TOML
  rm -rf "$work/o"
  /usr/bin/time -f "%e %M" -o "$work/time" "$refbench" run -q --repo "$repo" -c "$work/refbench.toml" \
    --baseline main --candidate main --allow-same-commit --out "$work/o" --replicas 1 --max-rounds 3 \
    --min-rounds 3 --warmup 1 --isolate off --color never --fail-on never >/dev/null 2>"$work/err" || {
    rc=$?
    # past the cap (docs/manual/suites.md, Many rows) the suite is an ERROR (exit 4) after its warm-up
    [ "$rc" = 4 ] && grep -q "more than the .* one run judges" "$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r seconds kib < <(tail -1 "$work/time") # time(1) says "Command exited with non-zero status" first
    printf '%10d %10.2f %9.0f MiB   refused: more than one run judges (exit 4)\n' "$n" "$seconds" "$((kib / 1024))"
    continue
  }
  read -r seconds kib <"$work/time"
  per=$(awk -v s="$seconds" -v n="$n" 'BEGIN {print s / n}')
  [ -n "$first" ] || first="$per"
  awk -v n="$n" -v s="$seconds" -v k="$kib" -v p="$per" -v f="$first" \
    'BEGIN {printf "%10d %10.2f %9.0f MiB %10.2f ms (%.2fx)\n", n, s, k / 1024, p * 1e3, p / f}'
done
