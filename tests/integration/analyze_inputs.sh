#!/usr/bin/env bash
# analyze's inputs and outputs (docs/manual/output-files.md; docs/manual/commands.md#exit-codes): malformed CSV/JSON and
# missing files exit 2 naming FILE(:LINE); one pair is INCONCLUSIVE without
# NaN; --better higher flips the verdict; --format csv has one row per
# cell × metric with BH across cells; a compare run's results.json and
# journal.jsonl re-analyse to the analysis it recorded.
source "$(dirname "$0")/lib.sh"
: "${SAMPLE_WORK:?}"
D="$WORK/in"
mkdir -p "$D"

# Fails unless analyze of "$@" exits 2 with one `refbench: error:` line holding each of the
# strings given before `--`.
expect_bad_input() {
  local wants=()
  while [ "$1" != -- ]; do
    wants+=("$1")
    shift
  done
  shift
  run_refbench analyze "$@"
  expect_rc 2
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line for $*: $(cat "$WORK/err")"
  expect_in "$WORK/err" "refbench: error: "
  for want in "${wants[@]}"; do
    expect_in "$WORK/err" "$want"
  done
  [ ! -s "$WORK/out" ] || fail "analyze $* printed a report for bad input: $(cat "$WORK/out")"
}

# Loads JSON file $1 strictly (NaN/Infinity are not JSON) and fails unless the
# Python expression $2 over it (`r`) is true.
expect_strict_json() {
  "$PY" - "$1" "$2" <<'PY' || fail "expected $2 on $1: $(cat "$1")"
import json, sys
def no_constant(name):
    raise ValueError(f"non-JSON constant {name}")
r = json.loads(open(sys.argv[1]).read(), parse_constant=no_constant)
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# --- malformed CSV: exit 2, FILE:LINE and the offending text on stderr
printf 'round,baseline,candidate\n1,0.51,0.52\n2,0.50,n/a\n3,0.49,0.50\n' >"$D/nonnumeric.csv"
expect_bad_input "$D/nonnumeric.csv:3:" "candidate 'n/a' is not a number" -- "$D/nonnumeric.csv"
printf 'round,baseline,candidate\n1,0.51,0.52\n2,0.5O,0.50\n' >"$D/letter_o.csv"
expect_bad_input "$D/letter_o.csv:3:" "baseline '0.5O' is not a number" -- "$D/letter_o.csv"
printf 'round,baseline,cand\n1,0.51,0.52\n' >"$D/nocandidate.csv"
expect_bad_input "$D/nocandidate.csv:1:" "no 'candidate' column" -- "$D/nocandidate.csv"
printf 'round,baseline,candidate\n1,0.51,0.52\n2,0.50,0.53\n3,0.49\n' >"$D/short_row.csv"
expect_bad_input "$D/short_row.csv:4:" "2 fields, the header has 3" -- "$D/short_row.csv"
printf 'round,baseline,candidate\n1,0.51,0.52,0.9\n' >"$D/long_row.csv"
expect_bad_input "$D/long_row.csv:2:" "4 fields, the header has 3" -- "$D/long_row.csv"
printf 'round,baseline,candidate\n1,0.51,0.52\n2,0,0.50\n' >"$D/zero.csv"
expect_bad_input "$D/zero.csv:3:" "baseline 0 is not positive" -- "$D/zero.csv"
printf 'round,baseline,candidate\n1,0.51,0.52\n2,0.50,0.49\n3,0.52,-0.5\n' >"$D/negative.csv"
expect_bad_input "$D/negative.csv:4:" "candidate -0.5 is not positive" -- "$D/negative.csv"
# a bad file among good ones is still named
printf 'round,baseline,candidate\n1,0.51,0.52\n2,0.50,0.49\n' >"$D/good.csv"
expect_bad_input "$D/nonnumeric.csv:3:" -- "$D/good.csv" "$D/nonnumeric.csv"

# --- malformed JSON and missing files
printf '{"results":[{"command":"./old","times":[0.101,0.102]},{"command":"./new","times":[0.11' >"$D/truncated.json"
expect_bad_input "$D/truncated.json" "invalid JSON" -- "$D/truncated.json"
printf '{"results":[{"command":"./old","times":[0.101,0.102,0.100]}]}' >"$D/one_result.json"
expect_bad_input "$D/one_result.json" "exactly two results" -- "$D/one_result.json"
expect_bad_input "$D/does_not_exist.csv" -- "$D/does_not_exist.csv"
expect_bad_input "$D/missing.json" -- "$D/good.csv" "$D/missing.json"
printf '{"schema_version": 1}\n' >"$D/empty_run.json"
expect_bad_input "$D/empty_run.json" "neither \`cells\` nor \`analysis\`" -- "$D/empty_run.json"
run_refbench report "$D/empty_run.json"
expect_rc 2

# --- one pair: no crash, INCONCLUSIVE, strict JSON (no NaN)
printf 'round,baseline,candidate\n1,0.50,0.60\n' >"$D/single.csv"
run_refbench analyze "$D/single.csv" --format json
expect_rc 0
cp "$WORK/out" "$D/single.json.out"
expect_strict_json "$D/single.json.out" "r['verdict'] == 'inconclusive' and len(r['analysis']) == 1"
expect_strict_json "$D/single.json.out" "r['analysis'][0]['verdict'] == 'INCONCLUSIVE' and r['analysis'][0]['n'] == 1"
run_refbench analyze "$D/single.csv" --format csv
expect_rc 0
! grep -qiE 'nan|inf' "$WORK/out" || fail "NaN/inf in the csv of one pair: $(cat "$WORK/out")"
run_refbench analyze "$D/single.csv"
expect_rc 0
expect_in "$WORK/out" "INCONCLUSIVE"

# --- direction: throughput dropped by 30 %
"$PY" - >"$D/throughput.csv" <<'PY'
import numpy as np
rng = np.random.default_rng(7)
print("round,baseline,candidate")
for i in range(20):
    base = 1000 * np.exp(rng.normal(0, 0.05))
    print(f"{i},{base!r},{base * 0.7 * np.exp(rng.normal(0, 0.02))!r}")
PY
run_refbench analyze "$D/throughput.csv" --better higher --format json
expect_rc 1
cp "$WORK/out" "$D/higher.json"
expect_strict_json "$D/higher.json" "r['verdict'] == 'regression' and r['settings']['better'] == 'higher'"
expect_strict_json "$D/higher.json" "r['analysis'][0]['verdict'] == 'REGRESSION' and r['analysis'][0]['better'] == 'higher'"
# the ratio stays plain candidate/baseline
expect_strict_json "$D/higher.json" "0.65 < r['analysis'][0]['ratio'] < 0.75 and r['analysis'][0]['ci_high'] < 0.75"
run_refbench analyze "$D/throughput.csv" --format json
expect_rc 0
cp "$WORK/out" "$D/lower.json"
expect_strict_json "$D/lower.json" "r['verdict'] == 'pass' and r['analysis'][0]['verdict'] == 'IMPROVED'"
expect_strict_json "$D/lower.json" "r['analysis'][0]['ratio'] == $(json_eval "$D/higher.json" "r['analysis'][0]['ratio']")"

# --- --format csv: header, one row per cell × metric; BH across the gated cells
"$PY" - >"$D/cells.csv" <<'PY'
import numpy as np
rng = np.random.default_rng(11)
print("cell,metric,round,baseline,candidate")
for cell, ratio in [("parse-small", 1.26), ("parse, large", 1.18)]:  # a comma to quote
    for metric in ["wall", "rss"]:
        for i in range(15):
            base = 0.2 * np.exp(rng.normal(0, 0.05))
            print(f'"{cell}",{metric},{i},{base!r},{base * ratio * np.exp(rng.normal(0, 0.05))!r}')
PY
run_refbench analyze "$D/cells.csv" --format csv
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "analyze $D/cells.csv: exit $RC: $(cat "$WORK/err")"
cp "$WORK/out" "$D/cells.out.csv"
[ "$(head -1 "$D/cells.out.csv")" = "cell,metric,unit,gated,control,n,baseline_median,candidate_median,ratio,ci_low,ci_high,p,p_bh,verdict,censored,min_detectable_ratio,noise_floor,kind,difference,diff_ci_low,diff_ci_high,slo,baseline_slo_share,candidate_slo_share,candidate,p_improved,p_improved_bh,p_better,p_better_bh" ] \
  || fail "csv header: $(head -1 "$D/cells.out.csv")"
run_refbench analyze "$D/cells.csv" --format json
cp "$WORK/out" "$D/cells.json"
"$PY" - "$D/cells.out.csv" "$D/cells.json" <<'PY' || fail "csv output of $D/cells.csv: $(cat "$D/cells.out.csv")"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = json.load(open(sys.argv[2]))
keys = [(x["cell"], x["metric"]) for x in rows]
want = [(c, m) for c in ["parse-small", "parse, large"] for m in ["wall", "rss"]]
assert sorted(keys) == sorted(want), f"rows {keys}, expected one per cell × metric {want}"
by_key = {(a["cell"], a["metric"]): a for a in r["analysis"]}
for x in rows:
    a = by_key[x["cell"], x["metric"]]
    assert int(x["n"]) == a["n"] == 15, x
    assert x["verdict"] == a["verdict"], (x, a)
    for k in ["ratio", "ci_low", "ci_high", "p", "p_bh"]:
        assert math.isclose(float(x[k]), a[k], rel_tol=1e-8), (k, x, a)
    p, p_bh = float(x["p"]), float(x["p_bh"])
    assert p_bh >= p, f"p_bh {p_bh} < p {p} for {x['cell']}/{x['metric']}"
# BH over the four gated metrics
ps = {k: a["p"] for k, a in by_key.items()}
order = sorted(ps, key=ps.get)
running, bh = 1.0, {}
for rank in range(len(order), 0, -1):
    running = min(running, ps[order[rank - 1]] * len(order) / rank)
    bh[order[rank - 1]] = min(running, 1.0)
for k, a in by_key.items():
    assert math.isclose(a["p_bh"], bh[k], rel_tol=1e-12), (k, a["p_bh"], bh[k])
assert any(a["p_bh"] > a["p"] for a in by_key.values()), "BH adjusted nothing"
print(f"csv: {len(rows)} rows, p_bh " + ", ".join(f"{k[0]}/{k[1]} {by_key[k]['p']:.3g}->{by_key[k]['p_bh']:.3g}" for k in want))
PY

# --- a compare run's results.json and journal.jsonl re-analyse to its own analysis
run_refbench compare -q --seed 5 --max-rounds 12 --fail-on never --out "$WORK/run" "$SAMPLE_WORK 10" "$SAMPLE_WORK 15"
expect_rc 0
for input in results.json journal.jsonl; do
  run_refbench analyze "$WORK/run/$input" --format json
  [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "analyze $input: exit $RC: $(cat "$WORK/err")"
  cp "$WORK/out" "$D/reanalysed-$input.json"
  "$PY" - "$WORK/run/results.json" "$D/reanalysed-$input.json" "$RC" <<'PY' || fail "analyze $input differs from the run's analysis"
import json, math, sys
run = json.load(open(sys.argv[1]))
again = json.load(open(sys.argv[2]))
rc = int(sys.argv[3])
key = lambda a: (a["cell"], a["metric"])
want = {key(a): a for a in run["analysis"]}
got = {key(a): a for a in again["analysis"]}
assert list(got) == list(want), f"cells/metrics {list(got)} vs {list(want)}"
assert len(want) >= 4, f"too few rows in the run: {list(want)}"
for k, a in want.items():
    b = got[k]
    for f in ["ratio", "ci_low", "ci_high", "p", "p_bh"]:
        same = a[f] == b[f] if a[f] is None or b[f] is None else math.isclose(a[f], b[f], rel_tol=1e-12)
        assert same, f"{k} {f}: run {a[f]!r}, analyze {b[f]!r}"
    for f in ["verdict", "n", "gated", "paired"]:
        assert a[f] == b[f], f"{k} {f}: run {a[f]!r}, analyze {b[f]!r}"
assert again["verdict"] == run["verdict"], (again["verdict"], run["verdict"])
# the run was --fail-on never; analyze uses the default --fail-on regression
assert rc == (1 if run["verdict"] == "regression" else 0), f"exit {rc} for verdict {run['verdict']}"
print(f"{sys.argv[2]}: {len(want)} cell × metric rows identical, verdict {run['verdict']}")
PY
done
# no pairs at all: nothing can pass
printf 'baseline,candidate\n' >"$WORK/empty.csv"
run_refbench analyze --format json "$WORK/empty.csv"
expect_rc 0
"$PY" -c 'import json,sys; assert json.load(open(sys.argv[1]))["verdict"] == "inconclusive"' "$WORK/out" || fail "empty CSV not inconclusive"
run_refbench analyze --fail-on inconclusive "$WORK/empty.csv"
expect_rc 1
# a run killed during warm-up: a journal with only its header is partial and inconclusive
head -1 "$WORK/run/journal.jsonl" >"$WORK/killed.jsonl"
run_refbench analyze --format json "$WORK/killed.jsonl"
expect_rc 0
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["partial"] and d["verdict"] == "inconclusive", d' "$WORK/out" \
  || fail "header-only journal: $(cat "$WORK/out")"
# a user cell may not be named like a control: its verdict would pass for the noise floor
run_refbench compare -q --seed 6 --max-rounds 6 --no-control --fail-on never --name api-control \
  --out "$WORK/named" "$SAMPLE_WORK 10" "$SAMPLE_WORK 11"
expect_rc 2
expect_in "$WORK/err" "--name api-control ends in '-control', which names the A/A control cell"
echo "ok: analyze rejects bad input with FILE:LINE, handles one pair, no pairs, --better, csv and re-analysis"
