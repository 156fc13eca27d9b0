#!/usr/bin/env bash
# SIGTERM mid-run: exit 143, worktrees gone, journal valid and renderable;
# SIGTERM to the process group while a worktree is checked out: 143 and a
# true message, no locked worktree left, the next run into the same --out
# works; one after the rounds still gives 143; a fixed seed reproduces the
# schedule.
source "$(dirname "$0")/lib.sh"
repo=$(make_sample slower)
"$REFBENCH" run --repo "$repo" --baseline v1.0.0 --candidate main --max-rounds 200 --budget 10m \
  --out "$WORK/o" >"$WORK/out" 2>"$WORK/err" &
terminate_after_round_2 $! "$WORK/o/journal.jsonl"
expect_rc 143
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left after SIGTERM: $(git -C "$repo" worktree list)"
[ -z "$(find "$WORK/o/arms" -mindepth 1 -maxdepth 1 2>/dev/null)" ] || fail "arms directory not empty: $(ls "$WORK/o/arms")"
run_refbench analyze --format json "$WORK/o/journal.jsonl"
expect_rc 0
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["partial"] and len(d["analysis"]) > 0, d' "$WORK/out" \
  || fail "journal of the killed run does not render: $(cat "$WORK/out")"

# --- SIGTERM to the whole process group during `git worktree add` (a slow smudge filter)
slow=$(make_sample slower)
printf 'slow.txt filter=slow\n' >"$slow/.gitattributes"
echo data >"$slow/slow.txt"
git_in "$slow" config filter.slow.clean cat
git_in "$slow" config filter.slow.smudge 'sleep 4; cat'
git_in "$slow" add .gitattributes slow.txt
git_in "$slow" commit -q -m "a file checked out slowly"
setsid "$REFBENCH" run --repo "$slow" --baseline v1.0.0 --candidate main --max-rounds 2 --min-rounds 2 \
  --out "$WORK/early" >"$WORK/out" 2>"$WORK/err" &
pid=$!
for _ in $(seq 100); do # until the candidate's checkout has started
  pgrep -f 'sleep 4; cat' >/dev/null && break
  sleep 0.05
done
sleep 0.3
kill -TERM -- "-$pid"
set +e
wait "$pid"
RC=$?
set -e
expect_rc 143
expect_in "$WORK/err" "terminated (SIGTERM) — it came before anything was measured, so no results were written"
grep -q "not a git repository\|cannot create the worktree" "$WORK/err" && fail "the interrupt read as git's failure: $(cat "$WORK/err")"
[ "$(git -C "$slow" worktree list | wc -l)" -eq 1 ] || fail "worktrees left after SIGTERM: $(git -C "$slow" worktree list)"
[ -z "$(ls "$slow/.git/worktrees" 2>/dev/null)" ] || fail "a worktree entry is left: $(ls -R "$slow/.git/worktrees")"
git_in "$slow" config filter.slow.smudge cat
run_refbench run -q --repo "$slow" --baseline v1.0.0 --candidate main --max-rounds 2 --min-rounds 2 --fail-on never \
  --out "$WORK/early"
expect_rc 0

# --- a SIGTERM that arrives after the rounds (here from the cleanup hook, which runs despite
# it) is still honoured: 143, with the whole results written
run_refbench compare --shell --max-rounds 3 --min-rounds 3 --warmup 0 --out "$WORK/late" \
  --sandbox off --cleanup 'kill -TERM $(awk "{print \$4}" /proc/$PPID/stat)' true true
expect_rc 143
expect_in "$WORK/err" "terminated (SIGTERM) — the results measured until then were written"
expect_json "$WORK/late/results.json" "not r.get('partial') and len(r['analysis']) > 0"

# the same seed gives the same schedule
for run in 1 2; do
  "$REFBENCH" run -q --repo "$repo" --baseline v1.0.0 --candidate main --seed 99 --max-rounds 4 --min-rounds 4 \
    --fail-on never --out "$WORK/seed$run" >/dev/null 2>&1 || fail "seeded run $run failed"
  "$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "sample":
                # the automatic control replicates the cheapest cell, which timing decides
        cell = "control" if o["cell"].endswith("-control") else o["cell"]
        print(cell, o["arm"], o["round"], o["order"])' "$WORK/seed$run/journal.jsonl" >"$WORK/order$run"
done
cmp -s "$WORK/order1" "$WORK/order2" || fail "the same seed gave different schedules"
echo "ok: SIGTERM → 143 with worktrees removed and a renderable journal; seeds reproduce schedules"
