#!/usr/bin/env bash
# Suites (docs/manual/suites.md): a Bencher Metric Format document of 30
# benchmarks × 3 measures is 90 rows with no [[cell.metric]] declared,
# every measure gated; a benchmark the candidate makes 3x slower is the
# only REGRESSION; throughput is higher-is-better; a malformed document is
# the cell's ERROR naming the line and the field (exit 4).
source "$(dirname "$0")/lib.sh"
repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/bmf.py" <<'PY'
import json, random, sys
slow = float(open(sys.argv[2]).read()) if len(sys.argv) > 2 else 1.0
rng = random.Random()
doc = {}
for b in range(30):
    factor = slow if b == 7 else 1.0
    noise = 1 + rng.uniform(-0.01, 0.01)
    doc[f"parse/case_{b}"] = {
        "latency": {"value": (1000 + 10 * b) * factor * noise},
        "throughput": {"value": 5000 / factor * noise},
        "file-size": {"value": 4096 + b},
    }
with open(sys.argv[1], "w") as out:
    json.dump(doc, out)
PY
echo 1.0 >"$repo/slow"
cat >"$repo/refbench.toml" <<'TOML'
[build]
command = "true"

[run]
min_rounds = 12
max_rounds = 12

[[cell]]
name = "bmf"
suite = "bmf"
from = "file"
command = ["/usr/bin/python3", "{arm}/bmf.py", "{output}", "{arm}/slow"]
TOML
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m baseline
echo 3.0 >"$repo/slow"
git_in "$repo" commit -q -am "case_7 3x slower"

run_refbench run -q --repo "$repo" --baseline main~1 --candidate main --seed 3 --out "$WORK/o"
expect_rc 1
R="$WORK/o/results.json"
expect_json "$R" "len([a for a in r['analysis'] if not a['control']]) == 90"
expect_json "$R" "len({a['cell'] for a in r['analysis'] if not a['control']}) == 30"
expect_json "$R" "all(a['gated'] for a in r['analysis'] if not a['control'])"
expect_json "$R" "sorted({(a['cell'], a['metric']) for a in r['analysis'] if a['verdict'] == 'REGRESSION'}) == [('bmf/parse/case_7', 'latency'), ('bmf/parse/case_7', 'throughput')]"
expect_json "$R" "next(a['better'] for a in r['analysis'] if a['metric'] == 'throughput') == 'higher'"
expect_json "$R" "abs(next(a['ratio'] for a in r['analysis'] if a['cell'] == 'bmf/parse/case_7' and a['metric'] == 'latency') - 3.0) < 0.1"
expect_json "$R" "next(a['unit'] for a in r['analysis'] if a['metric'] == 'latency') == 'seconds'"

# a malformed document: the cell's ERROR with the line and the field
printf 'import sys\nopen(sys.argv[1], "w").write("{\\n\\"a\\": {\\"latency\\": {\\"value\\": \\"n/a\\"}}}")\n' >"$repo/bmf.py"
git_in "$repo" commit -q -am "broken report"
run_refbench run -q --repo "$repo" --baseline main~1 --candidate main --seed 3 --out "$WORK/bad"
expect_rc 4
expect_in "$WORK/bad/report.md" 'reported no bmf results: its {output} file, line 2: \`a.latency.value\` is "n/a", not a number'
