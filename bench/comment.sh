#!/usr/bin/env bash
# Cost of updating the sticky comment, against curl doing the same three
# requests in one process over one kept-alive connection (list page 1, list
# page 2, PATCH) — both against the local HTTPS GitHub API of the tests
# (150 other comments on the PR, no added latency). refbench measures the
# pair itself: interleaved rounds, median ratio with its 95 % interval, for
# wall time, CPU time and peak RSS.
# Usage: bench/comment.sh [ROUNDS]   (default 40; needs a built refbench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
rounds="${1:-40}"
export REFBENCH="$build/src/refbench"
[ -x "$REFBENCH" ] || { echo "build refbench first: scripts/build.sh" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl missing: apt-get install curl" >&2; exit 1; }
source "$root/tests/integration/lib.sh"
export GITHUB_TOKEN="ghs_bench_$RANDOM$RANDOM" GITHUB_REPOSITORY=owner/name
write_fake_state "$WORK/state.json" '{"latency": 0, "comments": {"7": {"filler": 150}}}'
start_fake_github "$WORK/state.json"
printf '<!-- refbench -->\n### refbench: ✅ no regression\n' >"$WORK/report.md"
# (a command line for refbench compare, split with shell-word rules)
# the first call creates the comment; every measured call finds it on page 2 and PATCHes it
SSL_CERT_FILE="$FAKE_CA" "$REFBENCH" comment --pr 7 --file "$WORK/report.md" >/dev/null
comment_id="$("$PY" -c 'import json, sys; print(json.load(sys.stdin)["comments"]["7"][-1]["id"])' \
  < <(curl -sS --cacert "$FAKE_CA" "$FAKE_URL/__state"))"
"$PY" -c 'import json, sys; print(json.dumps({"body": open(sys.argv[1]).read()}))' "$WORK/report.md" >"$WORK/body.json"
api="${GITHUB_API_URL%/}"
headers="-H 'Accept: application/vnd.github+json' -H 'X-GitHub-Api-Version: 2022-11-28' -H 'Authorization: Bearer $GITHUB_TOKEN'"
page2="$(curl -sS -D - -o /dev/null --cacert "$FAKE_CA" -H 'Accept: application/vnd.github+json' \
  -H 'X-GitHub-Api-Version: 2022-11-28' -H "Authorization: Bearer $GITHUB_TOKEN" \
  "$api/repos/owner/name/issues/7/comments?per_page=100" |
  sed -n 's/^link: <\([^>]*\)>; rel="next".*/\1/Ip' | tr -d '\r')"
[ -n "$page2" ] || { echo "the fake API gave no next link" >&2; exit 1; }
peer="curl -sS --fail -o /dev/null --cacert $FAKE_CA $headers '$api/repos/owner/name/issues/7/comments?per_page=100'"
peer+=" --next -sS --fail -o /dev/null --cacert $FAKE_CA $headers '$page2'"
peer+=" --next -sS --fail -o /dev/null --cacert $FAKE_CA $headers -X PATCH -H 'Content-Type: application/json'"
peer+=" --data-binary @$WORK/body.json $api/repos/owner/name/issues/comments/$comment_id"
SSL_CERT_FILE="$FAKE_CA" "$REFBENCH" compare --no-control --metric wall,cpu,rss --max-rounds "$rounds" \
  --min-rounds "$rounds" --budget 10m --seed 1 --out "$WORK/rb" --threshold 1000 \
  "$peer" "$REFBENCH comment --pr 7 --file $WORK/report.md" >/dev/null 2>"$WORK/err" ||
  { cat "$WORK/err" >&2; exit 1; }
"$PY" - "$WORK/rb/results.json" "$rounds" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"sticky comment update (list 2 pages of 150 comments + PATCH), {sys.argv[2]} interleaved rounds:")
print(f"  {'metric':6} {'curl (peer)':>14} {'refbench':>14}   ratio refbench/curl [95% CI]")
for a in r["analysis"]:
    unit = "MiB" if a["metric"] == "rss" else "ms"
    scale = 1 / 2**20 if a["metric"] == "rss" else 1e3
    print(f"  {a['metric']:6} {a['baseline_median'] * scale:11.2f} {unit:3}{a['candidate_median'] * scale:11.2f} {unit:3}"
          f"   {a['ratio']:.3f}x [{a['ci_low']:.3f}, {a['ci_high']:.3f}]")
PY
