#!/usr/bin/env bash
# `refbench bisect` on synthetic histories of 16, 64 and 256 linear commits
# (or the sizes given), one of them (at a seeded position) making the
# program 1.4x slower: builds (against log2 N + 2), steps and wall time,
# and the same search done by `git bisect run` with a one-invocation timing
# oracle (threshold halfway between one timing of good and one of bad),
# measured in the same run: its wall time, and whether that single reading
# per commit named the right one.
# Usage: bench/bisect.sh [N…]
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
