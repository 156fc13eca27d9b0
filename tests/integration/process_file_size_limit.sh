#!/usr/bin/env bash
# A file-size limit (ulimit -f) hit while the journal is written ends the run
# with exit 4 and "out of disk space" (not SIGXFSZ), leaves only whole JSON
# lines in the journal and, for `run`, removes the worktrees.
source "$(dirname "$0")/lib.sh"

# Runs refbench under a file-size limit of $1 KiB with "${@:2}"; stderr goes
# through a pipe (not subject to the limit) into $WORK/err, the code into $RC.
run_limited() {
  local kib=$1
  shift
  set +e
  (ulimit -f "$kib" && exec "$REFBENCH" "$@") 2>&1 >/dev/null | cat >"$WORK/err"
  RC=${PIPESTATUS[0]}
  set -e
}

# Fails unless every line of the journal $1 is a whole JSON object.
expect_whole_lines() {
  "$PY" -c '
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert lines[-1] == b"", "the journal ends in half a line: %r" % lines[-1][-80:]
for line in lines[:-1]:
    json.loads(line)
print(len(lines) - 1)
' "$1" >"$WORK/lines" || fail "journal $1 has a partial or malformed line"
  [ "$(cat "$WORK/lines")" -gt 1 ] || fail "journal $1 has no sample line"
}

run_limited 16 compare -q --seed 1 --warmup 0 --min-rounds 400 --max-rounds 400 --out "$WORK/c" true true
expect_rc 4
expect_in "$WORK/err" "out of disk space"
expect_in "$WORK/err" "journal"
expect_whole_lines "$WORK/c/journal.jsonl"

# `run`: a repository whose build and cell write nothing
repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/refbench.toml" <<'TOML'
[build]
command = "true"

[run]
min_rounds = 400
max_rounds = 400

[[cell]]
name = "noop"
command = ["true"]
TOML
commit_two_refs "$repo"

run_limited 16 run -q --repo "$repo" --baseline HEAD~1 --candidate main --seed 1 --workdir "$WORK/wd" --out "$WORK/r"
expect_rc 4
expect_in "$WORK/err" "out of disk space"
expect_whole_lines "$WORK/r/journal.jsonl"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left behind: $(git -C "$repo" worktree list)"
echo "ok: a file-size limit → exit 4, out of disk space, whole journal lines, worktrees removed"
