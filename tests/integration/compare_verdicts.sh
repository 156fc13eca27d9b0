#!/usr/bin/env bash
# Verdicts and exit codes of compare (docs/manual/statistics.md, verdicts; docs/manual/commands.md#exit-codes).
source "$(dirname "$0")/lib.sh"
: "${SAMPLE_WORK:?}"
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }

# same program on both arms: PASS, exit 0, interval around 1
run_refbench compare -q --seed 8 --max-rounds 60 --out "$WORK/same" "$SAMPLE_WORK 10" "$SAMPLE_WORK 10"
expect_rc 0
expect_json "$WORK/same/results.json" "$(row compare wall)['verdict'] == 'PASS' and r['verdict'] == 'pass'"
expect_json "$WORK/same/results.json" "$(row compare wall)['ci_low'] < 1.05 and $(row compare wall)['ci_high'] < 1.15"

# less work in the candidate: IMPROVED, exit 0
run_refbench compare -q --seed 9 --max-rounds 20 --out "$WORK/faster" "$SAMPLE_WORK 20" "$SAMPLE_WORK 12"
expect_rc 0
expect_json "$WORK/faster/results.json" "$(row compare wall)['verdict'] == 'IMPROVED'"

# a regression with --fail-on never still reports it, but exits 0
run_refbench compare -q --seed 10 --max-rounds 12 --fail-on never --out "$WORK/never" "$SAMPLE_WORK 10" "$SAMPLE_WORK 20"
expect_rc 0
expect_json "$WORK/never/results.json" "r['verdict'] == 'regression'"

# too few rounds to say: INCONCLUSIVE; fails only with --fail-on inconclusive
run_refbench compare -q --seed 11 --max-rounds 3 --out "$WORK/few" "$SAMPLE_WORK 10" "$SAMPLE_WORK 10"
expect_rc 0
expect_json "$WORK/few/results.json" "$(row compare wall)['verdict'] == 'INCONCLUSIVE' and r['verdict'] == 'inconclusive'"
run_refbench compare -q --seed 11 --max-rounds 3 --fail-on inconclusive --out "$WORK/few2" "$SAMPLE_WORK 10" "$SAMPLE_WORK 10"
expect_rc 1

# precision stopping: an easy cell stops on precision long before max-rounds (100: room for a noisy machine)
run_refbench compare -q --seed 12 --max-rounds 100 --min-rounds 8 --precision 0.05 --out "$WORK/prec" "$SAMPLE_WORK 10" "$SAMPLE_WORK 10"
expect_json "$WORK/prec/results.json" "r['cells'][0]['stop_reason'] == 'precision' and r['cells'][0]['rounds'] < 100"
expect_json "$WORK/prec/results.json" "$(row compare wall)['min_detectable_ratio'] <= 1.052"

# bootstrap intervals are available and recorded
run_refbench compare -q --seed 13 --max-rounds 12 --interval bootstrap --out "$WORK/boot" "$SAMPLE_WORK 10" "$SAMPLE_WORK 20"
expect_rc 1
expect_json "$WORK/boot/results.json" "r['settings']['interval'] == 'bootstrap' and $(row compare wall)['ci_low'] > 1.5"
echo "ok: PASS/IMPROVED/REGRESSION/INCONCLUSIVE and their exit codes"
