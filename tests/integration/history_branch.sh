#!/usr/bin/env bash
# scripts/history-branch.sh (docs/manual/history.md, the Action's
# history-branch and the history sub-action) against a real git origin:
# the first night starts the branch (holding nothing but the history), the
# next appends; when another job pushes between the fetch and the push, the
# publisher starts again from what it pushed and both nights land; nothing
# new is no commit; a bad branch name is refused.
source "$(dirname "$0")/lib.sh"
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/history-branch.sh"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git init -q --bare "$WORK/origin.git"
git_in "$WORK" clone -q "$WORK/origin.git" code 2>/dev/null
echo code >"$WORK/code/code"
git_in "$WORK/code" add -A
git_in "$WORK/code" commit -q -m code
git_in "$WORK/code" push -q origin HEAD:main
line() { printf '{"schema_version": 1, "run_id": "%s"}\n' "$1"; }
# a publishing job: a fresh repository whose origin is the repository, no checkout
publisher() {
  rm -rf "$WORK/pub"
  git init -q "$WORK/pub"
  git -C "$WORK/pub" remote add origin "$WORK/origin.git"
}
published() { git --git-dir="$WORK/origin.git" show "refbench-history:$1"; }

# night 1: the benchmark job finds no history; the publishing job starts the branch
(cd "$WORK/code" && "$script" checkout refbench-history "$WORK/night1") 2>"$WORK/err" || fail "checkout: $(cat "$WORK/err")"
expect_in "$WORK/err" "no branch refbench-history on origin yet"
line night1 >>"$WORK/night1/history.jsonl"
echo '<html>1</html>' >"$WORK/night1/history.html"
publisher
(cd "$WORK/pub" && "$script" publish refbench-history "$WORK/night1" "night 1") 2>"$WORK/err" ||
  fail "publish: $(cat "$WORK/err")"
[ "$(published history.jsonl)" = "$(line night1)" ] || fail "origin's history: $(published history.jsonl)"
[ "$(published history.html)" = "<html>1</html>" ] || fail "no history.html"
[ "$(published .gitattributes)" = "history.jsonl merge=union" ] || fail "no union merge for history.jsonl"
! published code >/dev/null 2>&1 || fail "the branch carries the code"

# night 2: the benchmark job reads the branch as fetched; meanwhile another job appends
git_in "$WORK/code" fetch -q origin
(cd "$WORK/code" && "$script" checkout refbench-history "$WORK/night2") 2>/dev/null
[ "$(cat "$WORK/night2/history.jsonl")" = "$(line night1)" ] || fail "night 2 does not start from night 1"
line night2 >>"$WORK/night2/history.jsonl"
publisher
# the other job pushes right before this publisher's first push
git_in "$WORK" clone -q -b refbench-history "$WORK/origin.git" other 2>/dev/null
mkdir -p "$WORK/pub/.git/hooks"
cat >"$WORK/pub/.git/hooks/pre-push" <<HOOK
#!/bin/sh
[ -e "$WORK/raced" ] && exit 0
touch "$WORK/raced"
cd "$WORK/other" && echo '$(line other)' >>history.jsonl && git -c user.name=o -c user.email=o@o commit -qam other && git push -q origin HEAD:refbench-history
HOOK
chmod +x "$WORK/pub/.git/hooks/pre-push"
(cd "$WORK/pub" && "$script" publish refbench-history "$WORK/night2") 2>"$WORK/err" ||
  fail "publish after a race: $(cat "$WORK/err")"
expect_in "$WORK/err" "push 1 refused"
[ "$(published history.jsonl | tr '\n' ' ')" = "$(line night1) $(line other) $(line night2) " ] ||
  fail "the history after the race: $(published history.jsonl)"

# the same history again: nothing new, no commit
before=$(git --git-dir="$WORK/origin.git" rev-parse refbench-history)
publisher
(cd "$WORK/pub" && "$script" publish refbench-history "$WORK/night2") 2>"$WORK/err" || fail "an empty publish failed"
expect_in "$WORK/err" "nothing new to publish"
[ "$(git --git-dir="$WORK/origin.git" rev-parse refbench-history)" = "$before" ] || fail "an empty publish committed"
# a bad branch name
! (cd "$WORK/code" && "$script" checkout '--upload-pack=x' "$WORK/bad") 2>"$WORK/err" || fail "a flag as a branch"
expect_in "$WORK/err" "is not a branch name"
echo "ok: the history branch is started, appended to, and both jobs' lines land when they race"
