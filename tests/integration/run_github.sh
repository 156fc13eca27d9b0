#!/usr/bin/env bash
# refbench run --github on a real git repository, for a pull_request: the
# baseline is the merge base of base and head, the candidate the head; the
# run is handed back to the job through $GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT,
# ::error annotations and comment.json. The other events, flags over them
# and the refusals are run_github_events.sh (they time nothing).
source "$(dirname "$0")/lib.sh"
github_sample

# pull_request: baseline = merge base of base and head, candidate = head
pull_request_event "$head_sha" >"$WORK/pr.json"
github_run pull_request "$WORK/pr.json" pr --max-rounds 20
expect_rc 1
r="$WORK/pr/results.json"
expect_json "$r" "r['arms']['baseline']['sha'] == '$fork_sha' and r['arms']['candidate']['sha'] == '$head_sha'"
expect_json "$r" "r['arms']['baseline']['name'] == 'release' and r['arms']['candidate']['name'] == 'feat/slower'"
expect_in "$WORK/pr/report.md" "baseline \`release\` (${fork_sha:0:7}) vs candidate \`feat/slower\` (${head_sha:0:7})"
# outputs: exactly these keys, with the run's values
[ "$(cut -d= -f1 "$WORK/pr.gh/output" | tr '\n' ' ')" = "verdict regressions report results baseline-sha candidate-sha " ] ||
  fail "GITHUB_OUTPUT keys: $(cat "$WORK/pr.gh/output")"
[ "$(output_of "$WORK/pr.gh/output" verdict)" = regression ] || fail "verdict output: $(cat "$WORK/pr.gh/output")"
[ "$(output_of "$WORK/pr.gh/output" baseline-sha)" = "$fork_sha" ] && [ "$(output_of "$WORK/pr.gh/output" candidate-sha)" = "$head_sha" ] ||
  fail "the SHA outputs: $(cat "$WORK/pr.gh/output")"
# the gated metrics that regressed, as the title counts them (not the "(info)" rows)
regressions=$(json_eval "$r" "sum(a['verdict'] == 'REGRESSION' and a['gated'] and not a['control'] for a in r['analysis'])")
[ "$regressions" -ge 1 ] || fail "the slower PR has no regression"
[ "$(output_of "$WORK/pr.gh/output" regressions)" = "$regressions" ] || fail "regressions output"
[ "$(output_of "$WORK/pr.gh/output" report)" = "$WORK/pr/report.md" ] || fail "report output"
[ "$(output_of "$WORK/pr.gh/output" results)" = "$r" ] || fail "results output"
# the step summary is the report
cmp -s <(cat "$WORK/pr/report.md" && echo) "$WORK/pr.gh/summary" || fail "step summary is not report.md"
# one ::error per gated regression, worst first
grep '^::error ' "$WORK/out" >"$WORK/annotations" || fail "no ::error annotation: $(cat "$WORK/out")"
[ "$(wc -l <"$WORK/annotations")" -eq "$regressions" ] || fail "annotations: $(cat "$WORK/annotations")"
"$PY" - "$WORK/annotations" "$r" <<'PY' || fail "annotations not worst first"
import json, math, re, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.load(open(sys.argv[2]))
want = sorted((a for a in r["analysis"] if a["verdict"] == "REGRESSION" and a["gated"] and not a["control"]), key=lambda a: -abs(math.log(a["ratio"])))
for line, a in zip(lines, want):
    assert line.startswith("::error title=refbench%3A " + a["cell"] + " " + a["metric"] + "::"), line
    assert "%.3fx" % a["ratio"] in line, line
PY
# comment.json for the fork-safe commenter
expect_json "$WORK/pr/comment.json" "r['pr'] == 7 and r['body'] == open('$WORK/pr/report.md').read()"
expect_json "$WORK/pr/comment.json" "r['body'].split(chr(10))[0] == '<!-- refbench -->'"

echo "ok: --github for pull_request: refs, summary, outputs, annotations, comment.json"
