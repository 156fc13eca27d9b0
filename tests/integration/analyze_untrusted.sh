#!/usr/bin/env bash
# Untrusted input (docs/manual/security.md#inputs): a UTF-8 BOM is skipped (Excel's "CSV
# UTF-8" keeps its `cell` column); malformed JSON, numbers out of range and
# wrong types exit 2 with one line naming the file and the field, never
# "internal error"; a --seed past 2^64-1 or negative, and a NUL in a config
# string, exit 2.
source "$(dirname "$0")/lib.sh"
D="$WORK/in"
mkdir -p "$D"

# Fails unless the last refbench call exited 2 with one `refbench: error:`
# line holding each argument and no "internal error".
expect_usage_error() {
  expect_rc 2
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line: $(cat "$WORK/err")"
  expect_in "$WORK/err" "refbench: error: "
  for want in "$@"; do
    expect_in "$WORK/err" "$want"
  done
  ! grep -q "internal error" "$WORK/err" || fail "an internal error for bad input: $(cat "$WORK/err")"
}

# --- a BOM before the header: two cells, one 1.5x slower → REGRESSION (exit 1)
{
  printf '\xef\xbb\xbfcell,round,baseline,candidate\r\n'
  for i in $(seq 1 12); do
    printf 'fast,%d,1.0%02d,1.5%02d\r\n' "$i" "$i" "$i"
    printf 'steady,%d,2.0%02d,2.0%02d\r\n' "$i" "$i" "$((13 - i))"
  done
} >"$D/excel.csv"
run_refbench analyze --format csv "$D/excel.csv"
expect_rc 1
grep -q '^fast,value,.*,REGRESSION,' "$WORK/out" || fail "the BOM hid the cell column: $(cat "$WORK/out")"
grep -q '^steady,value,' "$WORK/out" || fail "no steady cell: $(cat "$WORK/out")"

# --- numbers beyond a double, wrong types, negative counts
printf '{"results": [{"times": [1e400]}, {"times": [0.1]}]}\n' >"$D/overflow.json"
run_refbench analyze "$D/overflow.json"
expect_usage_error "$D/overflow.json: invalid JSON" "number overflow parsing '1e400'"

results() { # $1: settings, $2: the sample's round
  printf '{"schema_version": 1, "seed": 7, "rss": {"method": "launcher", "floor_bytes": 0}, "settings": %s, "cells": [{"name": "w", "samples": [{"arm": "baseline", "round": %s, "order": 0, "status": "exited", "wall": 0.5, "user": 0.1, "sys": 0, "rss": 10}]}]}\n' "$1" "$2"
}
results '{"min_rounds": "ten"}' 1 >"$D/type.json"
run_refbench analyze "$D/type.json"
expect_usage_error "$D/type.json: settings.min_rounds must be an integer" '"ten"'
run_refbench report "$D/type.json"
expect_usage_error "$D/type.json: settings.min_rounds must be an integer"
results '{}' -3 >"$D/negative.json"
run_refbench analyze "$D/negative.json"
expect_usage_error "$D/negative.json: cells[0].samples[0].round must be an integer from 0"
results '{"threshold": 1e300, "alpha": 2}' 1 >"$D/range.json"
run_refbench analyze "$D/range.json"
expect_usage_error "$D/range.json: settings.threshold must be a number from 1 to"
# a results.json of a newer refbench, or JSON that is no refbench document
results '{}' 1 | sed 's/"schema_version": 1/"schema_version": 2/' >"$D/newer.json"
run_refbench report "$D/newer.json"
expect_usage_error "$D/newer.json: schema_version 2 is newer than this refbench reads (1)" "update refbench"
results '{}' 1 | sed 's/"schema_version": 1, //' >"$D/foreign.json"
run_refbench analyze "$D/foreign.json"
expect_usage_error "$D/foreign.json: schema_version is missing"

# --- --seed: CLI11 alone reads both as 2^64-1
for seed in -1 18446744073709551616; do
  run_refbench analyze --seed "$seed" "$D/excel.csv"
  expect_usage_error "invalid seed '$seed'"
done

# --- a NUL in a config string would cut the command short
repo=$(make_sample slower)
sed 's|^command = "make"$|command = "make\\u0000 clean"|' "$repo/refbench.toml" >"$WORK/nul.toml"
grep -q 'u0000' "$WORK/nul.toml" || fail "the sed did not insert \\u0000"
run_refbench run --repo "$repo" --config "$WORK/nul.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_usage_error "$WORK/nul.toml:3:11: a string holds a NUL character"

# --- results.json that a checked reader let through still never crashes a
# merge: a string where an arm object belongs, nulls where values belong
"$REFBENCH" compare -q --seed 3 --max-rounds 3 --min-rounds 3 --warmup 0 --out "$WORK/base" true true >/dev/null 2>&1 ||
  true
[ -s "$WORK/base/results.json" ] || fail "compare wrote no results.json"
mutate() { # $1 = output file, $2 = a Python statement over `r`
  "$PY" - "$WORK/base/results.json" "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
}
mutate "$D/arm-string.json" 'r["arms"] = {"baseline": "x", "candidate": "y"}'
mutate "$D/family-null.json" 'r["cells"][0].setdefault("meta", {})["family"] = None'
mutate "$D/rounds-null.json" 'r["settings"]["max_rounds"] = None'
for bad in arm-string family-null rounds-null; do
  run_refbench report "$D/$bad.json" "$WORK/base/results.json"
  [ "$RC" -eq 2 ] || [ "$RC" -le 1 ] || fail "report of $bad.json exited $RC: $(cat "$WORK/err")"
  ! grep -q "internal error" "$WORK/err" || fail "an internal error for $bad.json: $(cat "$WORK/err")"
done

# --- names with control characters and workflow commands never reach stdout raw
mutate "$D/evil.json" 'n = "::error::pwned\x1b]0;title\x07"; r["cells"][0]["name"] = n; r["analysis"][0]["cell"] = n
for s in r["cells"][0].get("samples", []): s["cell"] = n'
for format in markdown csv; do
  run_refbench report --format "$format" "$D/evil.json"
  ! grep -q $'\x1b' "$WORK/out" || fail "a raw ESC reached stdout ($format)"
  ! grep -q $'\x07' "$WORK/out" || fail "a raw BEL reached stdout ($format)"
  ! grep -qE '^[[:space:]]*::' "$WORK/out" || fail "a line of stdout starts a workflow command ($format)"
  expect_in "$WORK/out" 'x1b'
done
echo "ok: merges of malformed results exit 2 at worst, printed names are escaped"
