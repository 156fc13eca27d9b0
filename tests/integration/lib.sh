# Shared helpers of the integration scenarios. Each scenario sources this,
# gets $REFBENCH (the binary under test) and a private $WORK directory.
set -euo pipefail

: "${REFBENCH:?REFBENCH must name the refbench binary}"
FIXTURES="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)"
PY=/usr/bin/python3
WORK="$(mktemp -d "${TMPDIR:-/tmp}/refbench-it.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

skip() {
  echo "SKIP: $*" >&2
  exit 125
}

# Runs refbench with "$@", capturing stdout/stderr into $WORK/out, $WORK/err
# and the exit code into $RC; never fails by itself.
run_refbench() {
  set +e
  "$REFBENCH" "$@" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
}

expect_rc() {
  [ "$RC" -eq "$1" ] || fail "expected exit $1, got $RC; stderr: $(cat "$WORK/err")"
}

# Fails unless the file $1 contains the fixed string $2.
expect_in() {
  grep -qF -- "$2" "$1" || fail "expected '$2' in $1: $(cat "$1")"
}

# Compiles fixture $1 (tests/fixtures/$1.c) into $WORK/$1.
build_fixture() {
  cc -O2 -o "$WORK/$1" "$FIXTURES/$1.c" || fail "cannot compile fixture $1"
}

# Evaluates the Python expression $2 with `r` = the JSON file $1 loaded and
# `med(values)` available; prints the result.
json_eval() {
  "$PY" - "$1" "$2" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
med = statistics.median
def samples(cell, arm, key):
    c = next(c for c in r["cells"] if c["name"] == cell)
    return [s[key] for s in c["samples"] if s["arm"] == arm and not s["warmup"]]
print(eval(sys.argv[2]))
PY
}

# Fails unless the Python expression $2 over results file $1 is true.
expect_json() {
  local value
  value="$(json_eval "$1" "$2")" || fail "cannot evaluate $2 on $1"
  [ "$value" = "True" ] || fail "expected $2 on $1, got $value"
}

# Creates the sample repository with `variant` (scripts/make-sample-repo.sh)
# at $WORK/repo-<variant> and prints its path.
make_sample() {
  local dir="$WORK/repo-$1"
  "$(dirname "${BASH_SOURCE[0]}")/../../scripts/make-sample-repo.sh" "$dir" "$1" >/dev/null
  echo "$dir"
}

# The verdict of `cell`/`metric` in results file $1.
verdict_of() {
  json_eval "$1" "next(a['verdict'] for a in r['analysis'] if a['cell'] == '$2' and a['metric'] == '$3')"
}
