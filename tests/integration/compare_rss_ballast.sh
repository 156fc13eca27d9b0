#!/usr/bin/env bash
# `true` is reported under 5 MiB even while refbench itself holds 300 MiB:
# the launcher, not refbench, spawns the benchmarked processes. And the
# launcher's own share, each sample's `rss_floor` and the run's floor, is
# at most 2 MiB, in its box and out of it (docs/design.md, Peak RSS and its
# floor; .ci/run runs this against the static release binary too).
source "$(dirname "$0")/lib.sh"
REFBENCH_TEST_BALLAST_MIB=300 run_refbench compare -q --seed 2 --max-rounds 5 --out "$WORK/o" true true
expect_rc 0
expect_json "$WORK/o/results.json" "r['harness_peak_rss_bytes'] >= 256 * 2**20"
expect_json "$WORK/o/results.json" "max(samples('compare', 'baseline', 'rss') + samples('compare', 'candidate', 'rss')) < 5 * 2**20"
expect_json "$WORK/o/results.json" "0 < r['rss']['floor_bytes'] < 5 * 2**20"
# At the launcher floor a 1.000x ratio means nothing: the table says so.
grep -E '^\| compare \| rss \| .* \| CENSORED \(info\) \|$' "$WORK/out" >/dev/null || fail "rss of true not censored: $(cat "$WORK/out")"
expect_json "$WORK/o/results.json" "next(a for a in r['analysis'] if a['metric'] == 'rss' and a['cell'] == 'compare')['censored']"
for box in auto off; do
  run_refbench compare -q --seed 3 --no-control --max-rounds 5 --min-rounds 5 --sandbox "$box" --out "$WORK/floor-$box" true true
  expect_rc 0
  for arm in baseline candidate; do
    expect_json "$WORK/floor-$box/results.json" "all(0 < v <= 2 * 2**20 for v in samples('compare', '$arm', 'rss_floor'))"
  done
  expect_json "$WORK/floor-$box/results.json" "0 < r['rss']['floor_bytes'] <= 2 * 2**20"
done
echo "ok: true under 5 MiB while refbench holds 300 MiB; the launcher's floor at most 2 MiB, boxed or not"
