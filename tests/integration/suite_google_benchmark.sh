#!/usr/bin/env bash
# Suites (docs/manual/suites.md) with the real Google Benchmark: the example's
# eight benchmarks (one a three-level ->Arg sweep) between two refs where
# the candidate makes BM_hash 1.4x slower, adds BM_new and removes BM_old.
# Exactly BM_hash is a REGRESSION, BM_new is NEW, BM_old is listed as
# removed, the sweep has its table and chart; an A/A run of the same suite
# has no REGRESSION; --cells narrows the suite through its harness's filter;
# --shard K/2 splits its benchmarks by family, and the merged shards hold
# every row once. The regression is explained with the suite narrowed to it.
# PARALLEL (tests/integration/CMakeLists.txt): gated on cpu_time, it passed beside
# `yes` on each CPU (78 s)
source "$(dirname "$0")/lib.sh"
[ -f /usr/include/benchmark/benchmark.h ] || skip "libbenchmark-dev is not installed (scripts/install-deps.sh)"
EXAMPLES="$(cd "$(dirname "$0")/../../examples/suites" && pwd)"
repo="$WORK/repo"
"$EXAMPLES/two-refs.sh" google-benchmark "$repo" >/dev/null
# shorter benchmarks than the example's (0.05 s each), gated on their CPU time (a measure named in gate):
# beside a CPU hog on each CPU, preemption stretches real_time, not cpu_time
sed 's/--benchmark_min_time=0.05/--benchmark_min_time=0.02/' "$repo/refbench.toml" >"$WORK/refbench.toml"
printf 'gate = ["cpu_time"]\n' >>"$WORK/refbench.toml"

run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate candidate --seed 7 --max-rounds 20 --out "$WORK/o"
expect_rc 1
R="$WORK/o/results.json"
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if a['verdict'] == 'REGRESSION' and a['gated']}) == ['micro/BM_hash']"
expect_json "$R" "1.25 <= next(a['ratio'] for a in r['analysis'] if a['cell'] == 'micro/BM_hash' and a['metric'] == 'cpu_time') <= 1.6"
expect_json "$R" "{a['verdict'] for a in r['analysis'] if a['cell'] == 'micro/BM_new'} == {'NEW'}"
expect_json "$R" "r['removed_cells'] == ['micro/BM_old']"
expect_json "$R" "not any(a['cell'].startswith('micro/BM_old') for a in r['analysis'])"
# rows named CELL/BENCHMARK with the harness's measures; the gate is the measure named
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if not a['control']}) == sorted(['micro/BM_hash', 'micro/BM_mix', 'micro/BM_fill', 'micro/BM_sum', 'micro/BM_new', 'micro/BM_vec/256', 'micro/BM_vec/1024', 'micro/BM_vec/4096'])"
expect_json "$R" "{a['metric'] for a in r['analysis'] if a['gated']} == {'cpu_time'}"
expect_json "$R" "{a['metric'] for a in r['analysis'] if a['cell'] == 'micro/BM_vec/256'} == {'real_time', 'cpu_time', 'items_per_second'}"
expect_json "$R" "next(a for a in r['analysis'] if a['cell'] == 'micro/BM_vec/256' and a['metric'] == 'items_per_second')['better'] == 'higher'"
# the control's rows set each row's own floor
expect_json "$R" "all(a['noise_floor'] is not None for a in r['analysis'] if a['metric'] == 'cpu_time' and not a['control'] and a['cell'] != 'micro/BM_new')"
# the regression is explained (docs/manual/explanations.md): the suite narrowed to BM_hash through its filter,
# run once per arm under callgrind, its functions named
E="next(e for e in r['explanations'] if e['cell'] == 'micro/BM_hash')"
expect_json "$R" "[e['cell'] for e in r['explanations']] == ['micro/BM_hash']"
expect_json "$R" "'narrowed to BM_hash through google-benchmark' in $E['scope'] and $E['seconds'] > 0"
expect_json "$R" "len($E['functions']) > 0 and $E['graph'].startswith('why/')"
M="$WORK/o/report.md"
expect_in "$M" "**Removed** since the baseline (not measured): \`micro/BM_old\`"
expect_in "$M" "**Sweep \`micro/BM_vec/{arg}\`** (3 levels)"
expect_in "$M" "| micro/BM_hash | real_time |"
expect_mermaid "$M" 1

# the journal says the same
run_refbench report "$WORK/o/journal.jsonl" --format json --fail-on never
expect_rc 0
cp "$WORK/out" "$WORK/replay.json"
expect_json "$WORK/replay.json" "r['removed_cells'] == ['micro/BM_old'] and [a['verdict'] for a in r['analysis'] if a['cell'] == 'micro/BM_hash' and a['metric'] == 'cpu_time'] == ['REGRESSION']"

# A/A: the same suite on both arms has no REGRESSION
run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate baseline --allow-same-commit --seed 8 --max-rounds 10 --out "$WORK/aa"
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "A/A exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/aa/results.json" "not any(a['verdict'] == 'REGRESSION' for a in r['analysis'])"
expect_json "$WORK/aa/results.json" "r.get('removed_cells', []) == [] and not any(a['verdict'] == 'NEW' for a in r['analysis'])"

# --cells picks benchmarks of the suite, and the harness runs only those
run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate candidate --seed 9 --max-rounds 10 --cells 'micro/BM_vec*' --out "$WORK/c"
expect_rc 0
expect_json "$WORK/c/results.json" "sorted({a['cell'] for a in r['analysis'] if not a['control']}) == ['micro/BM_vec/1024', 'micro/BM_vec/256', 'micro/BM_vec/4096']"
expect_json "$WORK/c/results.json" "r.get('removed_cells', []) == []"
grep -q '"name":"BM_hash"' "$WORK/c/journal.jsonl" && fail "--cells 'micro/BM_vec*' ran BM_hash: the harness's filter was not passed"

# --shard K/2: the suite's 9 benchmarks (both arms') in 7 families, the
# heaviest first to the lighter shard: BM_vec's three levels, BM_new and
# BM_sum on shard 1; BM_fill, BM_hash, BM_mix and the removed BM_old on 2.
# Each shard lists the suite once per arm, then runs its share through
# --benchmark_filter.
for k in 1 2; do
  run_refbench run --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate candidate \
    --seed 10 --min-rounds 4 --max-rounds 4 --shard "$k/2" --out "$WORK/shard-$k"
  [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "shard $k/2: exit $RC: $(cat "$WORK/err")"
  cp "$WORK/err" "$WORK/shard-$k.err"
done
expect_in "$WORK/shard-1.err" "refbench: shard 1/2: suite micro: 5 of its 9 benchmarks"
expect_in "$WORK/shard-2.err" "refbench: shard 2/2: suite micro: 4 of its 9 benchmarks"
rows="sorted({a['cell'] for a in r['analysis'] if not a['control']})"
expect_json "$WORK/shard-1/results.json" "$rows == ['micro/BM_new', 'micro/BM_sum', 'micro/BM_vec/1024', 'micro/BM_vec/256', 'micro/BM_vec/4096']"
expect_json "$WORK/shard-1/results.json" "r.get('removed_cells', []) == []"
expect_json "$WORK/shard-2/results.json" "$rows == ['micro/BM_fill', 'micro/BM_hash', 'micro/BM_mix']"
expect_json "$WORK/shard-2/results.json" "r['removed_cells'] == ['micro/BM_old']"
# the harness ran only the shard's families after the listing (round 0)
measured="sorted({b['name'] for l in open(sys.argv[1]) for s in [json.loads(l)] if s.get('round', 0) > 0 for b in s.get('benchmarks', [])})"
[ "$(python3 -c "import json, sys; print($measured)" "$WORK/shard-1/journal.jsonl")" = \
  "['BM_new', 'BM_sum', 'BM_vec/1024', 'BM_vec/256', 'BM_vec/4096']" ] ||
  fail "shard 1 ran other benchmarks: $(python3 -c "import json, sys; print($measured)" "$WORK/shard-1/journal.jsonl")"
[ "$(python3 -c "import json, sys; print($measured)" "$WORK/shard-2/journal.jsonl")" = \
  "['BM_fill', 'BM_hash', 'BM_mix', 'BM_old']" ] ||
  fail "shard 2 ran other benchmarks: $(python3 -c "import json, sys; print($measured)" "$WORK/shard-2/journal.jsonl")"
# merged, the shards are the whole suite: every row once, BM_old removed
run_refbench report --format json --fail-on never "$WORK/shard-1/results.json" "$WORK/shard-2/results.json"
expect_rc 0
cp "$WORK/out" "$WORK/merged.json"
expect_json "$WORK/merged.json" "$rows == sorted(['micro/BM_hash', 'micro/BM_mix', 'micro/BM_fill', 'micro/BM_sum', 'micro/BM_new', 'micro/BM_vec/256', 'micro/BM_vec/1024', 'micro/BM_vec/4096'])"
expect_json "$WORK/merged.json" "r['removed_cells'] == ['micro/BM_old']"
# more shards than families: the eighth of 8 gets none, and says so
run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate candidate \
  --seed 10 --min-rounds 4 --max-rounds 4 --shard 8/8 --out "$WORK/shard-8"
expect_rc 2
expect_in "$WORK/err" "--shard 8/8: this shard gets no cell and none of the suites' benchmarks"
