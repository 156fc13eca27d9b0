#!/usr/bin/env bash
# refbench history on chained nights (docs/manual/history.md), on histories
# written as `run --history` writes them (history_gen.py): 30 series of
# honest ±1 % links at a true ratio of 1.00, ten of them with one 8 % link.
# At 30 and at 300 nights at most one flat series has a change point and the
# 8 % link is named, at its commit, in at least 9 of the 10; the window's
# creep verdict and exit 1 follow --window or [history] window; a chain of
# 1 % links creeps in the window (exit 1) and --window 0 reads it whole.
source "$(dirname "$0")/lib.sh"
gen="$(dirname "$0")/history_gen.py"

# the named and the flat series of `refbench history DIR --format json`, against the generator's steps
check_chains() { # DIR STEPS
  "$PY" - "$WORK/out" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
steps = {cell: sha for cell, _, sha in (l.split() for l in open(sys.argv[2]))}
flat = [s for s in r["series"] if s["cell"] not in steps]
stepped = [s for s in r["series"] if s["cell"] in steps]
flat_with = sum(1 for s in flat if s["change_points"])
named = sum(1 for s in stepped if any(c["sha"] == steps[s["cell"]] for c in s["change_points"]))
print(f"{len(flat)} flat series, {flat_with} with a change point; the 8 % link named in {named} of {len(stepped)}")
assert len(r["series"]) == 30 and len(stepped) == 10, "the history is not the generator's"
assert flat_with <= 1, "phantom change points on flat chains"
assert named >= 9, "the 8 % link is not named"
for s in stepped:  # a named link comes with its own ratio and interval, 8 % up
    for c in s["change_points"]:
        if c["sha"] == steps[s["cell"]]:
            assert 1.05 < c["ratio"] < 1.11 and c["ci_low"] < c["ratio"] < c["ci_high"] and c["p"] <= 0.05, c
for s in r["series"]:  # one 8 % link is no creep past 1.15x; a flat chain's window passes
    w = s["window"]
    assert w["links"] == min(30, s["links"]) and not w["verdict"].startswith("REGRESSION"), w
    assert s in stepped or w["verdict"] == "PASS", w
PY
}

for nights in 30 300; do
  "$PY" "$gen" "$WORK/h$nights" "$nights" 30 10 "$nights" >"$WORK/steps$nights"
  run_refbench history "$WORK/h$nights" --format json
  expect_rc 0
  check_chains "$WORK/h$nights" "$WORK/steps$nights" || fail "$nights nights: see above"
done

# the Markdown table names the link and shows the window beside the whole chain
run_refbench history "$WORK/h30"
expect_rc 0
cell="$(head -1 "$WORK/steps30" | cut -d' ' -f1)"
sha="$(head -1 "$WORK/steps30" | cut -d' ' -f3)"
row="$(grep "^| $cell |" "$WORK/out")" || fail "no row for $cell"
[[ "$row" == *"| 30 links: "*"| PASS |"* ]] || fail "no window column in: $row"
[[ "$row" == *"\`${sha:0:7}\` (main) 1.0"*"x ["* ]] || fail "the 8 % link is not named with its ratio in: $row"

# a creeping chain: 60 nights of 1 % links — the last 30 links creep past 1.15x, no link a regression
"$PY" - "$WORK/h30/history.jsonl" "$WORK/creep" <<'PY'
import json, math, os, sys
os.makedirs(sys.argv[2], exist_ok=True)
lines = [json.loads(l) for l in open(sys.argv[1])]
with open(os.path.join(sys.argv[2], "history.jsonl"), "w") as out:
    for night in range(60):
        for l in lines[:1]:
            l = dict(l, baseline={"ref": "history-last", "sha": f"{night:040x}"},
                     candidate={"ref": "main", "sha": f"{night + 1:040x}"}, run_id=f"{night:016x}")
            l["ratio"], l["ci_low"], l["ci_high"] = 1.01, 1.01 / 1.003, 1.01 * 1.003
            out.write(json.dumps(l) + "\n")
PY
run_refbench history "$WORK/creep" --format json
expect_rc 1
expect_json "$WORK/out" "r['series'][0]['window']['links'] == 30 and r['series'][0]['window']['verdict'] == 'REGRESSION (creep)'"
expect_json "$WORK/out" "1.33 < r['series'][0]['window']['cumulative_ratio'] < 1.36 and 1.8 < r['series'][0]['cumulative_ratio'] < 1.83"
# a window of 10 links: 1.10x, under the gate: exit 0, while the whole chain still creeps
run_refbench history "$WORK/creep" --format json --window 10
expect_rc 0
expect_json "$WORK/out" "r['series'][0]['window']['links'] == 10 and r['series'][0]['window']['verdict'] == 'PASS' and r['series'][0]['verdict'] == 'REGRESSION (creep)'"
# [history] window of --config, and --window over it; 0: the whole chain
mkdir -p "$WORK/conf"
printf '[history]\nwindow = 10\n[[cell]]\nname = "a"\ncommand = "true"\n' >"$WORK/conf/refbench.toml"
run_refbench history "$WORK/creep" --format json --config "$WORK/conf/refbench.toml"
expect_rc 0
expect_json "$WORK/out" "r['series'][0]['window']['links'] == 10"
run_refbench history "$WORK/creep" --format json --config "$WORK/conf/refbench.toml" --window 0
expect_rc 1
expect_json "$WORK/out" "r['series'][0]['window']['links'] == 60 and r['series'][0]['window']['cumulative_ratio'] == r['series'][0]['cumulative_ratio']"
# a bad window is refused with what to do
printf '[history]\nwindow = -1\n[[cell]]\nname = "a"\ncommand = "true"\n' >"$WORK/conf/refbench.toml"
run_refbench history "$WORK/creep" --config "$WORK/conf/refbench.toml"
expect_rc 2
expect_in "$WORK/err" "refbench.toml:2:10: history.window must be between 0 and 1000000, got -1"
run_refbench history "$WORK/creep" --window -3
expect_rc 2
echo "history_chains: ok"
