#!/usr/bin/env bash
# A program touching exactly N MiB is reported within [N, N + 4] MiB.
source "$(dirname "$0")/lib.sh"
build_fixture touch_mib
for n in 16 64; do
  run_refbench compare -q --seed 1 --max-rounds 5 --warmup 0 --out "$WORK/out$n" \
    "$WORK/touch_mib $n" "$WORK/touch_mib $n"
  expect_rc 0
  for arm in baseline candidate; do
    expect_json "$WORK/out$n/results.json" \
      "all($n * 2**20 <= v <= ($n + 4) * 2**20 for v in samples('compare', '$arm', 'rss'))"
  done
done
echo "ok: touched N MiB reported within [N, N+4] MiB"
