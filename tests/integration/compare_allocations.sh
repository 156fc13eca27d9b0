#!/usr/bin/env bash
# Allocation counts (docs/manual/counters.md): the allocation counter preloaded into
# the counted invocations sees every call of the malloc family and the bytes
# asked for; twice the allocations read 2.00x, a REGRESSION however quiet the
# wall; a statically linked program, which no preloaded library enters, is
# its cell's ERROR naming the static link, never a zero. No valgrind needed.
source "$(dirname "$0")/lib.sh"
build_fixture allocate
cc -O1 -fno-builtin -static -o "$WORK/allocate-static" "$FIXTURES/allocate.c" 2>/dev/null ||
  skip "no static libc to link the fixture with (libc6-dev)"
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }

# twice the allocations (10 000 against 20 000 of 64 bytes), gated on allocations;
# PATH without valgrind: the allocation counter is refbench's own
set +e
PATH=/nonexistent "$REFBENCH" compare -q --seed 31 --max-rounds 10 --metric wall,allocations,allocated_bytes \
  --gate allocations --out "$WORK/twice" "$WORK/allocate 10000 64" "$WORK/allocate 20000 64" \
  >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
expect_rc 1
R="$WORK/twice/results.json"
echo "twice the allocations: $(json_eval "$R" "($(row compare allocations)['ratio'], $(row compare allocated_bytes)['ratio'])")"
expect_json "$R" "$(row compare allocations)['verdict'] == 'REGRESSION' and $(row compare allocations)['gated']"
expect_json "$R" "1.95 <= $(row compare allocations)['ratio'] <= 2.05"
expect_json "$R" "$(row compare allocations)['ci_low'] == $(row compare allocations)['ci_high']"
expect_json "$R" "1.95 <= $(row compare allocated_bytes)['ratio'] <= 2.05"
expect_json "$R" "$(row compare allocations)['threshold'] == 1.01"
expect_json "$R" "$(row compare allocated_bytes)['unit'] == 'bytes'"
# the A/A control counts the same on both arms: a point at 1
expect_json "$R" "$(row compare-control allocations)['ci_low'] == $(row compare-control allocations)['ci_high'] == 1"
expect_json "$R" "r['environment']['counters']['source'] == 'interposer' and r['environment']['counters']['allocations'] == 'interposer'"
expect_json "$R" "all(s['allocations'] >= 10000 for c in r['cells'] for s in c['samples'] if s['round'] > 0 and 'allocations' in s)"
expect_in "$WORK/twice/report.md" "- allocation counts: refbench's allocation counter"
expect_in "$WORK/twice/report.md" "| compare | allocations |"
# counts that read the same in 3 rounds are fixed (docs/design.md, Counters): counted in rounds 1-3 only, the
# ratio exact, the timed rounds going on to 10
expect_json "$R" "sorted({s['round'] for c in r['cells'] for s in c['samples'] if 'allocations' in s}) == [1, 2, 3]"
expect_json "$R" "$(row compare allocations)['exact'] and $(row compare allocations)['n'] == 3"
expect_json "$R" "$(row compare wall)['n'] == 10 and 'exact' not in $(row compare wall)"
expect_json "$R" "$(row compare-control allocations)['exact'] and $(row compare-control allocations)['ratio'] == 1"

# a count that varies (0-999 more calls drawn by each run): never taken as fixed, counted every round, an
# interval with width; the same program on both arms
run_refbench compare -q --seed 33 --min-rounds 10 --max-rounds 10 --metric wall,allocations --gate allocations \
  --out "$WORK/varies" "$WORK/allocate 10000 64 random" "$WORK/allocate 10000 64 random"
R="$WORK/varies/results.json"
echo "a varying count: $(json_eval "$R" "($(row compare allocations)['ratio'], $(row compare allocations)['ci_low'], $(row compare allocations)['ci_high'])")"
expect_json "$R" "sorted({s['round'] for c in r['cells'] for s in c['samples'] if 'allocations' in s}) == list(range(1, 11))"
expect_json "$R" "'exact' not in $(row compare allocations) and $(row compare allocations)['n'] == 10"
expect_json "$R" "$(row compare allocations)['ci_low'] < $(row compare allocations)['ci_high']"
expect_json "$R" "$(row compare allocations)['verdict'] != 'ERROR'"

# a statically linked program: the cell's ERROR in one line naming the static link, exit 4
run_refbench compare -q --seed 32 --max-rounds 3 --no-control --metric wall,allocations \
  --out "$WORK/static" "$WORK/allocate-static 10 64" "$WORK/allocate-static 10 64"
expect_rc 4
expect_in "$WORK/err" "command, run under the allocation counter, made no allocation count: $WORK/allocate-static is statically linked"
expect_in "$WORK/err" "— link the program dynamically against libc or measure without allocations and allocated_bytes"
[ "$(grep -c . "$WORK/err")" -eq 1 ] || fail "expected one line: $(cat "$WORK/err")"
expect_json "$WORK/static/results.json" "$(row compare allocations)['verdict'] == 'ERROR'"
echo "ok: allocations 2.00x REGRESSION, fixed after 3 rounds, A/A a point at 1, a varying count counted every round, a static link named"
