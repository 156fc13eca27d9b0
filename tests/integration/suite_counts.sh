#!/usr/bin/env bash
# Counts per benchmark (docs/manual/suites.md#counts-per-benchmark) with the real
# Google Benchmark under valgrind. The example counted (refbench-counts.toml):
# BM_hash, made 1.4x slower, reads instructions 1.40x REGRESSION on its row
# alone, every other row 1.000 on instructions and allocations, bisect on
# that row's count names the commit, and an A/A keeps every row at 1.000. The fixture (tests/fixtures/suite-counts), every
# way a benchmark is written: a +2 % loop is a REGRESSION at the count
# threshold (1.01), a loop that allocates twice as much reads allocations
# 2.00x, a fixture, a template, a lambda and fixed iterations read 1.000,
# and a benchmark on two threads is its row's ERROR, saying why. Counts do
# not drift, so this is no TIMING scenario: it passed beside `yes` on each CPU.
source "$(dirname "$0")/lib.sh"
[ -f /usr/include/benchmark/benchmark.h ] || skip "libbenchmark-dev is not installed (scripts/install-deps.sh)"
command -v valgrind >/dev/null || skip "valgrind is not installed (scripts/install-deps.sh)"
EXAMPLES="$(cd "$(dirname "$0")/../../examples/suites" && pwd)"
repo="$WORK/repo"
"$EXAMPLES/two-refs.sh" google-benchmark "$repo" >/dev/null
# shorter timed runs than the example's (0.01 s a benchmark, what the counted run uses too)
sed 's/--benchmark_min_time=0.05/--benchmark_min_time=0.01/' "$repo/refbench-counts.toml" >"$WORK/counts.toml"
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }

run_refbench run -q --repo "$repo" --config "$WORK/counts.toml" --baseline baseline --candidate candidate \
  --seed 11 --min-rounds 8 --max-rounds 8 --out "$WORK/o"
expect_rc 1
R="$WORK/o/results.json"
echo "BM_hash: $(json_eval "$R" "($(row micro/BM_hash instructions)['baseline_median'], $(row micro/BM_hash instructions)['candidate_median'], $(row micro/BM_hash instructions)['ratio'])")"
expect_json "$R" "$(row micro/BM_hash instructions)['verdict'] == 'REGRESSION' and $(row micro/BM_hash instructions)['gated']"
expect_json "$R" "abs($(row micro/BM_hash instructions)['ratio'] / 1.4 - 1) <= 0.02"
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if a['verdict'] == 'REGRESSION' and a['gated']}) == ['micro/BM_hash']"
expect_json "$R" "{a['metric'] for a in r['analysis'] if a['gated']} == {'instructions'}"
# every other row, and the allocations of all, 1.000 within 0.001 (BM_new, only in the candidate, is NEW)
others="[a for a in r['analysis'] if a['metric'] in ('instructions', 'allocations') and a['verdict'] != 'NEW' and not a['control'] and not (a['cell'] == 'micro/BM_hash' and a['metric'] == 'instructions')]"
expect_json "$R" "len($others) == 7 * 2 - 1"
expect_json "$R" "all(abs(a['ratio'] - 1) <= 0.001 for a in $others)"
# a count per iteration: BM_vec allocates one vector per iteration, its setup-free loops none
expect_json "$R" "$(row micro/BM_vec/1024 allocations)['baseline_median'] == 1 and $(row micro/BM_hash allocations)['baseline_median'] == 0"
expect_json "$R" "$(row micro/BM_new instructions)['verdict'] == 'NEW'"
expect_json "$R" "r['settings']['counters'] == 'auto' and r['environment']['counters']['source'] == 'valgrind'"
expect_in "$WORK/o/report.md" "| micro/BM_hash | instructions |"
# the journal says the same
run_refbench report "$WORK/o/journal.jsonl" --format json --fail-on never
expect_rc 0
cp "$WORK/out" "$WORK/replay.json"
expect_json "$WORK/replay.json" "[a['verdict'] for a in r['analysis'] if a['cell'] == 'micro/BM_hash' and a['metric'] == 'instructions'] == ['REGRESSION']"

# bisect one row on its count: the candidate commit is the culprit
run_refbench bisect -q --repo "$repo" --config "$WORK/counts.toml" --good baseline --bad candidate \
  --cells micro/BM_hash --metric instructions --out "$WORK/b"
expect_rc 0
expect_json "$WORK/b/bisect.json" "r['culprit']['sha'] == '$(git_in "$repo" rev-parse candidate)' and r['metric'] == 'instructions'"
expect_json "$WORK/b/bisect.json" "r['steps'][0]['ratio'] == 196007 / 140007"

# A/A: every row on both counts within 0.001 of 1.000
run_refbench run -q --repo "$repo" --config "$WORK/counts.toml" --baseline baseline --candidate baseline \
  --allow-same-commit --seed 12 --min-rounds 8 --max-rounds 8 --out "$WORK/aa"
expect_rc 0
expect_json "$WORK/aa/results.json" "all(abs(a['ratio'] - 1) <= 0.001 for a in r['analysis'] if a['metric'] in ('instructions', 'allocations'))"
expect_json "$WORK/aa/results.json" "len([a for a in r['analysis'] if a['metric'] == 'instructions' and not a['control']]) == 8"

# the fixture: its candidate makes BM_small's loop 2 % longer and BM_alloc allocate twice per iteration
fixture="$WORK/fixture"
cp -r "$FIXTURES/suite-counts" "$fixture"
cat >"$fixture/refbench.toml" <<'TOML'
[build]
command = "make"
timeout = "5m"

[[cell]]
name = "kinds"
suite = "google-benchmark"
command = ["{arm}/bench", "--benchmark_min_time=0.01", "--benchmark_format=json"]
metrics = ["instructions", "allocations"]
gate = ["instructions", "allocations"]
TOML
git_in "$fixture" init -q -b main
git_in "$fixture" add -A
git_in "$fixture" commit -q -m baseline
printf '#define SMALL_ROUNDS 5100\n#define ALLOCATIONS 2\n' >"$fixture/params.h"
git_in "$fixture" commit -q -am candidate
run_refbench run -q --repo "$fixture" --baseline main~1 --candidate main --seed 13 --min-rounds 8 --max-rounds 8 --out "$WORK/f"
expect_rc 4 # BM_threads' ERROR
F="$WORK/f/results.json"
echo "BM_small: $(json_eval "$F" "($(row kinds/BM_small instructions)['baseline_median'], $(row kinds/BM_small instructions)['candidate_median'])")"
expect_json "$F" "$(row kinds/BM_small instructions)['verdict'] == 'REGRESSION'"
expect_json "$F" "1.015 <= $(row kinds/BM_small instructions)['ratio'] <= 1.025"
expect_json "$F" "f\"{$(row kinds/BM_alloc allocations)['ratio']:.2f}\" == '2.00' and $(row kinds/BM_alloc allocations)['verdict'] == 'REGRESSION'"
expect_json "$F" "$(row kinds/BM_alloc allocations)['baseline_median'] == 1"
for cell in 'kinds/BM_template<700>' kinds/BM_fixed/iterations:5 kinds/Table/Scan kinds/lambda; do
  expect_json "$F" "$(row "$cell" instructions)['verdict'] == 'PASS' and $(row "$cell" instructions)['ratio'] == 1"
  expect_json "$F" "$(row "$cell" allocations)['baseline_median'] == 0"
done
expect_json "$F" "$(row kinds/lambda instructions)['baseline_median'] > 900 * 7"
expect_json "$F" "{a['verdict'] for a in r['analysis'] if a['cell'] == 'kinds/BM_threads/threads:2'} == {'ERROR'}"
expect_in "$WORK/f/report.md" "run under the instruction counter, failed in round 1: counted no instructions per iteration of"
expect_in "$WORK/f/report.md" "threads:2\\\`: its loop runs on several threads at once, whose counts callgrind cannot tell apart"
expect_in "$WORK/err" "count only the benchmarks refbench can attribute (--cells SUITE/PATTERN), or leave instructions and allocations out of the suite's metrics"
# narrowed to the benchmarks refbench can count, the run gates them all
run_refbench run -q --repo "$fixture" --baseline main~1 --candidate main --seed 14 --min-rounds 8 --max-rounds 8 \
  --cells 'kinds/BM_[!t]*,kinds/Table*,kinds/lambda' --out "$WORK/n"
expect_rc 1
expect_json "$WORK/n/results.json" "not any(a['verdict'] == 'ERROR' for a in r['analysis'])"
