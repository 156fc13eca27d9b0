#!/usr/bin/env bash
# `refbench comment` keeps one sticky comment per marker (docs/manual/github-actions.md): on a PR
# with 150 other comments (two pages at per_page=100) the first call follows
# Link: rel="next" to page 2 and POSTs; the second call finds its comment on
# page 2 and PATCHes it with the new report; `--marker other` has a comment of
# its own; results.json is rendered and refbench-out/report.md is the
# default; relative Link targets resolve against their page, one on another
# host is refused. Every request carries the required headers; none overlaps
# another.
source "$(dirname "$0")/lib.sh"

export GITHUB_TOKEN="ghs_sticky${RANDOM}${RANDOM}"
export GITHUB_REPOSITORY=owner/name
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH SSL_CERT_FILE SSL_CERT_DIR
write_fake_state "$WORK/state.json" '{"comments": {"7": {"filler": 150, "user": "someone"}}}'
start_fake_github "$WORK/state.json"
first_id=2147483750 # fake_github.py numbers comments from 2147483600: this is #151

printf '%s\n' '<!-- refbench -->' '## First report' '' '| cell | verdict |' '|---|---|' '| a | PASS |' >"$WORK/first.md"
printf '%s\n' '<!-- refbench -->' '## Second report' '' \
  'with `code`, "quotes", a \ backslash, <b>html</b>, ünïcode ✓ and a	tab' >"$WORK/second.md"

# Fails unless the comment with id $1 has exactly the body of file $2.
expect_body() {
  "$PY" - "$FAKE_URL" "$FAKE_CA" "$1" "$2" <<'PY' || fail "comment $1 does not hold $2"
import json, ssl, sys, urllib.request
url, ca, cid, path = sys.argv[1:5]
s = json.load(urllib.request.urlopen(url + "/__state", context=ssl.create_default_context(cafile=ca), timeout=10))
body = next(c["body"] for cs in s["comments"].values() for c in cs if c["id"] == int(cid))
want = open(path, encoding="utf-8").read()
if body.rstrip("\n") != want.rstrip("\n"):
    sys.exit(f"comment {cid} body:\n{body!r}\nexpected:\n{want!r}")
PY
}

# --- first call: two pages listed via Link, then one POST
mark=$(fake_log_mark)
run_refbench comment --pr 7 --file "$WORK/first.md" --cacert "$FAKE_CA"
expect_rc 0
[ "$(cat "$WORK/out")" = "refbench: created comment https://github.com/owner/name/pull/7#issuecomment-$first_id" ] ||
  fail "first call printed: $(cat "$WORK/out")"
expect_fake "len(cs(7)) == 151 and cs(7)[-1]['id'] == $first_id"
expect_body $first_id "$WORK/first.md"
lists="[e for e in L if e['method'] == 'GET' and e['path'].endswith('/issues/7/comments')]"
expect_fake "len($lists) == 2" "$mark"
expect_fake "'per_page=100' in $lists[0]['query'] and 'page=2' not in $lists[0]['query']" "$mark"
# page 2 is the URL from the Link header (GitHub's /repositories/ID form), not one made up
expect_fake "$lists[1]['path'] == '/repositories/10000001/issues/7/comments' and $lists[1]['query'] == 'per_page=100&page=2'" "$mark"
expect_fake "[e['method'] for e in L if e['method'] != 'GET'] == ['POST'] and L[-1]['method'] == 'POST'" "$mark"
expect_fake "L[-1]['path'] == '/repos/owner/name/issues/7/comments' and L[-1]['status'] == 201" "$mark"

# --- second call: the same comment, PATCHed with the second report; no POST
mark=$(fake_log_mark)
run_refbench comment --pr 7 --file "$WORK/second.md" --cacert "$FAKE_CA"
expect_rc 0
[ "$(cat "$WORK/out")" = "refbench: updated comment https://github.com/owner/name/pull/7#issuecomment-$first_id" ] ||
  fail "second call printed: $(cat "$WORK/out")"
expect_fake "len(cs(7)) == 151"
expect_fake "[c['id'] for c in cs(7) if c['body'].split('\n')[0] == '<!-- refbench -->'] == [$first_id]"
expect_body $first_id "$WORK/second.md"
expect_fake "[(e['method'], e['path'], e['status']) for e in L if e['method'] != 'GET'] == [('PATCH', '/repos/owner/name/issues/comments/$first_id', 200)]" "$mark"
expect_fake "all(c['body'].startswith('Unrelated comment') for c in cs(7)[:150])"

# --- another marker: a comment of its own; the default one is left alone
printf '%s\n' '<!-- refbench:other -->' '## First report' '' '| cell | verdict |' '|---|---|' '| a | PASS |' >"$WORK/first-other.md"
printf '%s\n' '<!-- refbench:other -->' '## Second report' '' \
  'with `code`, "quotes", a \ backslash, <b>html</b>, ünïcode ✓ and a	tab' >"$WORK/second-other.md"
mark=$(fake_log_mark)
run_refbench comment --pr 7 --file "$WORK/first.md" --marker other --cacert "$FAKE_CA"
expect_rc 0
other_id=$((first_id + 1))
expect_in "$WORK/out" "refbench: created comment https://github.com/owner/name/pull/7#issuecomment-$other_id"
expect_fake "len(cs(7)) == 152 and cs(7)[-1]['id'] == $other_id"
expect_body $other_id "$WORK/first-other.md"
expect_body $first_id "$WORK/second.md"
expect_fake "[e['method'] for e in L if e['method'] != 'GET'] == ['POST']" "$mark"
run_refbench comment --pr 7 --file "$WORK/second.md" --marker other --cacert "$FAKE_CA"
expect_rc 0
expect_in "$WORK/out" "refbench: updated comment https://github.com/owner/name/pull/7#issuecomment-$other_id"
expect_fake "len(cs(7)) == 152"
expect_body $other_id "$WORK/second-other.md"
expect_body $first_id "$WORK/second.md"

# --- results.json is rendered to its report; refbench-out/report.md is the default file
run_refbench compare --seed 5 --max-rounds 3 --min-rounds 3 --out "$WORK/proj/refbench-out" 'true' 'true'
expect_rc 0
head -1 "$WORK/proj/refbench-out/report.md" | grep -qx '<!-- refbench -->' || fail "report.md has no marker"
run_refbench comment --pr 7 --file "$WORK/proj/refbench-out/results.json" --cacert "$FAKE_CA"
expect_rc 0
expect_in "$WORK/out" "refbench: updated comment https://github.com/owner/name/pull/7#issuecomment-$first_id"
expect_body $first_id "$WORK/proj/refbench-out/report.md"
run_refbench comment --pr 7 --file "$WORK/second.md" --cacert "$FAKE_CA"
expect_rc 0
expect_body $first_id "$WORK/second.md"
(cd "$WORK/proj" && run_refbench comment --pr 7 --cacert "$FAKE_CA" && echo "$RC" >"$WORK/rc")
RC=$(cat "$WORK/rc")
expect_rc 0
expect_body $first_id "$WORK/proj/refbench-out/report.md"
expect_fake "len(cs(7)) == 152 and len([e for e in L if e['method'] == 'POST']) == 2"

# --- every request: the headers GitHub asks for, the token, never two at once
expect_fake "all({'accept', 'x-github-api-version', 'user-agent', 'authorization'} <= set(e['headers']) for e in L)"
expect_fake "all(e['api_version'] == '2022-11-28' and 'application/vnd.github+json' in e['accept'] and e['user_agent'].strip() for e in L)"
expect_fake "all(e['auth'] == 'valid' and e['status'] < 300 for e in L)"
expect_fake "all(a['end'] <= b['start'] for a, b in zip(sorted(L, key=lambda e: e['start']), sorted(L, key=lambda e: e['start'])[1:]))"
# --- Link targets are resolved against their page (RFC 3986) behind a GitHub
# Enterprise prefix, and one on another host is refused before it is asked
for style in relative rooted other-host; do
  write_fake_state "$WORK/state-$style.json" \
    "{\"api_prefix\": \"/api/v3\", \"link_style\": \"$style\", \"comments\": {\"7\": {\"filler\": 150, \"user\": \"someone\"}}}"
  start_fake_github "$WORK/state-$style.json"
  run_refbench comment --pr 7 --file "$WORK/first.md" --cacert "$FAKE_CA"
  lists="[e for e in L if e['method'] == 'GET' and e['path'].endswith('/issues/7/comments')]"
  if [ "$style" = other-host ]; then
    expect_rc 2
    expect_in "$WORK/err" "refused to send the token to https://127.0.0.1:"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "$style: expected one line: $(cat "$WORK/err")"
    expect_fake "len(L) == 1 and cs(7)[-1]['body'].startswith('Unrelated comment')"
  else
    expect_rc 0
    expect_fake "len($lists) == 2 and $lists[1]['query'] == 'per_page=100&page=2' and cs(7)[-1]['id'] == $first_id"
    want=/api/v3/repos/owner/name/issues/7/comments
    [ "$style" = rooted ] && want=/api/v3/repositories/10000001/issues/7/comments
    expect_fake "$lists[1]['path'] == '$want'"
  fi
done

echo "comment_sticky: ok"
