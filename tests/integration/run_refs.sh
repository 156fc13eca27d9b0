#!/usr/bin/env bash
# Ref resolution and its refusals: exit 3 with one clear line, before any
# worktree exists; latest-release ordering; flattened directory names.
source "$(dirname "$0")/lib.sh"
repo=$(make_sample slower)
refused() { # expected-text args...
  local want="$1"
  shift
  run_refbench run --repo "$repo" --out "$WORK/o" "$@"
  expect_rc 3
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line for $*: $(cat "$WORK/err")"
  expect_in "$WORK/err" "$want"
  [ ! -e "$WORK/o/arms" ] || fail "a worktree directory was created for $*"
  [ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "a worktree was added for $*"
}
refused "are the same commit" --baseline main --candidate HEAD
refused "does not resolve" --baseline v9.9.9 --candidate main
refused "starts with '-'" --baseline=--output=/tmp/x --candidate main
refused "only one arm named: --candidate is missing" --baseline v1.0.0

# latest-release: version order, pre-releases excluded
git -C "$repo" tag v1.2.0 v1.0.0
git -C "$repo" tag v1.10.0-rc1 main
git -C "$repo" tag v1.2.0-beta main
run_refbench resolve --repo "$repo" latest-release main
expect_rc 0
[ "$(cut -f2 <"$WORK/out" | head -1)" = "$(git -C "$repo" rev-parse v1.2.0^{commit})" ] || fail "latest-release: $(cat "$WORK/out")"
expect_in "$WORK/out" "latest-release	"
# a slashed branch gets a flattened directory name
git -C "$repo" branch feat/x main
sha=$(git -C "$repo" rev-parse feat/x)
run_refbench resolve --repo "$repo" feat/x
expect_rc 0
[ "$(cat "$WORK/out")" = "feat/x	$sha	feat--x-${sha:0:12}" ] || fail "resolve feat/x: $(cat "$WORK/out")"
# no release tags at all
bare="$WORK/bare"
git init -q -b main "$bare"
git -C "$bare" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
run_refbench resolve --repo "$bare" latest-release
expect_rc 3
expect_in "$WORK/err" "no release tags"
echo "ok: refusals exit 3 before any worktree; latest-release and directory names"
