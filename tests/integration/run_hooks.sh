#!/usr/bin/env bash
# Hooks (docs/manual/config.md#hooks) on real processes: setup once per arm before the
# warm-up, prepare before every invocation (untimed), cleanup once per arm at
# the end — also after a failing hook and after SIGINT; a failing hook is an
# ERROR (exit 4) naming it, in the report and from the journal; `run` runs a
# cell's hooks in each arm's directory with its env; a hook that is not a
# command is exit 2 with file:line:column.
source "$(dirname "$0")/lib.sh"
log="$WORK/hooks.log"

# --- compare: counts and order
run_refbench compare -q --shell --seed 3 --min-rounds 3 --max-rounds 3 --warmup 1 --out "$WORK/c1" \
  --setup "echo setup >>'$log'" --prepare "echo prepare >>'$log'" --cleanup "echo cleanup >>'$log'" \
  'echo run >>'"'$log'" 'echo run >>'"'$log'"
expect_rc 0
# 2 cells (compare and its A/A control) × 2 arms × (1 warm-up + 3 rounds) invocations
[ "$(grep -c '^setup$' "$log")" -eq 4 ] || fail "setup ran $(grep -c '^setup$' "$log") times, not 4"
[ "$(grep -c '^prepare$' "$log")" -eq 16 ] || fail "prepare ran $(grep -c '^prepare$' "$log") times, not 16"
[ "$(grep -c '^run$' "$log")" -eq 16 ] || fail "the commands ran $(grep -c '^run$' "$log") times, not 16"
[ "$(grep -c '^cleanup$' "$log")" -eq 4 ] || fail "cleanup ran $(grep -c '^cleanup$' "$log") times, not 4"
"$PY" - "$log" <<'PY' || fail "hooks out of order: $(tr '\n' ' ' <"$log")"
import sys
lines = open(sys.argv[1]).read().split()
# every run right after a prepare; setups before the first prepare; cleanups after the last run
assert all(lines[i - 1] == "prepare" for i, l in enumerate(lines) if l == "run")
assert max(i for i, l in enumerate(lines) if l == "setup") < lines.index("prepare")
assert min(i for i, l in enumerate(lines) if l == "cleanup") > max(i for i, l in enumerate(lines) if l == "run")
PY
expect_json "$WORK/c1/results.json" "\"--setup \" in r['reproduce'] and \"--cleanup \" in r['reproduce']"
# hook times are not in the measurements: the journal has them as "hook" lines
expect_json "$WORK/c1/results.json" "len([s for c in r['cells'] for s in c['samples']]) == 16"
[ "$(grep -c '"type":"hook"' "$WORK/c1/journal.jsonl")" -eq 24 ] || fail "expected 24 hook lines in the journal"

# --- a failing prepare: ERROR naming the hook, cleanup still runs
: >"$log"
run_refbench compare -q --shell --seed 3 --min-rounds 3 --max-rounds 3 --out "$WORK/c2" \
  --prepare 'echo "no database" >&2; exit 3' --cleanup "echo cleanup >>'$log'" true true
expect_rc 4
expect_in "$WORK/err" "refbench: error: cell compare: the baseline prepare hook exited with code 3 before its run in warm-up — fix the prepare hook"
expect_in "$WORK/err" "  | no database"
expect_in "$WORK/c2/report.md" "the baseline prepare hook failed before its run in warm-up: exited with code 3"
expect_json "$WORK/c2/results.json" "r['cells'][0]['failure']['hook'] == 'prepare'"
[ "$(grep -c '^cleanup$' "$log")" -eq 4 ] || fail "cleanup after a failing prepare ran $(grep -c '^cleanup$' "$log") times, not 4"
run_refbench report "$WORK/c2/journal.jsonl" --format json
expect_rc 4
cp "$WORK/out" "$WORK/c2-replay.json"
expect_json "$WORK/c2-replay.json" "r['analysis'][0]['error'] == 'the baseline prepare hook exited with code 3 before its run in warm-up'"

# --- a failing setup: the cell never runs its command
: >"$log"
run_refbench compare -q --shell --seed 3 --max-rounds 3 --no-control --out "$WORK/c3" \
  --setup 'exit 5' --cleanup "echo cleanup >>'$log'" "echo run >>'$log'" "echo run >>'$log'"
expect_rc 4
expect_in "$WORK/err" "the baseline setup hook exited with code 5 before warm-up"
[ "$(cat "$log")" = "$(printf 'cleanup\ncleanup')" ] || fail "after a failing setup: $(cat "$log")"

# --- SIGINT: cleanup runs after the interrupt, then exit 130
: >"$log"
"$REFBENCH" compare --shell --seed 6 --max-rounds 50 --no-control --out "$WORK/c4" \
  --cleanup "echo cleanup >>'$log'" 'sleep 0.3' 'sleep 0.3' >/dev/null 2>"$WORK/err" &
pid=$!
for _ in $(seq 100); do
  samples=$(grep -c '"type":"sample"' "$WORK/c4/journal.jsonl" 2>/dev/null) || samples=0
  [ "$samples" -ge 3 ] && break
  sleep 0.1
done
kill -INT "$pid"
set +e
wait "$pid"
RC=$?
set -e
expect_rc 130
[ "$(grep -c '^cleanup$' "$log")" -eq 2 ] || fail "cleanup after SIGINT ran $(grep -c '^cleanup$' "$log") times, not 2"

# --- run: hooks in each arm's directory, with the cell's env and {round}
repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/refbench.toml" <<TOML
[build]
command = "true"

[run]
min_rounds = 2
max_rounds = 2
control = false

[[cell]]
name = "db"
command = ["true"]
env = { HOOK_LOG = "$log" }
setup = "echo \"setup \$(pwd)\" >>\"\$HOOK_LOG\""
prepare = ["sh", "-c", "echo \"prepare \$1\" >>\"\$HOOK_LOG\"", "prepare", "{round}"]
cleanup = "echo \"cleanup \$(pwd)\" >>\"\$HOOK_LOG\""
TOML
commit_two_refs "$repo"
: >"$log"
run_refbench run -q --repo "$repo" --baseline main~1 --candidate main --seed 2 --out "$WORK/r1"
[ "$RC" -le 1 ] || fail "run with hooks exited $RC: $(cat "$WORK/err")"
dirs=$("$PY" -c "import json; r = json.load(open('$WORK/r1/results.json')); print(r['arms']['baseline']['dir'], r['arms']['candidate']['dir'])")
# {arm} points at one byte-identical replica of the arm at a time (<dir>.rN; docs/manual/measurement.md#replicas)
for d in $dirs; do
  grep -qxE "setup $d(\.r[0-9]+)?" "$log" || fail "no setup in $d: $(cat "$log")"
  grep -qxE "cleanup $d(\.r[0-9]+)?" "$log" || fail "no cleanup in $d: $(cat "$log")"
done
[ "$(grep -c '^setup ' "$log")" -eq 2 ] && [ "$(grep -c '^cleanup ' "$log")" -eq 2 ] || fail "hooks: $(cat "$log")"
[ "$(grep -c '^prepare 0$' "$log")" -eq 2 ] && [ "$(grep -c '^prepare 2$' "$log")" -eq 2 ] ||
  fail "prepare did not get {round}: $(cat "$log")"

# --- a hook that is not a command
printf '[[cell]]\nname = "x"\ncommand = "true"\nsetup = 3\n' >"$WORK/bad.toml"
run_refbench run --repo "$repo" -c "$WORK/bad.toml" --baseline main~1 --candidate main --out "$WORK/bad"
expect_rc 2
expect_in "$WORK/err" "bad.toml:4:9: cell.setup must be a string (run with /bin/sh -c) or a non-empty array (argv)"
echo "ok: setup, prepare and cleanup run when and where they should; a failing hook is an ERROR naming it"
