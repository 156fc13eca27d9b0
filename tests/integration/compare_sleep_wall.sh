#!/usr/bin/env bash
# A 0.2 s sleep reports wall ≈ 0.2 s and cpu ≈ 0.
source "$(dirname "$0")/lib.sh"
run_refbench compare -q --seed 3 --max-rounds 4 --warmup 0 --no-control --out "$WORK/o" "sleep 0.2" "sleep 0.2"
expect_rc 0
for arm in baseline candidate; do
  expect_json "$WORK/o/results.json" "0.195 <= med(samples('compare', '$arm', 'wall')) <= 0.26"
  expect_json "$WORK/o/results.json" "med(samples('compare', '$arm', 'cpu')) < 0.02"
done
expect_json "$WORK/o/results.json" "[c['name'] for c in r['cells']] == ['compare']"
echo "ok: sleep 0.2 → wall 0.2 s, cpu ≈ 0"
