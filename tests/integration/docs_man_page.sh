#!/usr/bin/env bash
# docs/refbench.1 is what refbench-man prints from the command line's
# definition today (else it is stale), it renders without a warning, and it
# describes the binary: a section for every command `refbench --help` lists
# and no other, in its order; every option of `refbench run --help` in the
# run section; every exit code of the --help footer under EXIT STATUS. Then
# broken copies of the page must fail each check.
source "$(dirname "$0")/lib.sh"

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PAGE="$ROOT/docs/refbench.1"
[ -f "$PAGE" ] || fail "docs/refbench.1 is missing: run cmake --build build --target man-page"

# Renders the roff file $1 as plain text on stdout (man's section headings
# at column 0, subsection headings at 3, option tags at 7), lines long
# enough that no tag or option name is broken; a warning from groff fails.
render() {
  if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -rLL=250n -P-c -P-b -P-u "$1" 2>"$WORK/groff.err" || fail "groff cannot render $1"
    [ ! -s "$WORK/groff.err" ] || fail "groff warns on $1: $(head -n 3 "$WORK/groff.err")"
  else
    MANWIDTH=250 man -l "$1" 2>/dev/null || fail "man -l cannot render $1"
  fi
}
command -v groff >/dev/null || command -v man >/dev/null || skip "neither groff nor man is installed (apt-get install groff-base)"

# The page is what refbench-man prints now (only where the build made it:
# scripts/test-static.sh runs the scenarios with the release binary alone).
# $1: the checked-in page.
check_fresh() {
  "$REFBENCH_MAN" >"$WORK/generated.1" || fail "refbench-man exited $?"
  cmp -s "$WORK/generated.1" "$1" || fail "docs/refbench.1 is stale: run cmake --build build --target man-page"
}

# What the binary's help lists: the commands, the options of `run` (each of
# their names), the exit codes of the footer.
"$REFBENCH" --help >"$WORK/help.txt" || fail "refbench --help exited $?"
"$REFBENCH" run --help >"$WORK/run-help.txt" || fail "refbench run --help exited $?"
awk '/^Subcommands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$WORK/help.txt" >"$WORK/commands"
awk '/^ +-/ { n = split($1, names, ","); for (i = 1; i <= n; i++) print names[i] }' "$WORK/run-help.txt" |
  grep -vxE -- '-h|--help' >"$WORK/run-options" || true # -h/--help: once, under COMMON OPTIONS
awk '/^Exit codes:$/ { on = 1; next } on && /^  [0-9]/ { print $1 }' "$WORK/help.txt" >"$WORK/exit-codes"
[ "$(wc -l <"$WORK/commands")" -ge 8 ] || fail "expected 8 or more commands in refbench --help: $(cat "$WORK/help.txt")"
[ "$(wc -l <"$WORK/run-options")" -ge 30 ] || fail "expected 30 or more options in refbench run --help: $(cat "$WORK/run-help.txt")"
[ "$(tr '\n' ' ' <"$WORK/exit-codes")" = "0 1 2 3 4 130 143 " ] ||
  fail "expected the exit codes 0 1 2 3 4 130 143 in the footer of refbench --help: $(cat "$WORK/help.txt")"

# Fails unless the rendered page $1 describes the binary (see the top).
check_rendered() {
  local text="$WORK/rendered.txt" name
  render "$1" >"$text"
  sed -n 's/^   refbench \([^ ]*\)$/\1/p' "$text" >"$WORK/sections"
  cmp -s "$WORK/commands" "$WORK/sections" ||
    fail "the man page's command sections ($(tr '\n' ' ' <"$WORK/sections")) are not refbench --help's commands ($(tr '\n' ' ' <"$WORK/commands"))"
  awk '/^   refbench run$/ { on = 1; next } /^   refbench |^[A-Z]/ { on = 0 } on' "$text" >"$WORK/run-section"
  while read -r name; do
    grep -qE -- "^ {7}(-[^ ,]+, )*$name(,| |$)" "$WORK/run-section" ||
      fail "refbench run --help has $name, the man page's section 'refbench run' does not"
  done <"$WORK/run-options"
  awk '/^EXIT STATUS$/ { on = 1; next } /^[A-Z]/ { on = 0 } on && /^       [0-9]+( |$)/ { print $1 }' "$text" >"$WORK/page-codes"
  cmp -s "$WORK/exit-codes" "$WORK/page-codes" ||
    fail "the man page's EXIT STATUS ($(tr '\n' ' ' <"$WORK/page-codes")) is not refbench --help's exit codes"
}

if [ -n "${REFBENCH_MAN:-}" ]; then
  check_fresh "$PAGE"
else
  echo "REFBENCH_MAN is not set: not checked against refbench-man, only against $REFBENCH"
fi
check_rendered "$PAGE"

# --- broken copies fail, each with its message ----------------------------
# Runs `$1 $2` in a subshell (fail exits it) and fails unless it failed with
# the fixed string $3.
expect_failure() {
  set +e
  ("$1" "$2") 2>"$WORK/broken.err"
  local rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "$1 passed $2, which is broken"
  expect_in "$WORK/broken.err" "$3"
}

# Writes $WORK/$1.1: the page with the lines matching the sed address $2 deleted.
broken_copy() {
  sed "$2d" "$PAGE" >"$WORK/$1.1"
  ! cmp -s "$PAGE" "$WORK/$1.1" || fail "$1: '$2' deletes nothing from docs/refbench.1"
}

if [ -n "${REFBENCH_MAN:-}" ]; then
  broken_copy edited '/^Print only the final table$/'
  expect_failure check_fresh "$WORK/edited.1" "docs/refbench.1 is stale: run cmake --build build --target man-page"
fi
broken_copy no_history '/^\.SS "refbench history"$/'
expect_failure check_rendered "$WORK/no_history.1" "are not refbench --help's commands"
broken_copy no_shard '/^\\fB\\-\\-shard\\fR/'
expect_failure check_rendered "$WORK/no_shard.1" "refbench run --help has --shard, the man page's section 'refbench run' does not"
broken_copy no_143 '/^\.B 143$/'
expect_failure check_rendered "$WORK/no_143.1" "is not refbench --help's exit codes"
if command -v groff >/dev/null; then
  printf '.TH X 1\n.SH NAME\n\\fBx\n.BOGUS\n' >"$WORK/bad_roff.1"
  expect_failure check_rendered "$WORK/bad_roff.1" "groff warns on"
fi

echo "ok"
