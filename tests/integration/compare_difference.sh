#!/usr/bin/env bash
# The bundled example: `work 30` does 1.5x the work of `work 20`; the ratio of
# medians shows it and the A/A control stays near 1.
source "$(dirname "$0")/lib.sh"
: "${SAMPLE_WORK:?}"
run_refbench compare --seed 4 --max-rounds 12 --out "$WORK/o" "$SAMPLE_WORK 20" "$SAMPLE_WORK 30"
expect_rc 0
expect_json "$WORK/o/results.json" "1.3 <= next(m for m in r['medians'] if m['cell'] == 'compare' and m['metric'] == 'cpu')['ratio_of_medians'] <= 1.7"
expect_json "$WORK/o/results.json" "0.85 <= next(m for m in r['medians'] if m['cell'] == 'compare-control' and m['metric'] == 'cpu')['ratio_of_medians'] <= 1.15"
grep -E '^compare +wall ' "$WORK/out" >/dev/null || fail "no wall row: $(cat "$WORK/out")"
# Not a TTY: one plain progress line per round on stderr.
[ "$(grep -c '^refbench: round ' "$WORK/err")" -eq 12 ] || fail "expected 12 progress lines: $(cat "$WORK/err")"
echo "ok: 1.5x work shows as ~1.5x"
