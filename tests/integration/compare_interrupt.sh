#!/usr/bin/env bash
# SIGINT / SIGTERM during rounds: exit 130 / 143, the journal intact and
# valid, partial results written, the benchmarked children killed.
source "$(dirname "$0")/lib.sh"
# A uniquely named sleeper, so leftovers can be found by name.
marker="refbench-it-sleeper-$$"
cat >"$WORK/$marker" <<'SH'
#!/bin/sh
exec sleep 0.4
SH
chmod +x "$WORK/$marker"

interrupt() { # signal expected-rc
  local out="$WORK/o-$1"
  "$REFBENCH" compare --seed 6 --max-rounds 50 --out "$out" "$WORK/$marker" "$WORK/$marker" \
    >"$WORK/out" 2>"$WORK/err" &
  local pid=$!
  # wait until at least 4 samples are journaled, then interrupt mid-invocation
  for _ in $(seq 100); do
    [ "$(grep -c '"type":"sample"' "$out/journal.jsonl" 2>/dev/null || echo 0)" -ge 4 ] && break
    sleep 0.1
  done
  sleep 0.2
  kill -s "$1" "$pid"
  set +e
  wait "$pid"
  RC=$?
  set -e
  expect_rc "$2"
  expect_in "$WORK/err" "refbench: error: "
  "$PY" - "$out/journal.jsonl" <<'PY' || fail "journal of $1 run is not valid JSON lines"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "empty journal"
objs = [json.loads(l) for l in lines]
assert objs[0]["type"] == "header"
samples = [o for o in objs if o["type"] == "sample"]
assert len(samples) >= 4, len(samples)
assert all(o["status"] == "exited" for o in samples), "a cancelled invocation was journaled"
PY
  expect_json "$out/results.json" "r['partial'] is True"
  expect_in "$out/report.md" "⏸ partial (interrupted)"
  [ -s "$out/report.csv" ] || fail "no report.csv after $1"
  expect_json "$out/results.json" "all(c['stop_reason'] == 'interrupted' for c in r['cells'])"
  # every journaled sample is in results.json
  local journaled
  journaled=$(grep -c '"type":"sample"' "$out/journal.jsonl")
  expect_json "$out/results.json" "sum(len(c['samples']) for c in r['cells']) == $journaled"
  sleep 0.2
  if pgrep -f "$marker" >/dev/null || pgrep -f "sleep 0.4" -P 1 >/dev/null; then
    fail "benchmarked processes left running after $1: $(pgrep -af "$marker")"
  fi
}
interrupt INT 130
interrupt TERM 143

# refbench killed outright: the launcher notices and kills what it runs.
"$REFBENCH" compare --max-rounds 50 --out "$WORK/o-kill" "$WORK/$marker" "$WORK/$marker" >/dev/null 2>&1 &
pid=$!
sleep 1.5
launcher=$(pgrep -P "$pid" -f __launcher) || fail "no launcher process under refbench"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
for _ in $(seq 50); do
  pgrep -f "$marker" >/dev/null || kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
! pgrep -f "$marker" >/dev/null || fail "children survived SIGKILL of refbench: $(pgrep -af "$marker")"
! kill -0 "$launcher" 2>/dev/null || [ "$(awk '{print $3}' /proc/"$launcher"/stat 2>/dev/null)" = Z ] \
  || fail "launcher $launcher survived refbench"
echo "ok: SIGINT → 130, SIGTERM → 143, journal valid, nothing left running"
