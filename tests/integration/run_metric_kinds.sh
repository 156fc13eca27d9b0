#!/usr/bin/env bash
# Count metrics, ceilings and SLOs (docs/manual/config.md#metric-kinds-ceilings-and-slos, ceilings and SLOs)
# on real processes through `run`: errors that stay 0 PASS, two more errors
# a round are a REGRESSION shown as +2, a p99 clipped at its ceiling in both
# arms is CENSORED naming the limit (never PASS), a candidate breaking the
# p99 SLO the baseline met is a REGRESSION (SLO broken) although its ratio is
# under the threshold; the journal replays to the same verdicts; a negative
# count is an ERROR naming it; a bad SLO is exit 2 with file:line:column.
source "$(dirname "$0")/lib.sh"
repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/report.sh" <<'SH'
#!/bin/sh
# One JSON line of this version's figures for scenario $1 in round $2.
version=$(cat "$(dirname "$0")/VERSION")
r=$2
case "$1" in
healthy) echo "{\"errors\": 0, \"p99\": $((1000 + r % 7))}" ;;
errors-up)
  if [ "$version" = new ]; then e=$((2 + r % 2)); else e=$((r % 2)); fi
  echo "{\"errors\": $e, \"p99\": 1000}" ;;
clipped) echo "{\"errors\": 0, \"p99\": 10000}" ;;
slo)
  if [ "$version" = new ]; then p=$((5100 + r % 5)); else p=$((4900 + r % 5)); fi
  echo "{\"errors\": 0, \"p99\": $p}" ;;
negative) echo "{\"errors\": -1, \"p99\": 1000}" ;;
esac
SH
chmod +x "$repo/report.sh"
{
  printf '[build]\ncommand = "true"\n\n[run]\nbudget = "2m"\nmin_rounds = 12\nmax_rounds = 12\n'
  for cell in healthy errors-up clipped slo negative; do
    cat <<TOML

[[cell]]
name = "$cell"
command = ["{arm}/report.sh", "$cell", "{round}"]
gate = ["errors", "p99"]
[[cell.metric]]
name = "errors"
kind = "count"
[[cell.metric]]
name = "p99"
unit = "ms"
censor_above = 10000
slo = "<= 5000"
TOML
  done
} >"$repo/refbench.toml"
commit_old_new "$repo"

run_refbench run -q --repo "$repo" --baseline v1 --candidate main --cells 'healthy,errors-up,clipped,slo' \
  --seed 5 --out "$WORK/out1"
expect_rc 1 # regressions
R="$WORK/out1/results.json"
[ "$(verdict_of "$R" healthy errors)" = PASS ] || fail "errors that stay 0: $(verdict_of "$R" healthy errors)"
[ "$(verdict_of "$R" healthy p99)" = PASS ] || fail "healthy p99: $(verdict_of "$R" healthy p99)"
[ "$(verdict_of "$R" errors-up errors)" = REGRESSION ] || fail "two more errors: $(verdict_of "$R" errors-up errors)"
[ "$(verdict_of "$R" clipped p99)" = CENSORED ] || fail "clipped p99: $(verdict_of "$R" clipped p99)"
[ "$(verdict_of "$R" slo p99)" = REGRESSION ] || fail "SLO broken: $(verdict_of "$R" slo p99)"
a="next(a for a in r['analysis'] if a['cell'] == '%s' and a['metric'] == '%s')"
# shellcheck disable=SC2059
expect_json "$R" "$(printf "$a" errors-up errors)['kind'] == 'count' and $(printf "$a" errors-up errors)['difference'] == 2 and $(printf "$a" errors-up errors)['ratio'] is None"
# shellcheck disable=SC2059
expect_json "$R" "$(printf "$a" healthy errors)['difference'] == 0 and $(printf "$a" healthy errors)['diff_ci_high'] == 0"
# shellcheck disable=SC2059
expect_json "$R" "$(printf "$a" clipped p99)['censor_limit'] == 'censor_above = 10000' and $(printf "$a" clipped p99)['censored']"
# shellcheck disable=SC2059
expect_json "$R" "$(printf "$a" slo p99)['slo_broken'] and $(printf "$a" slo p99)['baseline_slo_share'] == 1 and $(printf "$a" slo p99)['candidate_slo_share'] == 0 and $(printf "$a" slo p99)['ci_high'] < 1.15"
M="$WORK/out1/report.md"
expect_in "$M" "| errors-up | errors | 0.5 | 2.5 | +2 [+2, +2] |"
expect_in "$M" "| healthy | errors | 0 | 0 | ±0 [±0, ±0] |"
expect_in "$M" "REGRESSION (SLO broken)"
expect_in "$M" "- \`clipped\` p99: readings at or past censor_above = 10000 in ≥ 20 % of an arm's samples"
expect_in "$M" "- \`slo\` p99 \`<= 5000\`: met by 100 % of the baseline's and 0 % of the candidate's invocations"
expect_in "$WORK/out1/report.csv" ",errors,"
"$PY" - "$WORK/out1/report.csv" <<'PY' || fail "report.csv: no count row with its difference"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
row = next(r for r in rows if r["cell"] == "errors-up" and r["metric"] == "errors")
assert row["kind"] == "count" and float(row["difference"]) == 2 and row["ratio"] == "", row
PY

# the journal carries kinds, limits and SLOs: it replays to the same verdicts
run_refbench report "$WORK/out1/journal.jsonl" --format json
expect_rc 1
cp "$WORK/out" "$WORK/replay.json"
expect_json "$WORK/replay.json" "[(a['cell'], a['metric'], a['verdict']) for a in r['analysis']] == $(json_eval "$R" "[(a['cell'], a['metric'], a['verdict']) for a in r['analysis']]")"

# a negative count: an ERROR of that cell naming the metric and the rule
run_refbench run -q --repo "$repo" --baseline v1 --candidate main --cells negative --seed 5 --out "$WORK/out2"
expect_rc 4
expect_in "$WORK/out2/report.md" 'reported metric \`errors\` = -1 in the last line of its stdout; a count is a number ≥ 0'

# a bad SLO: exit 2 naming file:line:column, nothing built
sed 's/^slo = "<= 5000"$/slo = "under 5000"/' "$repo/refbench.toml" >"$WORK/bad.toml"
run_refbench run --repo "$repo" -c "$WORK/bad.toml" --baseline v1 --candidate main --out "$WORK/out3"
expect_rc 2
expect_in "$WORK/err" "bad.toml:20:7: cell.metric.slo: 'under 5000' is not an SLO like \"<= 5000\""
[ ! -e "$WORK/out3/logs" ] || fail "built despite a bad SLO"
echo "ok: count metrics, ceilings and SLOs decide as documented on real processes"
