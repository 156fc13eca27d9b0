#!/usr/bin/env bash
# Suites (docs/manual/suites.md) with the real pytest-benchmark (Debian's
# python3-pytest-benchmark): the example's tests between two refs where the
# candidate makes test_parse 1.4x slower. Exactly that row is a REGRESSION
# on its mean, read from the --benchmark-json={output} file; the
# parametrized test_sort is two rows.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import pytest_benchmark' 2>/dev/null || skip "python3-pytest-benchmark is not installed (scripts/install-deps.sh)"
EXAMPLES="$(cd "$(dirname "$0")/../../examples/suites" && pwd)"
repo="$WORK/repo"
"$EXAMPLES/two-refs.sh" pytest-benchmark "$repo" >/dev/null

# without an A/A control (the Google Benchmark scenario covers a suite's
# control): each pytest invocation takes about 0.7 s (the example's
# conftest.py skips pytest-benchmark's CPU probe and shortens its timer
# calibration, which would add two seconds)
sed -e 's/^\[run\]$/[run]\ncontrol = false/' "$repo/refbench.toml" >"$WORK/refbench.toml"
grep -q '^control = false' "$WORK/refbench.toml" || fail "the example's config has no [run] table: $(cat "$WORK/refbench.toml")"

# On a quiet machine test_parse is a REGRESSION within 14 rounds. Beside a CPU
# hog on each CPU the machine's speed changes from one invocation to the next
# and the wall-clock means spread (seen: 1.316x [0.953, 1.796] and 1.390x
# [1.116, 1.474], also at real-time priority and on min): refbench then says
# INCONCLUSIVE — never PASS — and the run is measured again once with more
# rounds; a second INCONCLUSIVE is still the honest answer on such a machine,
# and then test_parse must be INCONCLUSIVE above 1.2x and nothing a REGRESSION.
measure() { # seed max-rounds → $WORK/o
  rm -rf "$WORK/o"
  run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate candidate \
    --seed "$1" --min-rounds 8 --max-rounds "$2" --out "$WORK/o"
  [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "exit $RC: $(cat "$WORK/err")"
}
measure 12 14
R="$WORK/o/results.json"
if [ "$RC" -ne 1 ]; then
  echo "test_parse undecided in 14 rounds (a noisy machine), measuring again: $(grep '^| py/test_parse | mean' "$WORK/o/report.md")"
  measure 13 28
fi
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if not a['control']}) == ['py/test_encode', 'py/test_parse', 'py/test_sort[100]', 'py/test_sort[800]']"
expect_json "$R" "{a['metric'] for a in r['analysis'] if a['gated']} == {'mean'}"
expect_slower_row "$WORK/o" py/test_parse mean 1.2
expect_json "$R" "{a['metric'] for a in r['analysis'] if a['cell'] == 'py/test_parse'} == {'mean', 'median', 'min', 'ops'}"
expect_json "$R" "next(a for a in r['analysis'] if a['cell'] == 'py/test_parse' and a['metric'] == 'ops')['better'] == 'higher'"
# pytest-benchmark wrote its JSON to each invocation's own {output} file, and nothing in the tree
expect_json "$R" "not any(a['verdict'] == 'ERROR' for a in r['analysis'])"
python3 -c "
import json; r = json.load(open('$R'))
for a in r['analysis']:
    if a['gated']: print(a['cell'], a['metric'], a['verdict'], round(a['ratio'], 3), [round(a['ci_low'], 3), round(a['ci_high'], 3)], a['n'])"
