#!/usr/bin/env bash
# The token never leaves GITHUB_TOKEN and the Authorization header (docs/manual/github-actions.md):
# after `refbench comment` succeeds, meets a 401, a TLS failure, a 502 it
# gives up on, and --from-artifact (posted and refused), the token is in no
# stdout, no stderr, no file under the scenario's directories (the working
# directory, TMPDIR, the step summary and outputs, the server's log and the
# comments it holds) — and the search is shown to find a planted copy.
source "$(dirname "$0")/lib.sh"

token="ghs_$("$PY" -c 'import secrets; print(secrets.token_hex(18))')"
export GITHUB_TOKEN="$token"
export GITHUB_REPOSITORY=owner/name
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH SSL_CERT_FILE SSL_CERT_DIR
# the state file names the token: it lives outside the searched directories
mkdir -p "$WORK/private" "$WORK/cwd" "$WORK/tmp" "$WORK/outputs" "$WORK/gh"
write_fake_state "$WORK/private/state.json"
start_fake_github "$WORK/private/state.json"
make_test_ca "$WORK/private/other-ca" "unrelated test CA"
export TMPDIR="$WORK/tmp" GITHUB_STEP_SUMMARY="$WORK/gh/summary.md" GITHUB_OUTPUT="$WORK/gh/output.txt"
touch "$GITHUB_STEP_SUMMARY" "$GITHUB_OUTPUT"
printf '%s\n' '<!-- refbench -->' '## Report' '' '| cell | verdict |' '|---|---|' '| a | PASS |' >"$WORK/cwd/report.md"
mkdir -p "$WORK/cwd/artifact" "$WORK/cwd/bad-artifact"
printf '{"pr": 7, "body": "<!-- refbench -->\\n## From the artifact\\n"}' >"$WORK/cwd/artifact/comment.json"
printf '{"pr": "7; echo", "body": "<!-- refbench -->\\n"}' >"$WORK/cwd/bad-artifact/comment.json"

n=0
# Runs refbench "$@" in $WORK/cwd, keeps its stdout and stderr under
# $WORK/outputs and fails unless it exits with $EXPECT.
secret_run() {
  n=$((n + 1))
  set +e
  (cd "$WORK/cwd" && "$REFBENCH" "$@") >"$WORK/outputs/$n.out" 2>"$WORK/outputs/$n.err"
  RC=$?
  set -e
  cp "$WORK/outputs/$n.err" "$WORK/err"
  expect_rc "$EXPECT"
}

EXPECT=0 secret_run comment --pr 7 --file report.md --cacert "$FAKE_CA"
EXPECT=0 secret_run comment --pr 7 --file report.md --cacert "$FAKE_CA" # the update
expect_fake "len(cs(7)) == 1 and [e['method'] for e in L if e['method'] != 'GET'] == ['POST', 'PATCH']"
# 401: the server now wants another token, refbench still sends this one
fake_github_call POST /__control '{"token": "ghs_someothertoken000000000000000000"}' >/dev/null
EXPECT=2 secret_run comment --pr 7 --file report.md --cacert "$FAKE_CA"
expect_fake "L[-1]['status'] == 401 and L[-1]['auth'] == 'invalid'"
fake_github_call POST /__control "{\"token\": \"$token\"}" >/dev/null
# TLS failures: an unrelated CA by flag and by environment
EXPECT=2 secret_run comment --pr 7 --file report.md --cacert "$WORK/private/other-ca/ca.pem" --max-wait 1s
SSL_CERT_FILE="$WORK/private/other-ca/ca.pem" EXPECT=2 secret_run comment --pr 7 --file report.md --max-wait 1s
# a 502 it gives up on
fake_github_faults '[{"match": "any", "status": 502, "times": "always"}]'
EXPECT=2 secret_run comment --pr 7 --file report.md --cacert "$FAKE_CA" --max-wait 1s
expect_in "$WORK/err" "502"
fake_github_faults '[]'
# the artifact path, posted and refused, also with a workflow_run event
EXPECT=0 secret_run comment --from-artifact artifact --cacert "$FAKE_CA"
EXPECT=2 secret_run comment --from-artifact bad-artifact --cacert "$FAKE_CA"
printf '{"workflow_run": {"head_sha": "%s"}}\n' "$(printf 'c%.0s' {1..40})" >"$WORK/cwd/event.json"
GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH="$WORK/cwd/event.json" EXPECT=2 \
  secret_run comment --from-artifact artifact --cacert "$FAKE_CA"
# a missing token is refused before anything is sent
GITHUB_TOKEN= EXPECT=2 secret_run comment --pr 7 --file report.md --cacert "$FAKE_CA"
[ "$n" -eq 10 ] || fail "expected 10 runs, made $n"

# --- the search: finds a planted copy, and nothing else
fake_github_call GET /__state >"$WORK/gh/state.json"
[ -s "$FAKE_LOG" ] || fail "the server logged nothing"
printf 'planted: %s\n' "$token" >"$WORK/cwd/planted.txt"
found="$(grep -rlF --exclude-dir=private -- "$token" "$WORK" | sort)"
[ "$found" = "$WORK/cwd/planted.txt" ] || fail "the token is in: $found"
# and in no file name either
if find "$WORK" -path "$WORK/private" -prune -o -name "*$token*" -print | grep -q .; then
  fail "a file is named after the token"
fi
echo "comment_secrets: ok"
