#!/usr/bin/env bash
# `refbench report`: a killed run's journal renders as a partial report with
# every completed pair; a finished run's results.json re-renders to the
# report.md it wrote, byte for byte; its journal to the same analysis; exit
# codes follow the verdict (docs/manual/commands.md#exit-codes); bad input is exit 2.
source "$(dirname "$0")/lib.sh"

# --- a run killed outright (no chance to write results): only the journal is left
"$REFBENCH" compare --seed 3 --max-rounds 60 --min-rounds 60 --budget 120s --out "$WORK/k" \
  'sleep 0.02' 'sleep 0.06' >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
  samples=$(grep -c '"type":"sample"' "$WORK/k/journal.jsonl" 2>/dev/null) || samples=0
  [ "$samples" -ge 60 ] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[ ! -e "$WORK/k/results.json" ] || fail "a SIGKILLed run wrote results.json"

# the completed pairs per cell, counted from the journal independently
"$PY" - "$WORK/k/journal.jsonl" >"$WORK/pairs.json" <<'PY'
import json, sys
done = {}
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue  # the torn last line
    if o.get("type") == "sample" and o["round"] > 0 and o["status"] == "exited" and o["exit_code"] == 0:
        done.setdefault(o["cell"], {}).setdefault(o["round"], set()).add(o["arm"])
print(json.dumps({c: sum(1 for arms in r.values() if len(arms) == 2) for c, r in done.items()}))
PY
expect_json "$WORK/pairs.json" "r['compare'] >= 10"

run_refbench report "$WORK/k/journal.jsonl" --format json
expect_rc 1 # sleep 0.06 vs 0.02: a regression, even from a partial run (3x: clear also on a loaded machine)
cp "$WORK/out" "$WORK/k.json"
expect_json "$WORK/k.json" "r['partial'] is True and r['verdict'] == 'regression'"
pairs=$(cat "$WORK/pairs.json")
expect_json "$WORK/k.json" "all(a['n'] == $pairs[a['cell']] for a in r['analysis'])"
expect_json "$WORK/k.json" "{a['cell'] for a in r['analysis']} == set($pairs)"

run_refbench report "$WORK/k/journal.jsonl"
expect_rc 1
head -1 "$WORK/out" | grep -qx '<!-- refbench -->' || fail "no marker line: $(head -2 "$WORK/out")"
expect_in "$WORK/out" "partial"
expect_in "$WORK/out" "| compare | wall |"
expect_in "$WORK/out" "REGRESSION"

run_refbench report "$WORK/k/journal.jsonl" --format csv
expect_rc 1
[ "$(head -1 "$WORK/out")" = "cell,metric,unit,gated,control,n,baseline_median,candidate_median,ratio,ci_low,ci_high,p,p_bh,verdict,censored,min_detectable_ratio,noise_floor,kind,difference,diff_ci_low,diff_ci_high,slo,baseline_slo_share,candidate_slo_share,candidate,p_improved,p_improved_bh,p_better,p_better_bh" ] ||
  fail "csv header: $(head -1 "$WORK/out")"
"$PY" - "$WORK/out" "$WORK/k.json" <<'PY' || fail "csv rows differ from the json analysis"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
analysis = json.load(open(sys.argv[2]))["analysis"]
assert len(rows) == len(analysis), (len(rows), len(analysis))
for row, a in zip(rows, analysis):
    assert (row["cell"], row["metric"], int(row["n"]), row["verdict"]) == (a["cell"], a["metric"], a["n"], a["verdict"])
    assert abs(float(row["ratio"]) - a["ratio"]) < 1e-8 * a["ratio"]
PY

run_refbench report "$WORK/k/journal.jsonl" --fail-on never
expect_rc 0

# --- a finished run: report.md and report.csv written, re-rendered identically
run_refbench compare --seed 4 --max-rounds 12 --min-rounds 12 --budget 60s --out "$WORK/f" 'sleep 0.01' 'sleep 0.01'
expect_rc 0
for f in results.json report.md report.csv journal.jsonl; do
  [ -s "$WORK/f/$f" ] || fail "compare did not write $f"
done
run_refbench report "$WORK/f/results.json"
expect_rc 0
cmp -s "$WORK/out" "$WORK/f/report.md" || fail "report of results.json differs from report.md: $(diff "$WORK/out" "$WORK/f/report.md" | head)"
run_refbench report "$WORK/f/results.json" --format csv
cmp -s "$WORK/out" "$WORK/f/report.csv" || fail "csv of results.json differs from report.csv"
run_refbench report "$WORK/f/journal.jsonl" --format json
expect_rc 0
cp "$WORK/out" "$WORK/f.json"
expect_json "$WORK/f.json" "r['partial'] is False"
"$PY" - "$WORK/f.json" "$WORK/f/results.json" <<'PY' || fail "the journal's analysis differs from results.json's"
import json, sys
a, b = (json.load(open(p))["analysis"] for p in sys.argv[1:])
assert a == b, [x for x in zip(a, b) if x[0] != x[1]][:1]
PY

# --- an ERROR run reports exit 4 again
run_refbench compare --max-rounds 3 --min-rounds 2 --out "$WORK/e" 'true' 'false'
expect_rc 4
run_refbench report "$WORK/e/results.json"
expect_rc 4
expect_in "$WORK/out" "ERROR"

# --- bad input: exit 2, one line saying what to do
printf 'round,baseline,candidate\n1,1,2\n' >"$WORK/pairs.csv"
run_refbench report "$WORK/pairs.csv"
expect_rc 2
expect_in "$WORK/err" "refbench: error: $WORK/pairs.csv"
run_refbench report "$WORK/missing.json"
expect_rc 2
printf '{"type":"sample"}\n' >"$WORK/headless.jsonl"
run_refbench report "$WORK/headless.jsonl"
expect_rc 2
expect_in "$WORK/err" "headless.jsonl:1: not a refbench journal (no header line"
echo "report_journal: ok"
