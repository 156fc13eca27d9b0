#!/usr/bin/env bash
# A service benchmark (docs/manual/config.md#custom-metrics-windows-and-requirements, the sample project's service.toml):
# bin/serve on loopback driven by wrk through bench-service.sh, which prints
# throughput and p99 as JSON. A candidate doing 1.4x the work per request
# (~28 % fewer requests/s, each request ~1.39x as long) → throughput (higher
# is better) and p99 REGRESSION past the 1.15x gate; an identical service → no
# REGRESSION; a client that reports N/A or errors, or a window shorter than
# min_duration → ERROR (exit 4) naming what it found.
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || skip "wrk is not installed (scripts/install-deps.sh)"
command -v taskset >/dev/null || skip "taskset is not installed"

# service.toml with 1 s load phases (as shipped: 2 s)
config_of() { # repo → a shortened copy of its service.toml
  sed -e 's/"{arm}", "2s"/"{arm}", "1s"/' -e 's/^min_duration = "1.5s"$/min_duration = "0.8s"/' \
    "$1/service.toml" >"$WORK/service-$(basename "$1").toml"
  grep -q '"1s"' "$WORK/service-$(basename "$1").toml" || fail "service.toml changed: adapt this test"
  echo "$WORK/service-$(basename "$1").toml"
}
row() { echo "next(a for a in r['analysis'] if a['cell'] == '$1' and a['metric'] == '$2')"; }

# the example with 1 s load phases (as shipped: 2 s), 16-24 rounds. p99 is a tail: on a
# shared VM a load phase may meet a stretch of host noise that lifts that
# arm's p99 by 30-200 %, and when several land on the baseline the interval
# reaches below the gate. refbench then says INCONCLUSIVE — never PASS — and
# the measurement is repeated once with another seed. A second INCONCLUSIVE
# (seen on a loaded 2-CPU machine: 1.156x [0.907, 1.373] at 24 rounds) is
# still the honest answer: then p99 must be INCONCLUSIVE, above 1.05 and
# never PASS, and only the throughput's REGRESSION is required.
repo=$(make_sample slower-service)
service=$(config_of "$repo")
# A load phase that meets a host stall past wrk's 1 s timeout counts an error, and
# the example's `require = ["errors == 0"]` makes that run an ERROR (exit 4), as it
# should; seen once in CI. That run is measured again too, with another seed.
slower() { # seed → $WORK/slower-SEED/
  run_refbench run -q --repo "$repo" -c "$service" --baseline v1.0.0 --candidate main --seed "$1" \
    --out "$WORK/slower-$1"
  if [ "$RC" = 4 ] && grep -q 'failed the requirement `errors == 0`' "$WORK/err"; then
    echo "a load phase served an error with seed $1, measuring again: $(cat "$WORK/err")"
    rm -rf "$WORK/slower-$1"
    run_refbench run -q --repo "$repo" -c "$service" --baseline v1.0.0 --candidate main \
      --seed "$(($1 + 100))" --out "$WORK/slower-$1"
  fi
  expect_rc 1
}
slower 8
R="$WORK/slower-8/results.json"
if [ "$(verdict_of "$R" http p99)" != REGRESSION ]; then
  expect_json "$R" "$(row http p99)['verdict'] == 'INCONCLUSIVE' and $(row http p99)['ratio'] > 1.05"
  echo "p99 INCONCLUSIVE with seed 8, measuring again: $(grep '^| http | p99' "$WORK/slower-8/report.md")"
  slower 9
  R="$WORK/slower-9/results.json"
fi
expect_json "$R" "$(row http throughput)['verdict'] == 'REGRESSION' and $(row http throughput)['gated']"
expect_json "$R" "$(row http throughput)['better'] == 'higher' and $(row http throughput)['unit_label'] == 'req/s'"
# a service under load runs for a window, not an amount of work: not explained, and it says why (docs/manual/explanations.md)
expect_json "$R" "[e['cell'] for e in r['explanations']] == ['http'] and r['explanations'][0]['problem'].startswith('not explained: it runs for a window of time')"
# fewer requests per second: the candidate/baseline ratio is below 1, its interval too
expect_json "$R" "0.65 < $(row http throughput)['ratio'] < 0.8 and $(row http throughput)['ci_high'] < 1 / 1.15"
# each request takes longer, so does the slowest percent: p99 past the 1.15x gate
if [ "$(verdict_of "$R" http p99)" = REGRESSION ]; then
  expect_json "$R" "$(row http p99)['gated'] and 1.2 < $(row http p99)['ratio'] < 1.7 and $(row http p99)['ci_low'] > 1.15"
else
  expect_json "$R" "$(row http p99)['verdict'] == 'INCONCLUSIVE' and $(row http p99)['ratio'] > 1.05 and $(row http p99)['ci_high'] > 1.15"
  echo "p99 INCONCLUSIVE again with seed 9 (a noisy machine): $(grep '^| http | p99' "$WORK/slower-9/report.md")"
fi
expect_json "$R" "$(row http throughput)['n'] >= 16"
expect_json "$R" "0.9 < $(row http-control throughput)['ratio'] < 1.1 and $(row http-control throughput)['verdict'] != 'REGRESSION'"
expect_json "$R" "all(len(s['values']) == 2 for c in r['cells'] for s in c['samples'])"
expect_json "$R" "r['cells'][0]['meta']['require'] == ['errors == 0', 'requests >= 100']"
expect_in "$(dirname "$R")/report.md" "| http | throughput | "
grep -E '^\| http \| throughput \| [0-9.]+ req/s \| [0-9.]+ req/s \| .* \| REGRESSION \|$' "$(dirname "$R")/report.md" \
  >/dev/null || fail "no throughput REGRESSION row: $(grep '| http |' "$(dirname "$R")/report.md")"
grep -E '^\| http \| p99 \| [0-9.]+ ms \| [0-9.]+ ms \| .* \| REGRESSION \|$' "$(dirname "$R")/report.md" \
  >/dev/null || fail "no p99 REGRESSION row in ms: $(grep '| http |' "$(dirname "$R")/report.md")"
# the noise floor comes from the control's own metric when it has no wall
grep -qE 'noise floor ±[0-9.]+ % \(throughput\)' "$(dirname "$R")/report.md" || fail "no floor in the summary"

repo=$(make_sample docs)
run_refbench run -q --repo "$repo" -c "$(config_of "$repo")" --baseline v1.0.0 --candidate main --seed 8 \
  --min-rounds 8 --max-rounds 8 --out "$WORK/same"
expect_rc 0
expect_json "$WORK/same/results.json" "all(a['verdict'] != 'REGRESSION' for a in r['analysis'])"
expect_json "$WORK/same/results.json" "0.87 < $(row http throughput)['ratio'] < 1.15"

# Clients whose report must not become a figure. $1: what the command
# prints; the rest: extra cell keys.
bad_client() {
  local printed="$1"
  shift
  {
    printf '[build]\ncommand = "make"\n[run]\ncontrol = false\n[[cell]]\nname = "client"\n'
    printf 'command = ["printf", "%%s\\\\n", "%s"]\n' "${printed//\"/\\\"}"
    printf 'metrics = ["throughput"]\ngate = ["throughput"]\n'
    printf '%s\n' "$@"
    printf '[[cell.metric]]\nname = "throughput"\nbetter = "higher"\n'
  } >"$WORK/bad.toml"
  run_refbench run -q --repo "$repo" -c "$WORK/bad.toml" --baseline v1.0.0 --candidate main --seed 8 \
    --min-rounds 3 --max-rounds 3 --out "$WORK/bad"
  expect_rc 4
  expect_json "$WORK/bad/results.json" "r['verdict'] == 'error' and $(row client throughput)['verdict'] == 'ERROR'"
}
# the failure as results.json records it and as the one-line error says it
expect_failure() {
  expect_json "$WORK/bad/results.json" "r['cells'][0]['failure']['description'] == '''$1'''"
  expect_in "$WORK/err" "the baseline command $1 in warm-up"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$WORK/err")"
}
bad_client '{"throughput": "N/A", "errors": 0}'
expect_failure 'reported no number for metric `throughput`: `throughput` is "N/A" in the last line of its stdout'
expect_json "$WORK/bad/results.json" "r['cells'][0]['rounds'] == 0 and r['cells'][0]['failure']['round'] == 0"
bad_client '{"throughput": 9000, "errors": 3}' 'require = ["errors == 0"]'
expect_failure 'failed the requirement `errors == 0`: `errors` = 3 in the last line of its stdout'
bad_client 'throughput: 9000'
expect_failure 'reported no JSON object: the last line of its stdout is "throughput: 9000"'

# a load phase shorter than min_duration: wrk's reported window is ~1 s
sed -e 's/^min_duration = "0.8s"$/min_duration = "5s"/' "$(config_of "$repo")" >"$WORK/short.toml"
run_refbench run -q --repo "$repo" -c "$WORK/short.toml" --baseline v1.0.0 --candidate main --seed 8 \
  --min-rounds 3 --max-rounds 3 --out "$WORK/short"
expect_rc 4
expect_in "$WORK/err" 'in the last line of its stdout), less than min_duration = 5 s'
expect_json "$WORK/short/results.json" "$(row http throughput)['verdict'] == 'ERROR' and $(row http p99)['verdict'] == 'ERROR'"
echo "ok: service metrics read, directed and gated; unusable reports are ERRORs"
