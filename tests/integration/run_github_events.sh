#!/usr/bin/env bash
# refbench run --github on a real git repository, for the events besides
# pull_request (run_github.sh): workflow_dispatch inputs, schedule →
# latest-release vs default-branch, /refbench BASE CAND, `/refbench` alone
# through the local HTTPS GitHub API; flags win over the event; malformed
# or untrusted events are refused before anything is built. Runs of three
# rounds whose refs and files are checked, never their verdicts.
source "$(dirname "$0")/lib.sh"
github_sample

# workflow_dispatch: the inputs; flags win over them
cat >"$WORK/dispatch.json" <<'JSON'
{"ref": "refs/heads/main", "inputs": {"baseline-ref": "v1.0.0", "candidate-ref": "v1.1.0-rc1"}}
JSON
github_run workflow_dispatch "$WORK/dispatch.json" dispatch --max-rounds 3 --min-rounds 3
[ "$RC" -le 1 ] || fail "dispatch: exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/dispatch/results.json" "r['arms']['baseline']['ref'] == 'v1.0.0' and r['arms']['candidate']['ref'] == 'v1.1.0-rc1'"
[ ! -e "$WORK/dispatch/comment.json" ] || fail "a dispatch run is not a PR: no comment.json"
github_run workflow_dispatch "$WORK/dispatch.json" flags --max-rounds 3 --min-rounds 3 --candidate main
expect_json "$WORK/flags/results.json" "r['arms']['baseline']['ref'] == 'v1.0.0' and r['arms']['candidate']['ref'] == 'main'"
# without inputs: latest-release vs the dispatched commit
echo '{"ref": "refs/heads/main", "inputs": {}}' >"$WORK/dispatch-empty.json"
github_run workflow_dispatch "$WORK/dispatch-empty.json" dispatch-empty --max-rounds 3 --min-rounds 3
expect_json "$WORK/dispatch-empty/results.json" "r['arms']['baseline']['name'] == 'v1.0.0' and r['arms']['candidate']['sha'] == '$head_sha'"

# schedule: latest-release vs default-branch
echo '{"schedule": "17 3 * * *"}' >"$WORK/schedule.json"
github_run schedule "$WORK/schedule.json" schedule --max-rounds 3 --min-rounds 3
expect_json "$WORK/schedule/results.json" "r['arms']['baseline']['ref'] == 'latest-release' and r['arms']['baseline']['name'] == 'v1.0.0'"
expect_json "$WORK/schedule/results.json" "r['arms']['candidate']['ref'] == 'default-branch' and r['arms']['candidate']['sha'] == '$head_sha'"

# issue_comment with explicit refs needs no API call
cat >"$WORK/comment.json" <<'JSON'
{"action": "created", "issue": {"number": 9, "pull_request": {"url": "https://api.github.com/repos/o/r/pulls/9"}},
 "comment": {"body": "/refbench v1.0.0 main\nplease", "author_association": "MEMBER"}}
JSON
github_run issue_comment "$WORK/comment.json" comment --max-rounds 3 --min-rounds 3
[ "$RC" -le 1 ] || fail "issue_comment: exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/comment/results.json" "r['arms']['baseline']['ref'] == 'v1.0.0' and r['arms']['candidate']['ref'] == 'main'"
expect_json "$WORK/comment/comment.json" "r['pr'] == 9"

# issue_comment `/refbench` alone: the PR's refs come from GET /pulls/9 on
# the local HTTPS GitHub API (merge base of its base and head vs its head)
export GITHUB_TOKEN="ghs_run_github_$RANDOM$RANDOM" GITHUB_REPOSITORY=owner/name
write_fake_state "$WORK/state.json" \
  "{\"pulls\": {\"9\": {\"base\": {\"ref\": \"release\", \"sha\": \"$base_sha\"}, \"head\": {\"ref\": \"feat/slower\", \"sha\": \"$head_sha\"}}}}"
start_fake_github "$WORK/state.json"
sed 's|/refbench v1.0.0 main|/refbench|' "$WORK/comment.json" >"$WORK/comment-pr.json"
SSL_CERT_FILE="$FAKE_CA" github_run issue_comment "$WORK/comment-pr.json" comment-pr --max-rounds 3 --min-rounds 3
[ "$RC" -le 1 ] || fail "issue_comment /refbench: exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/comment-pr/results.json" "r['arms']['baseline']['sha'] == '$fork_sha' and r['arms']['candidate']['sha'] == '$head_sha'"
expect_json "$WORK/comment-pr/results.json" "r['arms']['baseline']['name'] == 'release' and r['arms']['candidate']['name'] == 'feat/slower'"
expect_json "$WORK/comment-pr/comment.json" "r['pr'] == 9"
expect_fake "[(e['method'], e['path']) for e in L] == [('GET', '/repos/owner/name/pulls/9')]"
# an unknown PR: exit 2 naming the API call, nothing built
sed 's|"number": 9|"number": 404|' "$WORK/comment-pr.json" >"$WORK/comment-404.json"
SSL_CERT_FILE="$FAKE_CA" github_run issue_comment "$WORK/comment-404.json" comment-404 --max-rounds 3
expect_rc 2
expect_in "$WORK/err" "GitHub API GET /repos/owner/name/pulls/404: HTTP 404"
[ ! -e "$WORK/comment-404/arms" ] || fail "a worktree directory was created for an unknown PR"
! grep -rqF "$GITHUB_TOKEN" "$WORK/out" "$WORK/err" "$WORK/comment-pr" "$WORK/comment-pr.gh" || fail "the token leaked"
unset GITHUB_TOKEN GITHUB_REPOSITORY

# `/refbench` whose commits the accepting job pinned: the refs come as flags,
# and the step has no token, so nothing is looked up
github_run issue_comment "$WORK/comment-pr.json" pinned --max-rounds 3 --min-rounds 3 \
  --baseline "$fork_sha" --candidate "$head_sha"
[ "$RC" -le 1 ] || fail "pinned /refbench: exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/pinned/results.json" "r['arms']['baseline']['sha'] == '$fork_sha' and r['arms']['candidate']['sha'] == '$head_sha'"
expect_json "$WORK/pinned/comment.json" "r['pr'] == 9"

# refused before anything is built: one line, the exit code, no worktree
refused() { # rc expected-text event payload
  github_run "$3" "$4" refused --max-rounds 3
  expect_rc "$1"
  expect_in "$WORK/err" "$2"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line: $(cat "$WORK/err")"
  [ ! -e "$WORK/refused/arms" ] || fail "a worktree directory was created"
  [ ! -s "$WORK/refused.gh/output" ] || fail "outputs written for a refused run"
}
sed 's/MEMBER/NONE/' "$WORK/comment.json" >"$WORK/stranger.json"
refused 3 "without write access (NONE)" issue_comment "$WORK/stranger.json"
sed 's|, "pull_request": {[^}]*}||' "$WORK/comment.json" >"$WORK/issue.json"
grep -q pull_request "$WORK/issue.json" && fail "issue.json still names a pull request"
refused 3 "on an issue, not a pull request" issue_comment "$WORK/issue.json"
sed 's|/refbench v1.0.0 main|/refbench main|' "$WORK/comment.json" >"$WORK/one.json"
refused 3 "no refs or two" issue_comment "$WORK/one.json"
refused 3 "does not know the event 'push'" push "$WORK/schedule.json"
refused 2 "has no GITHUB_TOKEN" issue_comment "$WORK/comment-pr.json"
expect_in "$WORK/err" "--baseline and --candidate"
echo '{"pull_request": {"number": 7' >"$WORK/broken.json"
refused 2 "is not a JSON object" pull_request "$WORK/broken.json"
# pull_request_target builds the PR's code with a write token in reach: refused
# unless --allow-pull-request-target (then the fixture's commits, which
# this repository lacks, are the next refusal)
refused 3 "pull_request_target" pull_request_target "$FIXTURES/events/pull_request_target.json"
expect_in "$WORK/err" "--allow-pull-request-target"
expect_in "$WORK/err" "write token"
github_run pull_request_target "$FIXTURES/events/pull_request_target.json" refused --max-rounds 3 --allow-pull-request-target
expect_rc 3
expect_in "$WORK/err" "fetch-depth: 0"
! grep -q "pull_request_target" "$WORK/err" || fail "refused as pull_request_target despite the flag: $(cat "$WORK/err")"
echo '{"pull_request": {"number": 7, "base": {"sha": "'"$base_sha"'"}}}' >"$WORK/headless.json"
refused 2 "no head.sha in the pull request" pull_request "$WORK/headless.json"
# a pull request whose head commit the checkout lacks
pull_request_event "$(printf 'f%.0s' {1..40})" >"$WORK/unfetched.json"
refused 3 "fetch-depth: 0" pull_request "$WORK/unfetched.json"
set +e
env -u GITHUB_EVENT_NAME "$REFBENCH" run --github --repo "$repo" --out "$WORK/noevent" >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
expect_rc 2
expect_in "$WORK/err" "--github needs GITHUB_EVENT_NAME"
echo "ok: --github refs for workflow_dispatch, schedule, issue_comment; flags over the event; refusals"
