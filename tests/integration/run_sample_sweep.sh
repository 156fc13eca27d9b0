#!/usr/bin/env bash
# The sample project's load sweep (docs/manual/config.md#a-load-sweep-the-sample-projects-sweeptoml): sweep.toml run
# against the slower-service candidate, shortened to 4 rounds. Three levels
# (1, 8, 32 connections) with the control, each with throughput, a p99 with
# its ceiling and SLO, and the error count as a count metric; the sweep table
# and its charts render; throughput is clearly lower at every level (1.4x the
# work per request); errors stay 0 (±0) in both arms.
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || skip "wrk is not installed (scripts/install-deps.sh)"
command -v taskset >/dev/null || skip "taskset is not installed"
repo=$(make_sample slower-service)
run_refbench run -q --repo "$repo" -c "$repo/sweep.toml" --baseline v1.0.0 --candidate main \
  --min-rounds 4 --max-rounds 4 --seed 4 --out "$WORK/o"
[ "$RC" -le 1 ] || fail "the sample sweep exited $RC: $(cat "$WORK/err")"
R="$WORK/o/results.json"
expect_json "$R" "[c['name'] for c in r['cells']] == ['http-1c', 'http-8c', 'http-32c', r['cells'][3]['name']] and r['cells'][3]['control']"
expect_json "$R" "[c['meta']['params'] for c in r['cells'][:3]] == [[['connections', '1']], [['connections', '8']], [['connections', '32']]]"
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }
for level in 1 8 32; do
  expect_json "$R" "$(row "http-${level}c" throughput)['ratio'] < 0.9"
  expect_json "$R" "$(row "http-${level}c" errors)['kind'] == 'count' and $(row "http-${level}c" errors)['difference'] == 0"
  expect_json "$R" "$(row "http-${level}c" p99)['slo'] == '<= 500' and $(row "http-${level}c" p99)['baseline_slo_share'] is not None"
done
expect_json "$R" "[m['censor_above'] for m in r['cells'][0]['meta']['custom'] if m['name'] == 'p99'] == [1000]"
M="$WORK/o/report.md"
expect_in "$M" "**Sweep \`http-{connections}c\`** (3 levels)"
expect_in "$M" 'x-axis "connections" ["1", "8", "32"]'
[ "$(grep -c '^```mermaid$' "$M")" -eq 3 ] || fail "expected a chart each for throughput, p99 and errors"
expect_in "$M" "| http-1c | errors | 0 | 0 | ±0 [±0, ±0] |"
echo "ok: the sample project's load sweep runs and renders its sweep table and charts"
