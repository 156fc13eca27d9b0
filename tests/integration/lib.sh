# Shared helpers of the integration scenarios. Each scenario sources this,
# gets $REFBENCH (the binary under test) and a private $WORK directory.
set -euo pipefail

: "${REFBENCH:?REFBENCH must name the refbench binary}"
FIXTURES="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)"
PY=/usr/bin/python3
WORK="$(mktemp -d "${TMPDIR:-/tmp}/refbench-it.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

skip() {
  echo "SKIP: $*" >&2
  exit 125
}

# Runs refbench with "$@", capturing stdout/stderr into $WORK/out, $WORK/err
# and the exit code into $RC; never fails by itself.
run_refbench() {
  set +e
  "$REFBENCH" "$@" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
}

# Waits (up to 30 s) until a journal matching the glob $2 has a sample of
# round 2, then sends SIGTERM to process $1 and puts its exit code in $RC.
terminate_after_round_2() {
  local pid="$1" glob="$2" journal
  for _ in $(seq 300); do
    for journal in $glob; do
      grep -q '"round":2' "$journal" 2>/dev/null && break 2
    done
    sleep 0.1
  done
  kill -TERM "$pid"
  set +e
  wait "$pid"
  RC=$?
  set -e
}

expect_rc() {
  [ "$RC" -eq "$1" ] || fail "expected exit $1, got $RC; stderr: $(cat "$WORK/err")"
}

# Fails unless the file $1 contains the fixed string $2.
expect_in() {
  grep -qF -- "$2" "$1" || fail "expected '$2' in $1: $(cat "$1")"
}

# Compiles fixture $1 (tests/fixtures/$1.c) into $WORK/$1.
build_fixture() {
  cc -O2 -o "$WORK/$1" "$FIXTURES/$1.c" || fail "cannot compile fixture $1"
}

# Evaluates the Python expression $2 with `r` = the JSON file $1 loaded and
# `med(values)` available; prints the result.
json_eval() {
  "$PY" - "$1" "$2" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
med = statistics.median
def samples(cell, arm, key):
    c = next(c for c in r["cells"] if c["name"] == cell)
    return [s[key] for s in c["samples"] if s["arm"] == arm and not s["warmup"]]
print(eval(sys.argv[2]))
PY
}

# Fails unless the Python expression $2 over results file $1 is true.
expect_json() {
  local value
  value="$(json_eval "$1" "$2")" || fail "cannot evaluate $2 on $1"
  [ "$value" = "True" ] || fail "expected $2 on $1, got $value"
}

# Creates the sample repository with `variant` (scripts/make-sample-repo.sh)
# at $WORK/repo-<variant> and prints its path.
make_sample() {
  local dir="$WORK/repo-$1"
  "$(dirname "${BASH_SOURCE[0]}")/../../scripts/make-sample-repo.sh" "$dir" "$1" >/dev/null
  echo "$dir"
}

# Runs git in the repository $1 with the rest of the arguments, as a fixed
# identity and without the user's or the system's git config.
git_in() {
  local dir="$1"
  shift
  GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid \
    GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$dir" "$@"
}

# Makes the directory $1 a git repository of two commits (main and
# main~1, the second empty) holding the files already in it.
commit_two_refs() {
  git_in "$1" init -q -b main
  git_in "$1" add -A
  git_in "$1" commit -q -m first
  git_in "$1" commit -q --allow-empty -m second
}

# Makes the directory $1 a git repository of two versions of the files in
# it: tag v1 with VERSION "old", then main with VERSION "new".
commit_old_new() {
  echo old >"$1/VERSION"
  git_in "$1" init -q -b main
  git_in "$1" add -A
  git_in "$1" commit -q -m old
  git_in "$1" tag v1
  echo new >"$1/VERSION"
  git_in "$1" commit -q -am new
}

# Fails unless Mermaid's own parser (installed by scripts/install-deps.sh)
# accepts every ```mermaid block of Markdown file $1, and they are $2 xycharts.
expect_mermaid() {
  local dir="${REFBENCH_MERMAID_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/refbench/mermaid}"
  [ -d "$dir/node_modules/mermaid" ] || fail "Mermaid's parser is not installed in $dir: run scripts/install-deps.sh"
  NODE_PATH="$dir/node_modules" node "$(dirname "$0")/check_mermaid.mjs" "$1" >"$WORK/mermaid.txt" ||
    fail "Mermaid rejects a chart: $(cat "$WORK/mermaid.txt")"
  [ "$(grep -c '^ok xychart$' "$WORK/mermaid.txt")" -eq "$2" ] || fail "mermaid: $(cat "$WORK/mermaid.txt")"
}

# The verdict of `cell`/`metric` in results file $1.
verdict_of() {
  json_eval "$1" "next(a['verdict'] for a in r['analysis'] if a['cell'] == '$2' and a['metric'] == '$3')"
}

# --- A local GitHub API over HTTPS (fake_github.py) -------------------------

# Makes a throwaway certificate authority: $1/ca.key and $1/ca.pem (CN $2).
make_test_ca() {
  mkdir -p "$1"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$1/ca.key" -out "$1/ca.pem" -subj "/CN=$2" >/dev/null 2>&1 ||
    fail "openssl cannot make the test CA $1/ca.pem"
}

# Makes $1/server.key and $1/server.pem for the subjectAltName $2 (default
# DNS:localhost,IP:127.0.0.1), signed by the CA in $1.
make_test_server_cert() {
  printf '%s\n' "subjectAltName=${2:-DNS:localhost,IP:127.0.0.1}" "basicConstraints=CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" \
    "subjectKeyIdentifier=hash" "authorityKeyIdentifier=keyid" >"$1/server.ext"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$1/server.key" -out "$1/server.csr" -subj "/CN=localhost" >/dev/null 2>&1 &&
    openssl x509 -req -in "$1/server.csr" -CA "$1/ca.pem" -CAkey "$1/ca.key" -CAcreateserial \
      -days 2 -extfile "$1/server.ext" -out "$1/server.pem" >/dev/null 2>&1 ||
    fail "openssl cannot make the server certificate in $1"
}

# Writes a fake_github.py state file $1: repo owner/name, token $GITHUB_TOKEN,
# PR 7 (open, base main, head feature), no comments, no faults; then the
# top-level keys of the JSON object $2 (optional) replace those defaults.
write_fake_state() {
  local overrides="${2:-}"
  "$PY" - "$1" "${overrides:-"{}"}" <<'PY'
import json, os, sys
state = {
    "repo": "owner/name",
    "token": os.environ["GITHUB_TOKEN"],
    "latency": 0.02,
    "pulls": {"7": {"base": {"ref": "main", "sha": "a" * 40},
                    "head": {"ref": "feature", "sha": "b" * 40}}},
    "comments": {},
    "faults": [],
}
state.update(json.loads(sys.argv[2]))
json.dump(state, open(sys.argv[1], "w"), indent=1)
PY
}

# Starts fake_github.py with the state file $1 in the background, stopped by
# the EXIT trap (or stop_fake_github). The CA and the server certificate are
# made once per scenario; $2 may name another directory holding server.pem
# and server.key to serve instead. Exports FAKE_CA (the CA file), FAKE_URL
# (https://localhost:PORT), GITHUB_API_URL ($FAKE_URL plus the API prefix and
# a trailing slash), FAKE_LOG (the JSON-lines request log) and FAKE_DIR.
start_fake_github() {
  local state="$1" certs="${2:-$WORK/fake-github}" prefix
  command -v openssl >/dev/null || skip "openssl is not installed"
  [ -x "$PY" ] || skip "$PY is not installed"
  FAKE_DIR="$WORK/fake-github"
  if [ ! -s "$FAKE_DIR/server.pem" ]; then
    make_test_ca "$FAKE_DIR" "refbench test CA"
    make_test_server_cert "$FAKE_DIR"
  fi
  stop_fake_github
  if [ -z "${_FAKE_TRAP:-}" ]; then
    # keep whatever the EXIT trap already does (removing $WORK), after the stop
    eval "set -- $(trap -p EXIT)"
    trap "stop_fake_github; ${3:-}" EXIT
    _FAKE_TRAP=1
  fi
  FAKE_LOG="$FAKE_DIR/requests.jsonl"
  : >"$FAKE_LOG"
  rm -f "$FAKE_DIR/port"
  "$PY" "$(dirname "${BASH_SOURCE[0]}")/fake_github.py" --cert "$certs/server.pem" \
    --key "$certs/server.key" --state "$state" --port-file "$FAKE_DIR/port" \
    --log "$FAKE_LOG" --watch-parent 2>"$FAKE_DIR/server.err" &
  FAKE_PID=$!
  for _ in $(seq 100); do
    [ -s "$FAKE_DIR/port" ] && break
    kill -0 "$FAKE_PID" 2>/dev/null || fail "fake_github.py did not start: $(cat "$FAKE_DIR/server.err")"
    sleep 0.05
  done
  [ -s "$FAKE_DIR/port" ] || fail "fake_github.py wrote no port in 5 s"
  prefix="$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("api_prefix", "").rstrip("/"))' "$state")"
  FAKE_CA="$FAKE_DIR/ca.pem"
  FAKE_URL="https://localhost:$(cat "$FAKE_DIR/port")"
  GITHUB_API_URL="$FAKE_URL$prefix/"
  export FAKE_CA FAKE_URL GITHUB_API_URL FAKE_LOG FAKE_DIR
}

# Stops the server started by start_fake_github, if any.
stop_fake_github() {
  if [ -n "${FAKE_PID:-}" ]; then
    kill -TERM "$FAKE_PID" 2>/dev/null || true
    wait "$FAKE_PID" 2>/dev/null || true
    FAKE_PID=
  fi
}

# Talks to the server's own control endpoints: `fake_github_call GET /__state`
# prints the comments per issue, the remaining faults and the request count;
# `fake_github_call POST /__control '{"faults": [...]}'` replaces state keys.
fake_github_call() {
  "$PY" - "$FAKE_URL$2" "$1" "${3:-}" "$FAKE_CA" <<'PY'
import ssl, sys, urllib.request
url, method, body, ca = sys.argv[1:5]
req = urllib.request.Request(url, method=method, data=body.encode() if body else None)
ctx = ssl.create_default_context(cafile=ca)
ctx.check_hostname = False  # the server may be serving a certificate for another name on purpose
with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
    sys.stdout.write(r.read().decode())
PY
}

# Sets the server's fault queue to the JSON list $1.
fake_github_faults() {
  fake_github_call POST /__control "{\"faults\": $1}" >/dev/null || fail "cannot set faults $1"
}

# Evaluates the Python expression $1 with `s` = the server's /__state,
# `cs(n)` = the comments of issue n, `L` = the logged requests (from line $2
# of the log on, default 1), `TLS` = the failed handshakes, `C` = the closed
# connections and `log(L)` = a readable summary of requests.
fake_eval() {
  fake_github_call GET /__state >"$FAKE_DIR/state.json" || fail "cannot read /__state"
  "$PY" - "$FAKE_DIR/state.json" "$FAKE_LOG" "${2:-1}" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
entries = [json.loads(l) for l in open(sys.argv[2]).readlines()[int(sys.argv[3]) - 1:]]
L = [e for e in entries if e["kind"] == "request"]
TLS = [e for e in entries if e["kind"] == "tls-error"]
C = [e for e in entries if e["kind"] == "connection"]
def cs(n):
    return s["comments"].get(str(n), [])
def log(L):
    return "; ".join(f"{e['start']:.2f} {e['method']} {e['path']}?{e['query']} -> {e['status']}" for e in L)
print(eval(sys.argv[4]))
PY
}

# Fails unless the Python expression $1 (see fake_eval) is true; $2 as there.
expect_fake() {
  local value
  value="$(fake_eval "$1" "${2:-1}")" || fail "cannot evaluate $1 on the fake GitHub"
  [ "$value" = "True" ] || fail "expected $1 on the fake GitHub, got $value; requests: $(fake_eval 'log(L)' "${2:-1}")"
}

# The number of the next line of the request log (for fake_eval's $2).
fake_log_mark() {
  echo $(($(wc -l <"$FAKE_LOG") + 1))
}

# The TOML words that start a benchmarked command at SCHED_FIFO priority 1
# through chrt, so that no ordinary process — a CPU hog on every CPU, another
# test — takes the CPU from it while it runs; nothing where the scheduler
# refuses (not root). For the harnesses that time with the wall clock only
# (Catch2 v2, pytest-benchmark, Criterion): beside a hog their figures
# stretch by 2-4x at random, and refbench rightly reads INCONCLUSIVE.
realtime_words() { chrt -f 1 true 2>/dev/null && printf '"chrt", "-f", "1", '; }

# The harness scenarios' verdict on a noisy machine (docs/manual/suites.md, noisy
# runners): exit 1 with exactly row $2 (metric $3) a gated REGRESSION at a
# ratio within [1.25, 1.7]; else, where the machine's speed drifts between
# invocations, row $2 INCONCLUSIVE above $4 — never PASS — and no gated
# REGRESSION at all. $1: the run's out directory; $RC its exit code.
expect_slower_row() {
  local out="$1" row="$2" metric="$3" least="$4"
  local it="next(a for a in r['analysis'] if a['cell'] == '$row' and a['metric'] == '$metric')"
  if [ "$RC" -eq 1 ]; then
    expect_json "$out/results.json" "sorted({a['cell'] for a in r['analysis'] if a['verdict'] == 'REGRESSION' and a['gated']}) == ['$row']"
    expect_json "$out/results.json" "1.25 <= $it['ratio'] <= 1.7"
  else
    expect_json "$out/results.json" "$it['verdict'] == 'INCONCLUSIVE' and $it['ratio'] > $least"
    expect_json "$out/results.json" "not any(a['verdict'] == 'REGRESSION' for a in r['analysis'] if a['gated'])"
    echo "$row INCONCLUSIVE (a machine whose speed drifts): $(grep "^| $row | $metric" "$out/report.md")"
  fi
}

# --- refbench run --github (run_github.sh, run_github_events.sh) -----------
# The sample project's slower variant with a PR from main (the slower
# commit) into `release`, which moved on since they forked at v1.1.0-rc1;
# sets $repo, $base_sha (release), $head_sha (main), $fork_sha (the fork).
github_sample() {
  repo=$(make_sample slower)
  git -C "$repo" -c user.name=t -c user.email=t@t branch release v1.1.0-rc1
  git -C "$repo" -c user.name=t -c user.email=t@t worktree add -q "$WORK/rel" release
  echo "release notes" >>"$WORK/rel/README.md"
  git -C "$WORK/rel" -c user.name=t -c user.email=t@t commit -q -am "docs on release"
  git -C "$repo" worktree remove "$WORK/rel"
  base_sha=$(git -C "$repo" rev-parse release)
  head_sha=$(git -C "$repo" rev-parse main)
  fork_sha=$(git -C "$repo" rev-parse 'v1.1.0-rc1^{commit}')
}

# A pull_request event payload of PR 7 from feat/slower at commit $1 into
# release ($base_sha), on stdout.
pull_request_event() {
  cat <<JSON
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7,
   "base": {"ref": "release", "sha": "$base_sha"},
   "head": {"ref": "feat/slower", "sha": "$1"}}}
JSON
}

# Runs `refbench run --github` for event $1 with payload file $2 into $WORK/$3.
github_run() { # event payload name [flags]
  local out="$WORK/$3"
  mkdir -p "$out.gh"
  : >"$out.gh/summary"
  : >"$out.gh/output"
  set +e
  GITHUB_EVENT_NAME="$1" GITHUB_EVENT_PATH="$2" GITHUB_SHA="$head_sha" \
    GITHUB_STEP_SUMMARY="$out.gh/summary" GITHUB_OUTPUT="$out.gh/output" \
    "$REFBENCH" run -q --github --repo "$repo" --out "$out" --seed 5 "${@:4}" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
}
# The value of key $2 in the GITHUB_OUTPUT file $1.
output_of() { sed -n "s/^$2=//p" "$1"; }
