#!/usr/bin/env bash
# Bad flags and values: one clear line on stderr, exit 2, nothing measured.
source "$(dirname "$0")/lib.sh"
check() { # expected-substring args...
  local want="$1"
  shift
  run_refbench "$@"
  expect_rc 2
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line for $*: $(cat "$WORK/err")"
  expect_in "$WORK/err" "refbench: error: "
  expect_in "$WORK/err" "$want"
}
cd "$WORK"
check "--frobnicate" compare --frobnicate true true
check "invalid duration '5 parsecs'" compare --budget "5 parsecs" true true
check "invalid duration '-1s'" compare --timeout -1s true true
check "--budget must be greater than 0" compare --budget 0 true true
check "--max-rounds must be at least 1" compare --max-rounds 0 true true
check "--min-rounds must be between 1 and --max-rounds (5), got 9" compare --max-rounds 5 --min-rounds 9 true true
check "--threshold must be a ratio above 1" compare --threshold 0.9 true true
check "unknown metric 'speed'" compare --metric wall,speed true true
check "--gate rss is not among the shown metrics" compare --metric wall --gate rss true true
check "uses shell syntax ('|')" compare "yes | head -1" true
check "pass --shell" compare true "echo \$HOME"
check "unterminated single quote" compare "echo 'x" true
check "candidate" compare true
check "A subcommand is required" --quiet
check "unknown command 'bissect' — run refbench --help for the commands" bissect HEAD~3 HEAD
check "unknown command 'bissect' — run refbench --help for the commands" --quiet --color never bissect
[ ! -e "$WORK/refbench-out" ] || fail "a usage error created the output directory"
echo "ok: usage errors exit 2 with one line"
