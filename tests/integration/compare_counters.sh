#!/usr/bin/env bash
# Instruction counts under valgrind (docs/manual/counters.md): deterministic ratios
# beside the timed metrics, recorded with their source; a clear error where
# no counter can be had.
source "$(dirname "$0")/lib.sh"
: "${SAMPLE_WORK:?}"
command -v valgrind >/dev/null || skip "valgrind is not installed (scripts/install-deps.sh installs it)"
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }

# +2 % iterations, gated on instructions: REGRESSION at the 1.01 count threshold, exit 1
run_refbench compare -q --seed 21 --max-rounds 10 --metric wall,instructions --gate instructions \
  --out "$WORK/up" "$SAMPLE_WORK 50" "$SAMPLE_WORK 51"
expect_rc 1
R="$WORK/up/results.json"
expect_json "$R" "$(row compare instructions)['verdict'] == 'REGRESSION'"
expect_json "$R" "1.015 <= $(row compare instructions)['ratio'] <= 1.025"
expect_json "$R" "$(row compare instructions)['threshold'] == 1.01 and $(row compare wall)['threshold'] == 1.15"
# fixed counts (docs/design.md, Counters): counted in 3 rounds and exact, the timed rounds going on to 10
expect_json "$R" "$(row compare instructions)['n'] == 3 and $(row compare instructions)['exact'] and $(row compare wall)['n'] == 10"
expect_json "$R" "$(row compare instructions)['unit_label'] == 'instructions'"
# the A/A control's counts: a point at 1
expect_json "$R" "$(row compare-control instructions)['ci_low'] == $(row compare-control instructions)['ci_high'] == 1"
# what counted is recorded: the setting as asked, the source auto chose, the probe and the tool's version
expect_json "$R" "r['settings']['counters'] == 'auto' and r['environment']['counters']['source'] == 'valgrind'"
expect_json "$R" "r['environment']['counters']['version'].startswith('valgrind-') and r['environment']['counters']['probe'] != ''"
# every counted sample line in the journal carries its count; the timed wall stays the timed one's
expect_json "$R" "all(s['instructions'] > 5e8 for c in r['cells'] for s in c['samples'] if s['round'] > 0 and 'instructions' in s)"
expect_json "$R" "max(s['wall'] for c in r['cells'] for s in c['samples']) < 5"
grep -q '"instructions":' "$WORK/up/journal.jsonl" || fail "the journal has no count"
expect_in "$WORK/up/report.md" "valgrind-"

# +30 %: the ratio of counts, however loaded the machine (they do not drift)
run_refbench compare -q --seed 22 --max-rounds 10 --no-control --fail-on never --metric wall,instructions \
  --out "$WORK/thirty" "$SAMPLE_WORK 10" "$SAMPLE_WORK 13"
expect_rc 0
expect_json "$WORK/thirty/results.json" "1.285 <= $(row compare instructions)['ratio'] <= 1.315"
expect_json "$WORK/thirty/results.json" "$(row compare instructions)['ci_low'] == $(row compare instructions)['ci_high']"

# a command that fails only under the counter (valgrind preloads its core): the cell's ERROR, named as
# counted, with what to do; the timed invocations ran, the exit is a failed command's
run_refbench compare -q --seed 23 --max-rounds 3 --metric wall,instructions --shell --out "$WORK/bad" \
  "$SAMPLE_WORK 1" 'case "$LD_PRELOAD" in *vgpreload*) exit 2;; esac; '"$SAMPLE_WORK 1"
expect_rc 4
expect_in "$WORK/err" "the candidate command, run under the instruction counter, exited with code 2 in round 1"
expect_in "$WORK/err" "— make the command run under valgrind or measure without the counted metric (its stderr ends below) and rerun"
if grep -q "warning: L3 cache" "$WORK/err"; then fail "valgrind's own messages reached the command's stderr"; fi
expect_json "$WORK/bad/results.json" "$(row compare instructions)['verdict'] == 'ERROR'"

# no counter: a one-line error saying what to install, exit 2, before anything runs
set +e
PATH=/nonexistent "$REFBENCH" compare -q --max-rounds 3 --metric wall,instructions --out "$WORK/none" \
  "$SAMPLE_WORK 1" "$SAMPLE_WORK 1" >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
expect_rc 2
expect_in "$WORK/err" "apt-get install valgrind"
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line: $(cat "$WORK/err")"
run_refbench compare -q --max-rounds 3 --counters perf --metric wall,instructions --out "$WORK/perf" \
  "$SAMPLE_WORK 1" "$SAMPLE_WORK 1"
expect_rc 2
expect_in "$WORK/err" "--counters perf: "
# without a counted metric nothing is counted, nothing is asked for
PATH=/nonexistent "$REFBENCH" compare -q --max-rounds 3 --out "$WORK/plain" "$SAMPLE_WORK 1" "$SAMPLE_WORK 1" \
  >/dev/null 2>&1 || fail "a run without counted metrics needs no counter"
expect_json "$WORK/plain/results.json" "'counters' not in r['environment']"
echo "ok: instruction counts: +2 % REGRESSION at 1.01, A/A a point, +30 % 1.30, recorded, refused without a counter"
