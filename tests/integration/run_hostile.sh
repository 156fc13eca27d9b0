#!/usr/bin/env bash
# Hostile code and data, round two (docs/manual/security.md): what a pull
# request's cells print or leave at {output}, numbers in its config, a
# tampered results.json, an event file that never ends, a [history] dir
# outside the checkout and links planted under compare's --out each give a
# one-line error with the exit code of docs/manual/commands.md#exit-codes and lose nothing; a command
# that stops the launcher ends the run in seconds.
source "$(dirname "$0")/lib.sh"

repo="$WORK/repo"
mkdir -p "$repo"
# a JSON document nested 100 000 levels deep, on the last line of stdout or in {output}
cat >"$repo/deep.py" <<'PY'
import sys
doc = '{"m": ' + '[' * 100000 + ']' * 100000 + '}'
if len(sys.argv) > 1:
    open(sys.argv[1], "w").write(doc)
else:
    print(doc)
PY
echo "[[cell]]" >"$repo/refbench.toml"
echo 'name = "x"' >>"$repo/refbench.toml"
echo 'command = ["true"]' >>"$repo/refbench.toml"
commit_two_refs "$repo"

# runs base main~1 vs main with config $1 into $WORK/o-<name of $1>
measure() {
  local name
  name=$(basename "$1" .toml)
  run_refbench run --repo "$repo" -c "$1" --baseline main~1 --candidate main --out "$WORK/o-$name" --replicas 1 \
    --max-rounds 2 --min-rounds 2 --warmup 0 --isolate off --color never "${@:2}"
}
config() { # $1: name, stdin: the config
  cat >"$WORK/$1.toml"
  echo "$WORK/$1.toml"
}
config_of_x() { # $1: name, stdin: the tables before one trivial cell "x"
  { cat; printf '\n[[cell]]\nname = "x"\ncommand = ["true"]\n'; } | config "$1"
}

# --- deep JSON on stdout, as a BMF value and in {output}: the cell is an ERROR, the run ends whole
for from in stdout bmf file; do
  case $from in
  stdout) cmd='["/usr/bin/python3", "{arm}/deep.py"]' metric='from = "stdout"' ;;
  bmf) cmd='["/usr/bin/python3", "{arm}/deep.py"]' metric='from = "stdout"
format = "bmf"
key = "m/latency"' ;;
  file) cmd='["/usr/bin/python3", "{arm}/deep.py", "{output}"]' metric='from = "file"' ;;
  esac
  cfg=$(config "deep-$from" <<TOML
[[cell]]
name = "deep"
command = $cmd
[[cell.metric]]
name = "m"
$metric
TOML
  )
  measure "$cfg"
  expect_rc 4
  expect_in "$WORK/err" "nested deeper than 128 levels"
  expect_json "$WORK/o-deep-$from/results.json" "all(a['verdict'] == 'ERROR' for a in r['analysis'])"
  [ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left: $(git -C "$repo" worktree list)"
done

# --- {output} a FIFO nobody writes, or a link to /dev/zero: refused at once, no hang, no memory blown
for plant in 'mkfifo {output}' 'ln -s /dev/zero {output}'; do
  cfg=$(config plant <<TOML
[[cell]]
name = "plant"
command = "$plant"
[[cell.metric]]
name = "m"
from = "file"
TOML
  )
  start=$SECONDS
  measure "$cfg"
  expect_rc 4
  expect_in "$WORK/err" "wrote no readable {output} file"
  [ $((SECONDS - start)) -lt 30 ] || fail "a planted {output} held the run for $((SECONDS - start)) s"
done

# --- integers beyond 2^53 (and a float that overflows) in the config are config errors, exit 2
for line in 'alpha = 9007199254740993' 'precision = 1e999' 'threshold = 18446744073709551616'; do
  cfg=$(config_of_x big <<TOML
[run]
$line
TOML
  )
  measure "$cfg"
  expect_rc 2
  expect_in "$WORK/err" "big.toml:2:"
done

# --- a [history] dir outside the checkout and --out is appended to only when --history says so
cfg=$(config_of_x outside <<TOML
[history]
dir = "$WORK/elsewhere"
TOML
)
measure "$cfg"
expect_rc 2
expect_in "$WORK/err" "is outside the repository's checkout and --out"
expect_in "$WORK/err" "pass --history $WORK/elsewhere"
[ ! -e "$WORK/elsewhere" ] || fail "the history was written outside: $(ls -R "$WORK/elsewhere")"
measure "$cfg" --history "$WORK/elsewhere" --allow-same-commit
[ "$RC" -le 1 ] || fail "an explicit --history was refused (exit $RC): $(cat "$WORK/err")"
[ -s "$WORK/elsewhere/history.jsonl" ] || fail "--history did not append"

# --- a history line whose machine is not strings is skipped with a warning, the rest is read (a null
# cpu_model is read as absent)
"$PY" - "$WORK/elsewhere/history.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
bad = json.loads(lines[0]); bad["machine"]["cpu_model"] = 42; bad["run_id"] = "f" * 16
open(sys.argv[1], "a").write(json.dumps(bad) + "\n")
PY
run_refbench history "$WORK/elsewhere"
# the one run is `true` against `true` in 2 rounds: what its window says is not what this checks
[ "$RC" -le 1 ] || fail "history of a line it skips exited $RC: $(cat "$WORK/err")"
expect_in "$WORK/err" "skipped, \"machine\" is not an object of strings"
expect_in "$WORK/out" "| x | wall | 1 |"

# --- report: a results.json whose stored verdicts disagree with its rows, or with no rows, is refused
good="$WORK/o-outside/results.json"
"$PY" - "$good" "$WORK/tampered.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["verdict"] = "REGRESSION"
json.dump(r, open(sys.argv[2], "w"))
PY
run_refbench report "$WORK/tampered.json"
expect_rc 2
expect_in "$WORK/err" "tampered.json"
echo '{"schema_version":1}' >"$WORK/empty.json"
run_refbench report "$WORK/empty.json"
expect_rc 2

# --- an event file that never ends (/dev/zero) or a base sha that is not hex: exit 2, one line
GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH=/dev/zero GITHUB_REPOSITORY=o/r GITHUB_SHA=$(git -C "$repo" rev-parse main) \
  measure "$WORK/outside.toml" --github
expect_rc 2
expect_in "$WORK/err" "/dev/zero"
"$PY" - "$WORK/event.json" <<'PY'
import json, sys
json.dump({"pull_request": {"number": 1, "base": {"sha": "main@{upstream}", "ref": "main"},
                            "head": {"sha": "a" * 40, "ref": "feat"}}}, open(sys.argv[1], "w"))
PY
GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$WORK/event.json" GITHUB_REPOSITORY=o/r \
  GITHUB_SHA=$(git -C "$repo" rev-parse main) measure "$WORK/outside.toml" --github
expect_rc 2
expect_in "$WORK/err" "main@{upstream}"

# --- compare --replicas never writes through a link planted at <out>/arms or <out>/replicas
for planted in arms replicas; do
  mkdir -p "$WORK/c-$planted" "$WORK/target-$planted"
  ln -s "$WORK/target-$planted" "$WORK/c-$planted/$planted"
  run_refbench compare --replicas 2 --max-rounds 2 --min-rounds 2 --out "$WORK/c-$planted" 'true' 'true'
  expect_rc 3
  expect_in "$WORK/err" "$planted is not a directory of its own"
  [ -z "$(ls "$WORK/target-$planted")" ] || fail "compare wrote through the planted $planted link"
done
# --- a benchmarked command that stops the launcher (its parent) with SIGSTOP: unboxed, exit 4 in
# seconds, not a hang; in the box (docs/manual/security.md) the signal never arrives
if unshare -p -m -f true 2>/dev/null || unshare -r -p -m -f true 2>/dev/null; then
  run_refbench compare --shell --max-rounds 2 --min-rounds 2 --warmup 0 --out "$WORK/stop-boxed" --sandbox required \
    'kill -STOP $PPID; true' 'true'
  [ "$RC" -le 1 ] || fail "a boxed command stopped the launcher: exit $RC: $(cat "$WORK/err")"
fi
start=$SECONDS
run_refbench compare --shell --max-rounds 2 --min-rounds 2 --warmup 0 --out "$WORK/stop" --sandbox off \
  'kill -STOP $PPID; true' 'true'
expect_rc 4
expect_in "$WORK/err" "was stopped (SIGSTOP)"
[ $((SECONDS - start)) -lt 30 ] || fail "a stopped launcher held compare for $((SECONDS - start)) s"
[ -s "$WORK/stop/journal.jsonl" ] || fail "the journal is lost"
echo "ok"
