#!/usr/bin/env bash
# Nightly history (docs/manual/history.md): six nights chained with
# `--baseline history-last`, five of them 4 % slower than the night before
# (no link a REGRESSION at 1.15x): `refbench history` calls the creep, with
# a cumulative interval above 1.10, and names the links that moved most; a
# chain of six docs-only nights is no creep. Appends are whole lines, one
# run once; bad lines are skipped by line number; another repository's or
# another schema's lines are refused; history-last refuses an empty history.
source "$(dirname "$0")/lib.sh"
repo="$WORK/repo"
mkdir -p "$repo/bin"
work() { # the program of a night: sleeps $1 µs
  printf '#!/bin/sh\nexec sleep 0.%06d\n' "$1" >"$repo/bin/work"
  chmod +x "$repo/bin/work"
}
work 50000 # 50 ms: what a loaded machine adds to every invocation dilutes a 4 % step less
cat >"$repo/refbench.toml" <<'EOF'
[build]
command = "true"

[run]
min_rounds = 16
precision = 0.02
max_rounds = 40 # a loaded machine gets more rounds: the creep check needs ±2 % a link
replicas = 1

[[cell]]
name = "work"
command = ["{arm}/bin/work"]
EOF
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m night0
git_in "$repo" tag night0
micros=50000
for night in 1 2 3 4 5; do # +4 % a night
  micros=$((micros * 104 / 100))
  work "$micros"
  git_in "$repo" commit -q -am "night$night"
  git_in "$repo" tag "night$night"
done
echo docs >"$repo/NOTES"
git_in "$repo" add -A
git_in "$repo" commit -q -m night6
git_in "$repo" tag night6

H="$WORK/history"
# history-last with nothing in the history yet: refused before anything is built
run_refbench run -q --repo "$repo" --baseline history-last --candidate night1 --history "$H" --out "$WORK/o0"
expect_rc 3
expect_in "$WORK/err" "history-last: the history in"
[ ! -e "$WORK/o0/arms" ] || fail "a refused run made worktrees"

run_refbench run -q --repo "$repo" --baseline night0 --candidate night1 --history "$H" --seed 1 --out "$WORK/o1"
expect_rc 0
for night in 2 3 4 5 6; do
  run_refbench run -q --repo "$repo" --baseline history-last --candidate "night$night" --history "$H" --seed "$night" \
    --out "$WORK/o$night"
  expect_rc 0
  expect_json "$WORK/o$night/results.json" "r['arms']['baseline']['ref'] == 'history-last' and r['arms']['baseline']['sha'] == '$(git_in "$repo" rev-parse "night$((night - 1))")'"
done
[ "$(wc -l <"$H/history.jsonl")" = 18 ] || fail "expected 6 runs × 3 metrics = 18 lines, got $(wc -l <"$H/history.jsonl")"
# the history's gate may be stricter than a run's: 1.10 over the chain, 1.15 a night
run_refbench history "$H" --format json --threshold 1.10
expect_rc 1
cp "$WORK/out" "$WORK/h.json"
S="next(s for s in r['series'] if s['metric'] == 'wall')"
expect_json "$WORK/h.json" "$S['chained'] and $S['links'] == 6 and $S['verdict'] == 'REGRESSION (creep)'"
expect_json "$WORK/h.json" "$S['cumulative_ci_low'] > 1.10 and 1.12 < $S['cumulative_ratio'] < 1.30 and all(p['ci_high'] < 1.15 for p in $S['points'])"
expect_json "$WORK/h.json" "all(p['verdict'] != 'REGRESSION' for p in $S['points'])"
# six links under the default window of 30: the window is the whole chain, and exit 1 follows it
expect_json "$WORK/h.json" "$S['window']['links'] == 6 and $S['window']['verdict'] == $S['verdict'] and $S['window']['cumulative_ratio'] == $S['cumulative_ratio']"
moved="[p['candidate']['ref'] for p in $S['points'] if p['candidate']['sha'] in $S['moved_most']]"
expect_json "$WORK/h.json" "len($S['moved_most']) == 3 and 'night6' not in $moved"
# the order is the commits', not the lines': shuffle the lines, same chain
shuf --random-source=<(yes) "$H/history.jsonl" >"$WORK/shuffled.jsonl"
mkdir -p "$WORK/h2" && cp "$WORK/shuffled.jsonl" "$WORK/h2/history.jsonl"
# … and a bad line and a torn one are skipped, by line number
printf 'not json\n' >>"$WORK/h2/history.jsonl"
printf '{"schema_version": 1, "time": "x"' >>"$WORK/h2/history.jsonl"
run_refbench history "$WORK/h2" --format json --threshold 1.10
expect_rc 1
expect_in "$WORK/err" "history.jsonl:19: skipped, not a JSON line"
expect_in "$WORK/err" "history.jsonl:20: skipped"
cp "$WORK/out" "$WORK/h2.json"
expect_json "$WORK/h2.json" "[p['candidate']['sha'] for p in $S['points']] == $(json_eval "$WORK/h.json" "[p['candidate']['sha'] for p in $S['points']]")"
# Markdown: a table cmark-gfm reads, a Mermaid chart Mermaid's parser accepts
run_refbench history "$H" --threshold 1.10
expect_rc 1
cp "$WORK/out" "$WORK/h.md"
expect_in "$WORK/h.md" "| work | wall | 6 links |"
expect_in "$WORK/h.md" "REGRESSION (creep)"
cmark-gfm -e table "$WORK/h.md" | grep -q "<td>REGRESSION (creep)</td>" || fail "cmark-gfm does not read the history table"
expect_mermaid "$WORK/h.md" 1
# HTML: one self-contained page, one series path per series, no script, no URL
run_refbench history "$H" --format html --threshold 1.10
expect_rc 1
cp "$WORK/out" "$WORK/h.html"
[ "$(grep -c 'class="series"' "$WORK/h.html")" = 3 ] || fail "expected one series path per series"
! grep -qiE '<script|https?://[a-z]' "$WORK/h.html" || fail "the HTML page loads something"
# … and in a real browser (Debian's Chromium, headless): the DOM it built holds one series path
# per chart, and the screenshot is a chart, not a blank page
command -v chromium >/dev/null || fail "chromium is not installed: run scripts/install-deps.sh"
browse() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/chrome" \
    --window-size=800,1000 "$@" "file://$WORK/h.html" 2>>"$WORK/chromium.log"
}
browse --dump-dom >"$WORK/dom.html" || fail "chromium --dump-dom failed: $(tail -3 "$WORK/chromium.log")"
"$PY" - "$WORK/dom.html" <<'PY' || fail "the browser's DOM: $(head -c 300 "$WORK/dom.html")"
import sys
from html.parser import HTMLParser
class Charts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts = []
    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.charts.append(0)
        elif tag == "path" and ("class", "series") in attrs and self.charts:
            self.charts[-1] += 1
charts = Charts()
charts.feed(open(sys.argv[1]).read())
sys.exit(0 if charts.charts == [1, 1, 1] else 1)
PY
browse --screenshot="$WORK/h.png" >/dev/null || fail "chromium --screenshot failed: $(tail -3 "$WORK/chromium.log")"
read -r width height colours ink < <("$PY" "$(dirname "$0")/png_stats.py" "$WORK/h.png")
[ "$width" = 800 ] && [ "$colours" -ge 8 ] && "$PY" -c "import sys; sys.exit(not 0.02 < $ink < 0.9)" ||
  fail "the screenshot looks blank: ${width}x$height, $colours colours, $ink of it not background"

# a pull request's run reads the history, never writes it, and says where its ratio sits in the band
git_in "$repo" checkout -q -b feat night6
work 75000
git_in "$repo" commit -q -am "a slower PR"
cat >"$WORK/pr.json" <<JSON
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7, "base": {"ref": "main", "sha": "$(git_in "$repo" rev-parse night6)"},
   "head": {"ref": "feat", "sha": "$(git_in "$repo" rev-parse feat)"}}}
JSON
lines=$(wc -l <"$H/history.jsonl")
mkdir -p "$WORK/pr.gh"
set +e
GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$WORK/pr.json" GITHUB_STEP_SUMMARY="$WORK/pr.gh/summary" \
  GITHUB_OUTPUT="$WORK/pr.gh/output" "$REFBENCH" run -q --github --repo "$repo" --history "$H" --out "$WORK/pr" \
  --seed 3 >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
expect_rc 1
[ "$(wc -l <"$H/history.jsonl")" = "$lines" ] || fail "a pull request's run wrote to the history"
expect_json "$WORK/pr/results.json" "(lambda w: w['cell'] == 'work' and w['history']['points'] == 6 and w['history']['z'] > 2)(next(w for w in r['warnings'] if 'history' in w))"
expect_in "$WORK/pr/report.md" "history: \`work\` wall"
git_in "$repo" checkout -q main

# a flat chain: six docs-only nights
F="$WORK/flat"
echo 0 >"$repo/NOTES"
git_in "$repo" commit -q -am flat0
git_in "$repo" tag flat0
run_refbench run -q --repo "$repo" --baseline night6 --candidate flat0 --history "$F" --seed 11 --out "$WORK/f0"
expect_rc 0
for i in 1 2 3 4 5; do
  echo "$i" >"$repo/NOTES"
  git_in "$repo" commit -q -am "flat$i"
  run_refbench run -q --repo "$repo" --baseline history-last --candidate main --history "$F" --seed "1$i" \
    --out "$WORK/f$i"
  expect_rc 0
done
run_refbench history "$F" --format json --cells 'w*' --threshold 1.10
expect_rc 0
cp "$WORK/out" "$WORK/f.json"
expect_json "$WORK/f.json" "$S['links'] == 6 and $S['verdict'] == 'PASS' and $S['cumulative_ci_low'] < 1.10"

# a run appended twice is one run
cp "$F/history.jsonl" "$WORK/before.jsonl"
tail -3 "$F/history.jsonl" >>"$F/history.jsonl"
run_refbench history "$F" --format json
expect_rc 0
# refused: another repository's record, another schema version, a --cells glob that matches nothing
sed -e '1s/"repository":"[0-9a-f]*"/"repository":"0000000000000000000000000000000000000000"/' "$WORK/before.jsonl" \
  >"$F/history.jsonl"
run_refbench run -q --repo "$repo" --baseline history-last --candidate main --history "$F" --out "$WORK/f9" \
  --allow-same-commit
expect_rc 2
expect_in "$WORK/err" "history.jsonl:1: a record of another repository"
sed -e '1s/"schema_version":1/"schema_version":9/' "$WORK/before.jsonl" >"$F/history.jsonl"
run_refbench history "$F"
expect_rc 2
expect_in "$WORK/err" "history.jsonl:1: history schema_version 9 is not 1"
cp "$WORK/before.jsonl" "$F/history.jsonl"
run_refbench history "$F" --cells 'nothing*'
expect_rc 2
expect_in "$WORK/err" "--cells 'nothing*' matches no cell of the history"
# a planted symlink is refused, never written through
mkdir -p "$WORK/h4" && ln -s "$WORK/target.jsonl" "$WORK/h4/history.jsonl"
run_refbench run -q --repo "$repo" --baseline night5 --candidate night6 --history "$WORK/h4" --out "$WORK/o9"
expect_rc 3
[ ! -e "$WORK/target.jsonl" ] || fail "the history was written through a symlink"
# lines whose ratios no run writes are each skipped with a warning, and a history left with no
# series is refused (exit 3), never "✅ no regression · 0 series"
mkdir -p "$WORK/h5"
/usr/bin/python3 - "$H/history.jsonl" "$WORK/h5/history.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[2], "w") as out:
    for i, line in enumerate(lines):
        if i % 2:
            line["ratio"] = -line["ratio"]
        else:
            line["ci_low"], line["ci_high"] = 2.0, 0.5
        out.write(json.dumps(line) + "\n")
PY
run_refbench history "$WORK/h5"
expect_rc 3
[ "$(grep -c 'jsonl:[0-9]*: skipped, ' "$WORK/err")" = "$(wc -l <"$WORK/h5/history.jsonl")" ] ||
  fail "a dropped line without its warning: $(wc -l <"$WORK/h5/history.jsonl") lines; stderr: $(cat "$WORK/err")"
expect_in "$WORK/err" "not a positive ratio"
expect_in "$WORK/err" "has no records ($(wc -l <"$WORK/h5/history.jsonl") lines skipped, above)"
! grep -q "no regression" "$WORK/out" || fail "an empty history read as no regression"
mkdir -p "$WORK/h6" # records of failed cells only: no ratio, so no series
/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.strip():
        line = json.loads(l)
        line.update(ratio=None, ci_low=None, ci_high=None, verdict="ERROR")
        print(json.dumps(line))' "$H/history.jsonl" >"$WORK/h6/history.jsonl"
run_refbench history "$WORK/h6"
expect_rc 3
expect_in "$WORK/err" "records and no series with a ratio to judge"
! grep -q "no regression" "$WORK/out" || fail "a history of no series read as no regression"
echo "ok: a creep of five 4 % nights is found across a chain; a docs-only chain is not"
