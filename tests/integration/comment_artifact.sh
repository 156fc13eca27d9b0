#!/usr/bin/env bash
# `refbench comment --from-artifact DIR` (docs/manual/github-actions.md), the fork-safe path of a
# workflow_run workflow: a valid comment.json is posted as the sticky
# comment; a PR number that is not an integer, a body without the marker,
# broken JSON, a file over 1 MiB, a workflow run for another head commit
# than the PR's, or a /refbench command (issue_comment) made on another PR is
# exit 2 with a message, and nothing is posted.
source "$(dirname "$0")/lib.sh"

export GITHUB_TOKEN="ghs_artifact${RANDOM}${RANDOM}"
export GITHUB_REPOSITORY=owner/name
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH SSL_CERT_FILE SSL_CERT_DIR
head_sha=3f1c0b6e9d2a4c8b7e5f1a0d9c8b7a6f5e4d3c2b
other_sha=9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d
write_fake_state "$WORK/state.json" "{\"pulls\": {\"7\": {\"base\": {\"ref\": \"main\", \"sha\": \"$(printf 'a%.0s' {1..40})\"},
  \"head\": {\"ref\": \"feature\", \"sha\": \"$head_sha\", \"repo\": \"someone/fork\"}}}}"
start_fake_github "$WORK/state.json"

# Writes DIR/comment.json ($1/comment.json) with the text $2.
artifact() {
  mkdir -p "$1"
  printf '%s' "$2" >"$1/comment.json"
}

# Runs --from-artifact $1 (with the environment words NAME=VALUE in $2...);
# the log mark of the call is in $mark.
from_artifact() {
  local dir="$1"
  shift
  mark=$(fake_log_mark)
  set +e
  env "$@" "$REFBENCH" comment --from-artifact "$dir" --cacert "$FAKE_CA" --max-wait 5s >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
}

# Fails unless the last call was refused (exit 2, a message naming $1) with
# no comment written.
expect_refused() {
  expect_rc 2
  expect_in "$WORK/err" "$1"
  expect_fake "[e for e in L if e['method'] not in ('GET', 'HEAD')] == []" "$mark"
  expect_fake "cs(7) == []"
}

# --- a valid comment.json: posted as it is
body='<!-- refbench -->\n## Report from the artifact\n\n| cell | verdict |\n|---|---|\n| a | PASS |\n'
artifact "$WORK/ok" "{\"pr\": 7, \"body\": \"$body\"}"
from_artifact "$WORK/ok"
expect_rc 0
expect_in "$WORK/out" "refbench: created comment https://github.com/owner/name/pull/7#issuecomment-"
expect_fake "len(cs(7)) == 1 and cs(7)[0]['body'].rstrip('\n') == json.loads(open('$WORK/ok/comment.json').read())['body'].rstrip('\n')"
expect_fake "[e['method'] for e in L if e['method'] != 'GET'] == ['POST']" "$mark"
fake_github_call POST /__control '{"comments": {}}' >/dev/null

# --- refused, nothing posted
artifact "$WORK/injected" "{\"pr\": \"12; rm -rf /\", \"body\": \"$body\"}"
from_artifact "$WORK/injected"
expect_refused "comment.json"
artifact "$WORK/fraction" "{\"pr\": 1.5, \"body\": \"$body\"}"
from_artifact "$WORK/fraction"
expect_refused "comment.json"
artifact "$WORK/no-pr" "{\"body\": \"$body\"}"
from_artifact "$WORK/no-pr"
expect_refused "comment.json"
artifact "$WORK/null-pr" "{\"pr\": null, \"body\": \"$body\"}"
from_artifact "$WORK/null-pr"
expect_refused "comment.json"
artifact "$WORK/no-marker" '{"pr": 7, "body": "## Report without the marker\n"}'
from_artifact "$WORK/no-marker"
expect_refused "comment.json"
artifact "$WORK/late-marker" '{"pr": 7, "body": "hello\n<!-- refbench -->\n"}'
from_artifact "$WORK/late-marker"
expect_refused "comment.json"
artifact "$WORK/broken" "{\"pr\": 7, \"body\": \"$body\""
from_artifact "$WORK/broken"
expect_refused "comment.json"
artifact "$WORK/not-object" '[7, "<!-- refbench -->\n"]'
from_artifact "$WORK/not-object"
expect_refused "comment.json"
mkdir -p "$WORK/empty"
from_artifact "$WORK/empty"
expect_refused "comment.json"
"$PY" - "$WORK/huge" <<'PY'
import json, os, sys
os.makedirs(sys.argv[1], exist_ok=True)
body = "<!-- refbench -->\n" + "x" * (1024 * 1024)
json.dump({"pr": 7, "body": body}, open(os.path.join(sys.argv[1], "comment.json"), "w"))
PY
[ "$(stat -c %s "$WORK/huge/comment.json")" -gt 1048576 ] || fail "the huge comment.json is not over 1 MiB"
from_artifact "$WORK/huge"
expect_refused "comment.json"

# --- a workflow_run for another commit than the PR's head: refused
printf '{"action": "completed", "workflow_run": {"event": "pull_request", "head_sha": "%s", "head_branch": "feature"}}\n' \
  "$other_sha" >"$WORK/event-other.json"
printf '{"action": "completed", "workflow_run": {"event": "pull_request", "head_sha": "%s", "head_branch": "feature"}}\n' \
  "$head_sha" >"$WORK/event-head.json"
from_artifact "$WORK/ok" GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH="$WORK/event-other.json"
expect_refused "comment.json names PR 7 whose head is ${head_sha:0:7}"
expect_in "$WORK/err" "but the workflow run was for ${other_sha:0:7}"
expect_fake "[e['path'] for e in L] == ['/repos/owner/name/pulls/7']" "$mark"

# --- the same with the PR's head: posted, then updated in place
from_artifact "$WORK/ok" GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH="$WORK/event-head.json"
expect_rc 0
expect_in "$WORK/out" "refbench: created comment https://github.com/owner/name/pull/7#issuecomment-"
expect_fake "'/repos/owner/name/pulls/7' in [e['path'] for e in L] and [e['method'] for e in L if e['method'] != 'GET'] == ['POST']" "$mark"
expect_fake "len(cs(7)) == 1"
artifact "$WORK/ok2" '{"pr": 7, "body": "<!-- refbench -->\n## Second report from the artifact\n"}'
from_artifact "$WORK/ok2" GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH="$WORK/event-head.json"
expect_rc 0
expect_in "$WORK/out" "refbench: updated comment https://github.com/owner/name/pull/7#issuecomment-"
expect_fake "len(cs(7)) == 1 and cs(7)[0]['body'].rstrip('\n') == '<!-- refbench -->\n## Second report from the artifact'"
expect_fake "[e['method'] for e in L if e['method'] != 'GET'] == ['PATCH']" "$mark"

# --- the /refbench commenter (an issue_comment job): the artifact must name
# the PR the command was made on
printf '{"action": "created", "issue": {"number": %s, "pull_request": {}}, "comment": {"body": "/refbench"}}\n' 8 \
  >"$WORK/command-8.json"
printf '{"action": "created", "issue": {"number": %s, "pull_request": {}}, "comment": {"body": "/refbench"}}\n' 7 \
  >"$WORK/command-7.json"
from_artifact "$WORK/ok2" GITHUB_EVENT_NAME=issue_comment GITHUB_EVENT_PATH="$WORK/command-8.json"
expect_rc 2
expect_in "$WORK/err" "comment.json names PR 7, but the /refbench command was made on 8"
expect_fake "L == []" "$mark" # nothing asked, nothing posted
from_artifact "$WORK/ok2" GITHUB_EVENT_NAME=issue_comment GITHUB_EVENT_PATH="$WORK/command-7.json"
expect_rc 0
expect_in "$WORK/out" "refbench: updated comment https://github.com/owner/name/pull/7#issuecomment-"
echo "comment_artifact: ok"
