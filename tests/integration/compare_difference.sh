#!/usr/bin/env bash
# The bundled example: `work 30` does 1.5x the work of `work 20`. The wall
# ratio and its interval show it, the A/A control passes, the run exits 1.
source "$(dirname "$0")/lib.sh"
: "${SAMPLE_WORK:?}"
# up to 30 rounds: the A/A control must land inside ±15 % on a loaded machine too (a precise cell stops early)
run_refbench compare --seed 4 --max-rounds 30 --out "$WORK/o" "$SAMPLE_WORK 20" "$SAMPLE_WORK 30"
expect_rc 1
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }
expect_json "$WORK/o/results.json" "1.3 <= $(row compare wall)['ratio'] <= 1.7"
expect_json "$WORK/o/results.json" "$(row compare wall)['ci_low'] > 1.15 and $(row compare wall)['verdict'] == 'REGRESSION'"
expect_json "$WORK/o/results.json" "$(row compare wall)['p_bh'] < 0.05 and $(row compare wall)['gated']"
# an A/A interval misses 1.0 one run in twenty by design: it must stay well inside the threshold
expect_json "$WORK/o/results.json" "1 / 1.15 < $(row compare-control wall)['ci_low'] <= $(row compare-control wall)['ci_high'] < 1.15"
expect_json "$WORK/o/results.json" "$(row compare-control wall)['verdict'] == 'PASS'"
expect_json "$WORK/o/results.json" "$(row compare cpu)['verdict'] == 'REGRESSION' and not $(row compare cpu)['gated']"
expect_json "$WORK/o/results.json" "r['verdict'] == 'regression'"
grep -E '^\| compare \| wall \| .* \| REGRESSION \|$' "$WORK/out" >/dev/null || fail "no REGRESSION row: $(cat "$WORK/out")"
grep -E '^\| compare \| cpu \| .* \| REGRESSION \(info\) \|$' "$WORK/out" >/dev/null || fail "no info row: $(cat "$WORK/out")"
# Not a TTY: one plain progress line per round on stderr. A cell that has
# decided stops early, so the run's rounds are the most any cell ran.
rounds=$(json_eval "$WORK/o/results.json" "max(c['rounds'] for c in r['cells'])")
[ "$(grep -c '^refbench: round ' "$WORK/err")" -eq "$rounds" ] || fail "expected $rounds progress lines: $(cat "$WORK/err")"
echo "ok: 1.5x work is a REGRESSION, the control passes"
