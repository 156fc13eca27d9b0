#!/usr/bin/env bash
# `refbench bisect` on synthetic histories of 16, 64 and 256 linear commits
# (or the sizes given), one of them (at a seeded position) making the
# program 1.4x slower: builds (against log2 N + 2), steps and wall time,
# and the same search done by `git bisect run` with a one-invocation timing
# oracle (threshold halfway between one timing of good and one of bad),
# measured in the same run: its wall time, and whether that single reading
# per commit named the right one.
# Then a counted bisect (`--metric instructions`) on twelve commits of a C
# program of about 3 ms, the ninth running twice the instructions, against
# what a careful user writes by hand: `git bisect run` with a script that
# builds, counts once under cachegrind and compares with the good end's
# count, counted once. Both times and culprits, their ratio, and refbench's
# counted passes (docs/manual/bisect.md; docs/design.md, Counted bisect).
# Usage: bench/bisect.sh [N…]   (COUNTED_ONLY=1: the counted bisect alone)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
refbench="${REFBENCH:-${BUILD_DIR:-$root/build}/src/refbench}"
[ -x "$refbench" ] || { echo "bench/bisect.sh: $refbench is not built; run scripts/build.sh" >&2; exit 2; }
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(16 64 256)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -z "${KEEP:-}" ] || { trap - EXIT; echo "bench/bisect.sh: keeping $work" >&2; }
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench
export GIT_COMMITTER_EMAIL=bench@example.invalid GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

# A repository of $2 commits after `good`; commit $3 makes bin/work sleep 28 ms instead of 20 ms.
make_history() {
  local repo="$1" count="$2" step="$3"
  mkdir -p "$repo"
  printf '[build]\ncommand = "mkdir -p bin && cp work.sh bin/work && chmod +x bin/work"\n\n[run]\nmin_rounds = 8\n'\
'max_rounds = 40\nreplicas = 1\n\n[[cell]]\nname = "work"\ncommand = ["{arm}/bin/work"]\n' >"$repo/refbench.toml"
  printf 'bin/\n' >"$repo/.gitignore"
  printf '#!/bin/sh\nexec sleep 0.020\n' >"$repo/work.sh"
  git -C "$repo" init -q -b main
  git -C "$repo" add -A
  git -C "$repo" commit -q -m good
  git -C "$repo" tag good
  for i in $(seq 1 "$count"); do
    if [ "$i" = "$step" ]; then printf '#!/bin/sh\nexec sleep 0.028\n' >"$repo/work.sh"; else echo "$i" >>"$repo/NOTES"; fi
    git -C "$repo" add -A
    git -C "$repo" commit -q -m "c$i"
  done
}

[ -z "${COUNTED_ONLY:-}" ] || sizes=()
[ "${#sizes[@]}" -eq 0 ] ||
  printf '%6s %6s %8s %8s %7s %9s %9s %6s %s\n' commits step builds log2N+2 steps refbench git-run ratio "git bisect run right?"
for n in "${sizes[@]}"; do
  step=$((n * 5 / 8 + 1)) # a fixed, size-dependent position
  repo="$work/h$n"
  make_history "$repo" "$n" "$step"
  start=$(date +%s.%N)
  "$refbench" bisect -q --repo "$repo" --good good --bad main --seed "$n" --out "$work/out$n" >"$work/bisect$n.log" 2>&1 || true
  elapsed=$(echo "$(date +%s.%N) - $start" | bc)
  read -r builds steps right < <(/usr/bin/python3 - "$work/out$n/bisect.json" "$step" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
culprit = r["culprit"]["subject"] if r["culprit"] else "none"
print(r["builds"], sum(s["kind"] == "step" for s in r["steps"]), culprit == f"c{sys.argv[2]}")
PY
)
  [ "$right" = True ] || { echo "bench/bisect.sh: refbench bisect did not name c$step for $n commits:" >&2; cat "$work/bisect$n.log" >&2; }
  # the peer: git bisect run with one timed invocation per commit, against a
  # threshold halfway between one timed invocation of good and one of bad
  cat >"$work/oracle.sh" <<'SH'
#!/bin/sh
mkdir -p bin && cp work.sh bin/work && chmod +x bin/work || exit 125
start=$(date +%s%N)
bin/work
end=$(date +%s%N)
[ "${CALIBRATE:-}" ] && { echo $(((end - start) / 1000)); exit 0; }
[ $(((end - start) / 1000)) -lt "$THRESHOLD_US" ]
SH
  chmod +x "$work/oracle.sh"
  start=$(date +%s.%N)
  git -C "$repo" checkout -q good && good_us=$(cd "$repo" && CALIBRATE=1 "$work/oracle.sh")
  git -C "$repo" checkout -q main && bad_us=$(cd "$repo" && CALIBRATE=1 "$work/oracle.sh")
  git -C "$repo" bisect start main good >/dev/null
  THRESHOLD_US=$(((good_us + bad_us) / 2)) git -C "$repo" bisect run "$work/oracle.sh" >"$work/git-bisect$n.log" 2>&1 || true
  named=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$work/git-bisect$n.log" | head -n 1)
  git -C "$repo" bisect reset >/dev/null 2>&1 || true
  peer=$(echo "$(date +%s.%N) - $start" | bc)
  peer_right=$([ "$named" = "$(git -C "$repo" rev-parse "main~$((n - step))")" ] && echo yes || echo no)
  log2=$(/usr/bin/python3 -c "import math; print(math.ceil(math.log2($n)) + 2)")
  printf '%6s %6s %8s %8s %7s %8.1fs %8.1fs %5.1fx %s\n' "$n" "c$step" "$builds" "$log2" "$steps" "$elapsed" "$peer" \
    "$(echo "$elapsed / $peer" | bc -l)" "$peer_right"
done

# the counted bisect: twelve commits of work.c, c9 running twice the loop
command -v valgrind >/dev/null || { echo "bench/bisect.sh: the counted bisect needs valgrind" >&2; exit 2; }
repo="$work/counted"
mkdir -p "$repo"
work_c() { # a loop of $1 steps: about 3 ms for 1 000 000
  printf '#include <stdio.h>\nint main(void) {\n  volatile unsigned long h = 5381;\n' >"$repo/work.c"
  printf '  for (unsigned long i = 0; i < %sUL; ++i) h = h * 33 + i;\n' "$1" >>"$repo/work.c"
  printf '  printf("%%lu\\n", (unsigned long)h);\n  return 0;\n}\n' >>"$repo/work.c"
}
printf '[build]\ncommand = "mkdir -p bin && cc -O1 -o bin/work work.c"\n\n[[cell]]\nname = "work"\n'\
'command = ["{arm}/bin/work"]\n' >"$repo/refbench.toml"
printf 'bin/\ncount.log\n' >"$repo/.gitignore"
work_c 1000000
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" commit -q -m good
git -C "$repo" tag good
for i in $(seq 1 12); do
  if [ "$i" = 9 ]; then work_c 2000000; else echo "$i" >>"$repo/NOTES"; fi
  git -C "$repo" add -A
  git -C "$repo" commit -q -m "c$i"
done
start=$(date +%s.%N)
"$refbench" bisect -q --repo "$repo" --good good --bad main --metric instructions --seed 12 --out "$work/counted-out" \
  >"$work/counted.log" 2>&1 || true
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
read -r culprit builds passes < <(/usr/bin/python3 - "$work/counted-out/bisect.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["culprit"]["subject"] if r["culprit"] else "none", r["builds"], r["counted_passes"])
PY
)
# the peer: build, count once under cachegrind, bad when past the good end's count by 1 %
cat >"$work/count.sh" <<'SH'
#!/bin/sh
mkdir -p bin && cc -O1 -o bin/work work.c || exit 125
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null bin/work 2>count.log >/dev/null || exit 125
count=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' count.log | tr -d ,)
[ -z "${CALIBRATE:-}" ] || { echo "$count"; exit 0; }
[ "$count" -le $((GOOD_COUNT + GOOD_COUNT / 100)) ]
SH
chmod +x "$work/count.sh"
start=$(date +%s.%N)
git -C "$repo" checkout -q good
good_count=$(cd "$repo" && CALIBRATE=1 "$work/count.sh")
git -C "$repo" checkout -q main
git -C "$repo" bisect start main good >/dev/null
GOOD_COUNT=$good_count git -C "$repo" bisect run "$work/count.sh" >"$work/git-counted.log" 2>&1 || true
named=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$work/git-counted.log" | head -n 1)
git -C "$repo" bisect reset >/dev/null 2>&1 || true
peer=$(echo "$(date +%s.%N) - $start" | bc)
peer_culprit=$(git -C "$repo" log -1 --format=%s "$named" 2>/dev/null || echo none)
printf '\ncounted bisect, 12 commits, c9 runs 2x the instructions:\n'
printf '  refbench bisect --metric instructions: %5.2f s, culprit %s, %s builds, %s counted passes\n' "$elapsed" \
  "$culprit" "$builds" "$passes"
printf '  git bisect run + cachegrind, once each: %5.2f s, culprit %s\n' "$peer" "$peer_culprit"
printf '  ratio: %.2fx\n' "$(echo "$elapsed / $peer" | bc -l)"
