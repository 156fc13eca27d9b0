#!/usr/bin/env bash
# `refbench comment` over TLS (docs/manual/github-actions.md): the CA comes from --cacert, else
# SSL_CERT_FILE / SSL_CERT_DIR, else the system bundles; a certificate that
# does not verify (unrelated CA, wrong host name) is exit 2 with a message
# naming the CA file or directory that was tried, and nothing is sent.
# GITHUB_API_URL works with and without a trailing slash, also with a GitHub
# Enterprise path prefix.
source "$(dirname "$0")/lib.sh"

export GITHUB_TOKEN="ghs_tls${RANDOM}${RANDOM}"
export GITHUB_REPOSITORY=owner/name
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH SSL_CERT_FILE SSL_CERT_DIR
write_fake_state "$WORK/state.json"
start_fake_github "$WORK/state.json"
make_test_ca "$WORK/other-ca" "unrelated test CA"
printf '%s\n' '<!-- refbench -->' '## Report' >"$WORK/report.md"

# Runs `refbench comment --pr 7` with no CA setting but those in "$@":
# SSL_CERT_*= and GITHUB_API_URL= words go to the environment, the rest are
# arguments. Starts with no comments; the log mark of the call is in $mark.
tls_comment() {
  local envs=() args=() a
  for a in "$@"; do
    case $a in
      SSL_CERT_*=* | GITHUB_API_URL=*) envs+=("$a") ;;
      *) args+=("$a") ;;
    esac
  done
  fake_github_call POST /__control '{"comments": {}}' >/dev/null || fail "cannot reset the fake GitHub"
  mark=$(fake_log_mark)
  set +e
  env -u SSL_CERT_FILE -u SSL_CERT_DIR "${envs[@]}" "$REFBENCH" comment --pr 7 --file "$WORK/report.md" \
    --max-wait 2s "${args[@]}" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
  sleep 0.2 # the server logs a failed handshake or a closed connection when it notices
}

# Fails unless the last call failed (exit 2) naming $1, sent no request and
# created nothing.
expect_refused() {
  expect_rc 2
  expect_in "$WORK/err" "$1"
  expect_fake "L == []" "$mark"
  expect_fake "cs(7) == []"
}

# Fails unless the last call created the sticky comment.
expect_posted() {
  expect_rc 0
  grep -qE '^refbench: created comment https://github.com/owner/name/pull/7#issuecomment-[0-9]+$' "$WORK/out" ||
    fail "no comment line on stdout: $(cat "$WORK/out")"
  expect_fake "len(cs(7)) == 1 and cs(7)[0]['body'].startswith('<!-- refbench -->\n## Report')"
  expect_fake "L != [] and all(e['status'] < 300 for e in L)" "$mark"
}

# CA directories in OpenSSL's hashed form
mkdir -p "$WORK/right-dir" "$WORK/other-dir"
cp "$FAKE_CA" "$WORK/right-dir/ca.pem"
cp "$WORK/other-ca/ca.pem" "$WORK/other-dir/ca.pem"
openssl rehash "$WORK/right-dir" "$WORK/other-dir" || fail "openssl rehash failed"
ls "$WORK/right-dir" | grep -qE '^[0-9a-f]{8}\.0$' || fail "openssl rehash made no hash link"

# --- an unrelated CA: refused in the handshake, the CA named
tls_comment --cacert "$WORK/other-ca/ca.pem"
expect_refused "$WORK/other-ca/ca.pem"
expect_fake "len(TLS) >= 1" "$mark"
tls_comment SSL_CERT_FILE="$WORK/other-ca/ca.pem"
expect_refused "$WORK/other-ca/ca.pem"
expect_fake "len(TLS) >= 1" "$mark"
tls_comment SSL_CERT_DIR="$WORK/other-dir"
expect_refused "$WORK/other-dir"
expect_fake "len(TLS) >= 1" "$mark"
# the system bundle does not know the test CA either
tls_comment
expect_rc 2
expect_fake "L == [] and len(TLS) >= 1 and cs(7) == []" "$mark"
if [ -e /etc/ssl/certs/ca-certificates.crt ]; then
  expect_in "$WORK/err" "/etc/ssl/certs"
fi
# a CA file that does not exist
tls_comment --cacert "$WORK/no-such-ca.pem"
expect_refused "$WORK/no-such-ca.pem"

# --- the right CA, each way
tls_comment --cacert "$FAKE_CA"
expect_posted
tls_comment SSL_CERT_FILE="$FAKE_CA"
expect_posted
tls_comment SSL_CERT_DIR="$WORK/right-dir"
expect_posted
# --cacert wins over SSL_CERT_FILE
tls_comment --cacert "$FAKE_CA" SSL_CERT_FILE="$WORK/other-ca/ca.pem"
expect_posted

# --- GITHUB_API_URL without the trailing slash; a GitHub Enterprise prefix
tls_comment --cacert "$FAKE_CA" GITHUB_API_URL="$FAKE_URL"
expect_posted
expect_fake "all(e['path'].startswith('/repos/') or e['path'].startswith('/repositories/') for e in L)" "$mark"
write_fake_state "$WORK/state-ghes.json" '{"api_prefix": "/api/v3"}'
start_fake_github "$WORK/state-ghes.json"
[ "$GITHUB_API_URL" = "$FAKE_URL/api/v3/" ] || fail "GITHUB_API_URL is $GITHUB_API_URL"
for url in "$FAKE_URL/api/v3/" "$FAKE_URL/api/v3"; do
  tls_comment --cacert "$FAKE_CA" GITHUB_API_URL="$url"
  expect_posted
  expect_fake "all(e['path'].startswith('/api/v3/repos') for e in L)" "$mark"
done

# --- a certificate from the right CA, but for another host name
mkdir -p "$WORK/wrong-name"
cp "$WORK/fake-github/ca.pem" "$WORK/fake-github/ca.key" "$WORK/wrong-name/"
make_test_server_cert "$WORK/wrong-name" "DNS:other.example,IP:192.0.2.1"
start_fake_github "$WORK/state.json" "$WORK/wrong-name"
tls_comment --cacert "$FAKE_CA"
expect_rc 2
expect_in "$WORK/err" "$FAKE_CA"
# the client refuses the handshake, or hangs up after it before any request
expect_fake "L == [] and cs(7) == [] and (len(TLS) >= 1 or any(c['requests'] == 0 for c in C))" "$mark"
echo "comment_tls: ok"
