#!/usr/bin/env bash
# A candidate that fails, does not compile, or does different work.
source "$(dirname "$0")/lib.sh"

repo=$(make_sample failing)
run_refbench run --repo "$repo" --baseline v1.0.0 --candidate main --seed 3 --max-rounds 5 --out "$WORK/failing"
expect_rc 4
grep -E "refbench: error: cell [a-z0-9-]+: the candidate command exited with code 3 in (warm-up|round [0-9]+)" "$WORK/err" >/dev/null \
  || fail "ERROR not named with arm and round: $(cat "$WORK/err")"
expect_json "$WORK/failing/results.json" "r['verdict'] == 'error'"

repo=$(make_sample broken)
run_refbench run --repo "$repo" --baseline v1.0.0 --candidate main --out "$WORK/broken"
expect_rc 3
expect_in "$WORK/err" "refbench: error: the candidate build exited with code 2"
expect_in "$WORK/err" "  | "
grep -q "error" "$WORK/broken/logs/build-candidate.log" || fail "no compiler error in the build log"
[ ! -e "$WORK/broken/journal.jsonl" ] || fail "rounds started after a failed build"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left after a failed build"

repo=$(make_sample different)
run_refbench run --repo "$repo" --baseline v1.0.0 --candidate main --seed 4 --max-rounds 4 --out "$WORK/different"
expect_rc 4
expect_in "$WORK/err" "the arms did different work"
expect_json "$WORK/different/results.json" "next(c for c in r['cells'] if c['name'] == 'checksum-64KiB')['stop_reason'] == 'error'"
expect_json "$WORK/different/results.json" "next(c for c in r['cells'] if c['name'] == 'compute')['stop_reason'] != 'error'"
echo "ok: failing → 4, broken build → 3 before rounds, different output → ERROR"
