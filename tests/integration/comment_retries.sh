#!/usr/bin/env bash
# `refbench comment` against a GitHub API that fails (docs/manual/github-actions.md): 5xx and
# dropped connections are retried with backoff, 403/429 wait for retry-after
# or the rate-limit reset, the total wait is bounded by --max-wait; 401 and
# 404 stop at once with exit 2; a read-only token is a ::notice and exit 0;
# a body over 65 536 characters is trimmed, with a note, before it is sent;
# a POST that was carried out but answered with a 5xx makes no second comment;
# a byte-at-a-time API is bounded by --max-wait, a deeply nested answer is exit 2.
source "$(dirname "$0")/lib.sh"

export GITHUB_TOKEN="ghs_retries${RANDOM}${RANDOM}"
export GITHUB_REPOSITORY=owner/name
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH SSL_CERT_FILE SSL_CERT_DIR
write_fake_state "$WORK/state.json" '{"readonly_token": "ghs_readonly0123456789"}'
start_fake_github "$WORK/state.json"
printf '%s\n' '<!-- refbench -->' '## Report' '' '| cell | verdict |' '|---|---|' '| a | PASS |' >"$WORK/report.md"

# Starts a case: no comments, the fault queue $1, and the log mark in $mark.
new_case() {
  fake_github_call POST /__control "{\"comments\": {}, \"faults\": ${1:-[]}}" >/dev/null || fail "cannot reset the fake GitHub"
  mark=$(fake_log_mark)
}

# The gap in seconds between the end of the request answered with status $1
# (the first one since $mark) and the start of the request after it.
gap_after() {
  fake_eval "next(b['start'] - a['end'] for a, b in zip(L, L[1:]) if a['status'] == $1)" "$mark"
}

comment() {
  run_refbench comment --pr 7 --file "$WORK/report.md" --cacert "$FAKE_CA" "$@"
}

# --- (a) a secondary rate limit (403 + retry-after: 1) and two 502s: all retried
new_case '[{"match": "POST", "status": 403, "headers": {"retry-after": "1"},
            "body": {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                     "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}},
           {"match": "any", "status": 502}, {"match": "any", "status": 502}]'
comment
expect_rc 0
expect_in "$WORK/out" "refbench: created comment https://github.com/owner/name/pull/7#issuecomment-"
expect_fake "len(cs(7)) == 1 and cs(7)[0]['body'].startswith('<!-- refbench -->\n## Report')"
expect_fake "[e['status'] for e in L] == [502, 502, 200, 403, 201]" "$mark"
expect_fake "L[0]['path'] == L[1]['path'] == L[2]['path'] and L[3]['path'] == L[4]['path'] and L[4]['method'] == 'POST'" "$mark"
expect_fake "$(gap_after 403) >= 1.0" "$mark"
# exponential backoff: 1 s after the first 502, 2 s after the second
expect_fake "L[1]['start'] - L[0]['end'] >= 1.0 and L[2]['start'] - L[1]['end'] >= 2.0" "$mark"
expect_fake "s['faults'] == []"

# --- (b) a persistent 502 with --max-wait 4s: waits 1 s + 2 s, then gives up (the next wait, 4 s,
# would pass what is left of the 4 s the whole command may take)
new_case '[{"match": "any", "status": 502, "times": "always"}]'
start=$(date +%s%N)
comment --max-wait 4s
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect_rc 2
expect_in "$WORK/err" "gave up after 3 attempts"
expect_in "$WORK/err" "502"
grep -q '^refbench: error: GitHub API' "$WORK/err" || fail "not a refbench error line: $(cat "$WORK/err")"
[ "$elapsed_ms" -ge 3000 ] && [ "$elapsed_ms" -lt 10000 ] || fail "the give-up took ${elapsed_ms} ms, expected 3-10 s"
expect_fake "len(L) == 3 and all(e['status'] == 502 for e in L)" "$mark"
expect_fake "cs(7) == []"

# --- (c) a wrong token: 401, not retried, exit 2 naming the token
new_case
GITHUB_TOKEN=ghs_wrongwrongwrong comment
expect_rc 2
grep -qi 'token' "$WORK/err" || fail "the 401 message does not mention the token: $(cat "$WORK/err")"
expect_fake "[(e['status'], e['auth']) for e in L] == [(401, 'invalid')]" "$mark"
expect_fake "cs(7) == []"
if grep -qF ghs_wrongwrongwrong "$WORK/out" "$WORK/err"; then fail "the wrong token was printed"; fi

# --- (d) an unknown repository or PR: 404, exit 2 naming it
new_case
comment --repo owner/missing
expect_rc 2
expect_in "$WORK/err" "owner/missing"
expect_fake "[e['status'] for e in L] == [404]" "$mark"
new_case
run_refbench comment --pr 99 --file "$WORK/report.md" --cacert "$FAKE_CA"
expect_rc 2
expect_in "$WORK/err" "99"
expect_fake "[e['status'] for e in L] == [404] and s['comments'] == {}" "$mark"

# --- (e) a read-only token (a fork's PR): ::notice, exit 0, nothing created
new_case
GITHUB_TOKEN=ghs_readonly0123456789 comment
expect_rc 0
grep -q '^::notice' "$WORK/out" || fail "no ::notice line on stdout: $(cat "$WORK/out")"
expect_fake "cs(7) == []"
expect_fake "[(e['method'], e['status']) for e in L if e['method'] != 'GET'] == [('POST', 403)]" "$mark"

# --- (f) the primary rate limit: 429, then 403, with remaining 0 and reset in 1 s
for status in 429 403; do
  new_case "[{\"match\": \"any\", \"status\": $status, \"reset_in\": 1,
              \"body\": {\"message\": \"API rate limit exceeded for installation ID 1.\"}}]"
  comment
  expect_rc 0
  expect_fake "len(cs(7)) == 1"
  expect_fake "L[0]['status'] == $status and L[0]['ratelimit']['remaining'] == '0'" "$mark"
  # not before the reset second the server named
  expect_fake "L[1]['start'] >= int(L[0]['ratelimit']['reset']) and L[1]['path'] == L[0]['path']" "$mark"
done

# --- (g) a connection closed without a response, on a listing and on the POST
new_case '[{"match": "GET", "drop": true}, {"match": "POST", "drop": true}]'
comment
expect_rc 0
expect_fake "len(cs(7)) == 1"
expect_fake "[(e['method'], e['dropped']) for e in L][:2] == [('GET', True), ('GET', False)]" "$mark"
expect_fake "L[1]['start'] - L[0]['end'] >= 1.0" "$mark"
# (it may list the comments again before it resends the POST)
expect_fake "[(e['dropped'], e['status']) for e in L if e['method'] != 'GET'] == [(True, None), (False, 201)]" "$mark"

# --- (i) a POST carried out, but answered with a 502: no second comment
new_case '[{"match": "POST", "status": 502, "after": true}]'
comment
expect_rc 0
grep -qE '^refbench: (created|updated) comment https://github.com/owner/name/pull/7#issuecomment-2' "$WORK/out" ||
  fail "no comment line: $(cat "$WORK/out")"
expect_fake "len(cs(7)) == 1 and cs(7)[0]['body'].startswith('<!-- refbench -->\n## Report')"
expect_fake "[e.get('handled', e['status']) for e in L if e['method'] == 'POST'] == [201]" "$mark"

# --- (j) a POST carried out, then the connection dropped before the answer:
# refbench (not libcurl behind its back) sees the failure, lists again and
# PATCHes the comment it finds; still one comment
new_case '[{"match": "POST", "drop": true, "after": true}]'
comment
expect_rc 0
expect_fake "len(cs(7)) == 1"
expect_fake "[e['method'] for e in L if e['method'] != 'GET'] == ['POST', 'PATCH']" "$mark"

# --- (h) a body over GitHub's limit: trimmed to at most 65 536 characters, with a note
"$PY" - "$WORK/big.md" <<'PY'
import sys
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("<!-- refbench -->\n## Large report\n\n| cell | verdict |\n|---|---|\n")
    for i in range(4000):
        f.write(f"| cellule-é-{i:05d} ✓ | PASS |\n")  # multi-byte: a cut must fall between characters
PY
new_case
run_refbench comment --pr 7 --file "$WORK/big.md" --cacert "$FAKE_CA"
expect_rc 0
expect_fake "len(cs(7)) == 1 and 20000 <= len(cs(7)[0]['body']) <= 65536"
expect_fake "cs(7)[0]['body'].startswith('<!-- refbench -->\n## Large report\n')"
expect_fake "__import__('re').search('(?i)trim|truncat|left out|omitted|shortened', cs(7)[0]['body']) is not None"
expect_fake "not open('$WORK/big.md', encoding='utf-8').read().startswith(cs(7)[0]['body'].rstrip())"
expect_fake "all(e['status'] < 400 for e in L)" "$mark"
# --- (k) an API that answers a byte at a time: --max-wait bounds the whole command, each attempt included
new_case '[{"match": "any", "status": 502, "trickle": 0.3, "times": "always"}]'
start=$(date +%s%N)
comment --max-wait 5s
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect_rc 2
[ "$elapsed_ms" -lt 9000 ] || fail "--max-wait 5s against a byte-at-a-time API took ${elapsed_ms} ms"

# --- (l) a listing whose comment body is nested 20 000 levels deep: exit 2, not a crash
deep=$("$PY" -c 'print(__import__("json").dumps("[{\"id\": 1, \"body\": " + "[" * 20000 + "]" * 20000 + "}]"))')
new_case "[{\"match\": \"GET\", \"status\": 200, \"body\": $deep, \"times\": \"always\"}]"
comment
expect_rc 2
expect_in "$WORK/err" "nested deeper than 128 levels"
echo "comment_retries: ok"
