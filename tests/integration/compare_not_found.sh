#!/usr/bin/env bash
# A command that cannot be started is refused before measuring: exit 3.
source "$(dirname "$0")/lib.sh"
run_refbench compare --out "$WORK/o" "refbench-no-such-command --x" true
expect_rc 3
expect_in "$WORK/err" "refbench: error: baseline command cannot be started: \`refbench-no-such-command\` is not an executable file on PATH"
printf 'just text\n' >"$WORK/data.txt"
chmod 644 "$WORK/data.txt"
run_refbench compare --out "$WORK/o" true "$WORK/data.txt"
expect_rc 3
expect_in "$WORK/err" "candidate command cannot be started"
[ ! -e "$WORK/o" ] || fail "a refused run created its output directory"
# executable but not a program: the kernel refuses it at exec time
printf '\x01\x02garbage\n' >"$WORK/garbage"
chmod 755 "$WORK/garbage"
run_refbench compare --out "$WORK/o2" "$WORK/garbage" true
expect_rc 3
expect_in "$WORK/err" "refbench: error: baseline command could not be started: Exec format error"
# the run stopped at once instead of measuring the A/A control to the end
expect_json "$WORK/o2/results.json" "sum(len(c['samples']) for c in r['cells']) <= 4"
expect_json "$WORK/o2/results.json" "sorted(c['stop_reason'] for c in r['cells']) == ['aborted', 'error']"
echo "ok: not found → exit 3"
