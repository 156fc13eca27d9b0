#!/usr/bin/env bash
# The static release binary runs where nothing else is installed: in a root
# holding only the binary, /etc/hosts, a CA bundle at Alpine's path and
# mounts of /proc and /dev — no libc, no NSS modules, no nsswitch.conf, as in
# the Dockerfile's image stage or on an Alpine runner. There it measures
# (an A/A compare of its own --version, outputs written) and posts the
# sticky comment over TLS to the local HTTPS API, finding the CA by itself
# and resolving localhost through static glibc's built-in files lookup.
# Skipped for a dynamic binary (the development build) and without root.
source "$(dirname "$0")/lib.sh"

readelf -d "$REFBENCH" 2>/dev/null | grep -q "no dynamic section" || skip "$REFBENCH is not the static binary"
[ "$(id -u)" -eq 0 ] || skip "needs root for chroot and mounts"
command -v unshare >/dev/null && command -v chroot >/dev/null || skip "needs unshare and chroot"

root="$WORK/root"
mkdir -p "$root/proc" "$root/dev" "$root/etc/ssl" "$root/out"
cp "$REFBENCH" "$root/refbench"
printf '%s\n' "127.0.0.1 localhost" "127.0.0.1 api.github.test" >"$root/etc/hosts"
[ ! -e "$root/lib" ] && [ ! -e "$root/usr" ] || fail "the bare root must hold no libraries"

export GITHUB_TOKEN="ghs_bare${RANDOM}${RANDOM}"
export GITHUB_REPOSITORY=owner/name
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH SSL_CERT_FILE SSL_CERT_DIR
write_fake_state "$WORK/state.json"
start_fake_github "$WORK/state.json" # makes the CA; then a certificate for a name only /etc/hosts knows
mkdir -p "$WORK/named"
cp "$FAKE_DIR/ca.pem" "$FAKE_DIR/ca.key" "$WORK/named/"
make_test_server_cert "$WORK/named" "DNS:api.github.test"
start_fake_github "$WORK/state.json" "$WORK/named"
GITHUB_API_URL="https://api.github.test:${FAKE_URL##*:}/"
cp "$FAKE_CA" "$root/etc/ssl/cert.pem" # where Alpine keeps its bundle

# Runs "$@" chrooted into $root, with its own mount namespace so the /proc
# and /dev mounts vanish with it; output in $WORK/out and $WORK/err.
in_root() {
  set +e
  unshare --mount --propagation private sh -c \
    'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec "$@"' "$root" \
    env -i PATH=/ GITHUB_TOKEN="$GITHUB_TOKEN" GITHUB_REPOSITORY="$GITHUB_REPOSITORY" \
    GITHUB_API_URL="$GITHUB_API_URL" "$(command -v chroot)" "$root" "$@" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
}

in_root /refbench --version
expect_rc 0
expect_in "$WORK/out" "refbench "

# an A/A comparison: spawning, timing, peak RSS and all outputs work there
in_root /refbench compare --seed 3 --min-rounds 6 --max-rounds 6 --out /out "/refbench --version" "/refbench --version"
expect_rc 0
expect_json "$root/out/results.json" "r['verdict'] in ('pass', 'inconclusive') and [c['rounds'] for c in r['cells']] == [6, 6]"
expect_json "$root/out/results.json" "all(s['exit_code'] == 0 and s['rss'] > s['rss_floor'] > 0 and s['wall'] > 0 for c in r['cells'] for s in c['samples'])"
expect_json "$root/out/results.json" "r['rss']['floor_bytes'] > 0"
expect_in "$root/out/report.md" "<!-- refbench -->"

# TLS to https://api.github.test:PORT: the CA found at /etc/ssl/cert.pem,
# the name resolved from /etc/hosts without any libnss_files.so (not
# localhost, which libcurl answers by itself)
in_root /refbench comment --pr 7 --file /out/report.md --max-wait 2s
expect_rc 0
expect_fake "len(cs(7)) == 1 and cs(7)[0]['body'].startswith('<!-- refbench -->')"

# and a host name nothing resolves fails cleanly (no DNS server here)
sed -i '/api.github.test/d' "$root/etc/hosts"
in_root /refbench comment --pr 7 --file /out/report.md --max-wait 1s
expect_rc 2
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected a one-line error: $(cat "$WORK/err")"
expect_in "$WORK/err" "api.github.test"
expect_fake "len(cs(7)) == 1"
grep -qF "$GITHUB_TOKEN" "$WORK/err" "$WORK/out" && fail "the token is in the output"
echo "ok: the static binary measures and posts from a root with nothing else in it"
