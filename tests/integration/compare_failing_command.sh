#!/usr/bin/env bash
# A command that exits non-zero, is killed by a signal, or times out → exit 4,
# naming the arm, the round and the stderr tail; the journal keeps every sample.
source "$(dirname "$0")/lib.sh"
cat >"$WORK/flaky.sh" <<'SH'
#!/bin/sh
# Fails on its third run.
n=$(cat "$1" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$1"
if [ "$n" -ge 3 ]; then echo "flaky: disk on fire (run $n)" >&2; exit 3; fi
SH
chmod +x "$WORK/flaky.sh"
run_refbench compare --seed 5 --warmup 1 --max-rounds 5 --no-control --out "$WORK/o1" true "$WORK/flaky.sh $WORK/count"
expect_rc 4
expect_in "$WORK/err" "refbench: error: cell compare: the candidate command exited with code 3 in round 2"
expect_in "$WORK/err" "  | flaky: disk on fire (run 3)"
expect_json "$WORK/o1/results.json" "r['verdict'] == 'error' and r['cells'][0]['stop_reason'] == 'error'"
expect_json "$WORK/o1/results.json" "r['cells'][0]['failure']['round'] == 2 and r['cells'][0]['failure']['arm'] == 'candidate'"
[ "$(grep -c '"type":"sample"' "$WORK/o1/journal.jsonl")" -ge 4 ] || fail "journal lost samples"

run_refbench compare --shell --max-rounds 3 --no-control --out "$WORK/o2" true 'echo dying >&2; kill -KILL $$'
expect_rc 4
expect_in "$WORK/err" "the candidate command was killed by SIGKILL in warm-up"
expect_in "$WORK/err" "  | dying"

run_refbench compare --timeout 300ms --max-rounds 3 --warmup 0 --no-control --out "$WORK/o3" "sleep 5" true
expect_rc 4
expect_in "$WORK/err" "the baseline command timed out after 0.3s in round 1"
expect_json "$WORK/o3/results.json" "[s['arm'] for s in r['cells'][0]['samples'] if s['status'] == 'timed-out'] == ['baseline']"
# stderr that is not UTF-8 (here Latin-1) is kept and reported, never a crash
run_refbench compare --shell --max-rounds 3 --no-control --out "$WORK/o4" true "printf 'caf\\351 au lait\\n' >&2; exit 1"
expect_rc 4
expect_in "$WORK/err" "the candidate command exited with code 1"
"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/o4/results.json" || fail "results.json is not valid JSON"
"$PY" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$WORK/o4/journal.jsonl" || fail "journal is not valid JSON lines"

# a failing A/A control names the baseline, which both of its arms run
cat >"$WORK/flaky-base.sh" <<'SH'
#!/bin/sh
n=$(cat "$1" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$1"
[ "$n" -lt 4 ] || exit 9
SH
chmod +x "$WORK/flaky-base.sh"
run_refbench compare --seed 3 --warmup 0 --max-rounds 5 --out "$WORK/o5" "$WORK/flaky-base.sh $WORK/count5" true
expect_rc 4
grep -q "the baseline\( (A/A control)\)\? command exited with code 9" "$WORK/err" || fail "failure not named: $(cat "$WORK/err")"
! grep -q "cell compare-control: the candidate command" "$WORK/err" || fail "control failure blamed the candidate"
echo "ok: failing commands → exit 4 with arm, round and stderr"
