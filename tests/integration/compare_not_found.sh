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
echo "ok: not found → exit 3"
