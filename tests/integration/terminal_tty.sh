#!/usr/bin/env bash
# The terminal experience: on a pseudo-terminal (util-linux `script`) a live
# progress line is redrawn in place and cleared before a coloured table;
# NO_COLOR drops the colours but not the line; redirected to files there is
# not one escape byte and exactly one plain line per round; -q prints only
# the table; --color always colours a table that goes to a file.
source "$(dirname "$0")/lib.sh"

command -v script >/dev/null || skip "no script(1) to run refbench on a pseudo-terminal"
script --version 2>/dev/null | grep -q util-linux || skip "script(1) is not the util-linux one"

# --isolate off: on a small machine `auto` adds its warning line to stderr
ARGS=(compare --max-rounds 6 --min-rounds 6 --budget 30s --isolate off --out "$WORK/o" 'sleep 0.05' 'sleep 0.05')

# Runs refbench with "$@" (environment assignments first, via env) on a
# pseudo-terminal; the terminal's bytes end up in $WORK/typescript.
on_pty() {
  local cmd
  printf -v cmd '%q ' env -u NO_COLOR TERM=xterm "$@"
  rm -f "$WORK/typescript"
  set +e
  SHELL=/bin/bash script -q -e -c "$cmd" "$WORK/typescript" </dev/null >/dev/null 2>&1
  RC=$?
  set -e
}

# Checks the Python condition $2 on the bytes `t` of file $1; fails with $3.
expect_bytes() {
  "$PY" - "$1" "$2" <<'PY' || fail "$3: $(cat -v "$1")"
import re, sys
t = open(sys.argv[1], "rb").read()
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

CLEAR='b"\r\x1b[2K"'
# the table starts right after the last clear: the progress line is gone
# (and nothing was drawn after it)
CLEARED_BEFORE_TABLE='t.index(b"| cell | metric") == t.rindex(b"\r\x1b[2K") + 5'
COLOURED_WALL='re.search(rb"\| compare \| wall \|[^\n]*\| \x1b\[(31|32|33|2)m[A-Z]+\x1b\[0m \|\r?\n", t)'

# --- a terminal, --color auto -------------------------------------------------
on_pty "$REFBENCH" "${ARGS[@]}"
expect_rc 0
T="$WORK/typescript"
expect_bytes "$T" "$CLEAR + b\"refbench: compare (\" in t" "no live progress line"
expect_bytes "$T" "re.search(rb\"\r\x1b\[2Krefbench: [a-z-]+ \((baseline|candidate)\) \xc2\xb7 round 3/6 \xc2\xb7 0:\d\d of 0:30\", t)" \
  "no 'round 3/6' progress line redrawn in place"
expect_bytes "$T" "b\"warm-up\" in t and b\"ends in ~\" in t" "no warm-up or estimated end on the progress line"
# (a line of its own after the rounds, such as the warning that max_rounds
# stopped an INCONCLUSIVE cell on a noisy machine, is not progress)
expect_bytes "$T" "b\"\nrefbench: round \" not in t and not re.search(rb\"\nrefbench: [a-z-]+ \((baseline|candidate)\)\", t)" \
  "progress went line by line on a terminal"
expect_bytes "$T" "$CLEARED_BEFORE_TABLE" "the progress line was not cleared before the table"
expect_bytes "$T" "$COLOURED_WALL" "the verdict is not coloured on a terminal"

# --- a terminal with NO_COLOR: the line stays, the colours go ----------------------
on_pty NO_COLOR=1 "$REFBENCH" "${ARGS[@]}"
expect_rc 0
expect_bytes "$T" "b\" \xc2\xb7 round 3/6 \xc2\xb7 \" in t and $CLEAR in t" "NO_COLOR removed the progress line"
expect_bytes "$T" "$CLEARED_BEFORE_TABLE" "the progress line was not cleared before the table (NO_COLOR)"
expect_bytes "$T" "b\"\x1b\" not in t[t.index(b\"| cell | metric\"):]" "NO_COLOR=1 still coloured the table"

# --- a terminal with -q: only the table ------------------------------------------------
on_pty "$REFBENCH" -q "${ARGS[@]}"
expect_rc 0
expect_bytes "$T" "$CLEAR not in t and b\"refbench: \" not in t.split(b\"\n\", 1)[1]" "-q drew a progress line"
expect_bytes "$T" "$COLOURED_WALL" "-q lost the colours on a terminal"

# --- a terminal, interrupted: the line is cleared before the partial table --------------
printf -v cmd '%q ' env -u NO_COLOR TERM=xterm "$REFBENCH" compare --max-rounds 200 --min-rounds 200 --budget 60s \
  --out "$WORK/o" 'sleep 0.05' 'sleep 0.05'
rm -f "$T"
SHELL=/bin/bash script -q -e -f -c "echo \$\$ >$(printf %q "$WORK/pid"); exec $cmd" "$T" </dev/null >/dev/null 2>&1 &
SCRIPT_PID=$!
for _ in $(seq 100); do
  grep -q "round 3/200" "$T" 2>/dev/null && break
  sleep 0.1
done
grep -q "round 3/200" "$T" || fail "no progress before the interrupt: $(cat -v "$T")"
kill -INT "$(cat "$WORK/pid")"
set +e
wait "$SCRIPT_PID"
RC=$?
set -e
expect_rc 130
expect_bytes "$T" "$CLEARED_BEFORE_TABLE" "the progress line was not cleared after an interrupt"
expect_bytes "$T" "b\"\r\nrefbench: error: \" in t" "the interrupt message does not start on its own line"

# --- files: no escape byte, one plain line per round ---------------------------------------
run_refbench "${ARGS[@]}"
expect_rc 0
expect_bytes "$WORK/out" "b\"\x1b\" not in t" "an escape byte on stdout without a terminal"
expect_bytes "$WORK/err" "b\"\x1b\" not in t and b\"\r\" not in t" "an escape byte on stderr without a terminal"
[ "$(grep -c '^refbench: round [1-6]/6: [0-9] cell(s) active, 0:[0-9][0-9] of 0:30 budget, ends ' "$WORK/err")" -eq 6 ] \
  || fail "expected 6 progress lines: $(cat "$WORK/err")"
# (on a loaded machine the A/A's floor can leave the cell INCONCLUSIVE at
# max_rounds, and a warning says so: the one other line allowed)
[ -z "$(grep -v -e '^refbench: round [1-6]/6: ' -e '^refbench: warning: max_rounds = 6 stopped compare ' "$WORK/err")" ] ||
  fail "expected nothing but the 6 progress lines on stderr: $(cat "$WORK/err")"
for round in 1 2 3 4 5 6; do
  [ "$(sed -n "${round}p" "$WORK/err" | cut -d: -f2)" = " round $round/6" ] || fail "round $round out of order: $(cat "$WORK/err")"
done
expect_in "$WORK/err" "refbench: round 6/6: 0 cell(s) active"
expect_in "$WORK/out" "| compare | wall |"

# --- files with -q: the table on stdout, nothing else ---------------------------------------
run_refbench -q "${ARGS[@]}"
expect_rc 0
[ ! -s "$WORK/err" ] || fail "-q printed on stderr: $(cat "$WORK/err")"
[ "$(head -1 "$WORK/out")" = "| cell | metric | baseline | candidate | ratio (95% CI) | p (BH) | n | verdict |" ] \
  || fail "-q: stdout does not start with the table: $(cat "$WORK/out")"
[ "$(grep -vc '^|' "$WORK/out")" -eq 0 ] || fail "-q printed more than the table: $(cat "$WORK/out")"
[ "$(wc -l <"$WORK/out")" -eq 8 ] || fail "-q: expected 2 header lines and 6 rows: $(cat "$WORK/out")"

# --- files with --color always: a coloured table, a plain stderr --------------------------
run_refbench --color always "${ARGS[@]}"
expect_rc 0
expect_bytes "$WORK/out" "$COLOURED_WALL" "--color always did not colour the table"
expect_bytes "$WORK/err" "b\"\x1b\" not in t" "--color always put escapes in the plain progress lines"

# --- --color never on a terminal: the line, no colours ------------------------------------
on_pty "$REFBENCH" --color never "${ARGS[@]}"
expect_rc 0
expect_bytes "$T" "$CLEAR in t and b\"\x1b\" not in t[t.index(b\"| cell | metric\"):]" "--color never coloured the table"

# --- TERM=dumb: a terminal that cannot erase gets the plain lines and no colour -------------
on_pty TERM=dumb "$REFBENCH" "${ARGS[@]}"
expect_rc 0
expect_bytes "$T" "b\"\x1b\" not in t and t.count(b\"refbench: round \") == 6" "TERM=dumb got escapes or not 6 plain lines"
echo "ok"
