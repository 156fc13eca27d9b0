#!/usr/bin/env bash
# Keeps a refbench history (docs/manual/history.md) on a git branch of the
# repository, for the Action's `history-branch` input and the `history`
# sub-action.
#
#   history-branch.sh checkout BRANCH DIR    # DIR: a worktree of origin/BRANCH (empty when there is none)
#   history-branch.sh publish BRANCH FROM [MESSAGE]
#
# `checkout` uses origin/BRANCH as fetched (a checkout with fetch-depth: 0
# has it), fetching it only when it is not there. `publish` checks the
# branch out afresh, appends the lines of FROM/history.jsonl it lacks (in
# their order; lines are unique, so appending is a union), copies
# FROM/history.html when there is one, commits and pushes to origin
# BRANCH. When another job pushed first (non-fast-forward), it starts again
# from what that job pushed, up to 5 times: history.jsonl is append-only,
# so its lines are a union (also marked `merge=union` in the branch's
# .gitattributes, for people merging by hand). With GITHUB_TOKEN set, the token is handed to
# each fetch and push as a header (never written to .git/config).
#
# Run inside a git repository whose `origin` is the repository. Messages go
# to stderr.
set -euo pipefail

usage() {
  echo "usage: $0 checkout BRANCH DIR | publish BRANCH FROM [MESSAGE]" >&2
  exit 2
}
[ $# -ge 3 ] || usage
command="$1" branch="$2" dir="$3"
case "$branch" in
-* | '') echo "history-branch: '$branch' is not a branch name" >&2 && exit 2 ;;
esac
git check-ref-format --branch "$branch" >/dev/null 2>&1 || {
  echo "history-branch: '$branch' is not a branch name" >&2
  exit 2
}
identity=(-c user.name=refbench -c user.email=refbench@users.noreply.github.com)

# git with the token, for talking to origin only
remote_git() {
  if [ -n "${GITHUB_TOKEN:-}" ]; then
    local basic
    basic=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 | tr -d '\n')
    git -c "http.extraheader=AUTHORIZATION: basic $basic" "$@"
  else
    git "$@"
  fi
}

fetch_branch() { remote_git fetch --quiet origin "+refs/heads/$branch:refs/remotes/origin/$branch" 2>/dev/null; }

# A worktree of origin/$branch at $1 (fetched with `fresh`), or an empty one.
worktree_at() {
  local at="$1" fresh="$2"
  if { [ "$fresh" = fresh ] && fetch_branch; } ||
    git rev-parse --verify --quiet "refs/remotes/origin/$branch" >/dev/null || fetch_branch; then
    git worktree add --quiet --detach "$at" "origin/$branch"
    echo "history-branch: $at is origin/$branch ($(git -C "$at" rev-parse --short HEAD))" >&2
  else
    # a repository made for publishing (git init) has no commit to branch off yet
    git rev-parse --verify --quiet HEAD >/dev/null ||
      git "${identity[@]}" commit --quiet --allow-empty -m "refbench history: a place to start"
    git worktree add --quiet --detach "$at"
    git -C "$at" checkout --quiet --orphan "refbench-history-$$"
    git -C "$at" rm -rf --quiet . >/dev/null 2>&1 || true
    echo "history-branch: no branch $branch on origin yet; $at starts one" >&2
  fi
}

case "$command" in
checkout) worktree_at "$dir" cached ;;
publish)
  from="$dir"
  message="${4:-refbench history}"
  [ -f "$from/history.jsonl" ] || {
    echo "history-branch: no $from/history.jsonl to publish" >&2
    exit 1
  }
  work=$(mktemp -d)
  trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  for attempt in 1 2 3 4 5; do
    git worktree remove --force "$work/tree" >/dev/null 2>&1 || rm -rf "$work/tree"
    worktree_at "$work/tree" fresh
    (
      cd "$work/tree"
      touch history.jsonl
      # the lines this history lacks, in their order
      awk 'FILENAME == ARGV[1] { have[$0] = 1; next } !($0 in have) && NF { print; have[$0] = 1 }' history.jsonl \
        "$from/history.jsonl" >"$work/new"
      if [ -s history.jsonl ] && [ -n "$(tail -c 1 history.jsonl)" ]; then echo >>history.jsonl; fi
      cat "$work/new" >>history.jsonl
      [ ! -f "$from/history.html" ] || cp "$from/history.html" history.html
      grep -qx 'history.jsonl merge=union' .gitattributes 2>/dev/null || echo 'history.jsonl merge=union' >>.gitattributes
      git add .gitattributes history.jsonl
      [ ! -f history.html ] || git add history.html
    )
    if git -C "$work/tree" diff --cached --quiet; then
      echo "history-branch: nothing new to publish" >&2
      exit 0
    fi
    git -C "$work/tree" "${identity[@]}" commit --quiet -m "$message ($(wc -l <"$work/new") lines)"
    if (cd "$work/tree" && remote_git push --quiet origin "HEAD:refs/heads/$branch") 2>"$work/errors"; then
      echo "history-branch: pushed $(wc -l <"$work/new") lines to $branch" >&2
      exit 0
    fi
    # another job pushed first: start again from what it pushed
    echo "history-branch: push $attempt refused ($(head -1 "$work/errors")); trying again on the new origin/$branch" >&2
    sleep "$attempt"
  done
  echo "history-branch: gave up after 5 refused pushes" >&2
  exit 1
  ;;
*) usage ;;
esac
