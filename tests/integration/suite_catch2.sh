#!/usr/bin/env bash
# Suites (docs/manual/suites.md) with the real Catch2 (Debian's catch2, v2): the
# example's three BENCHMARKs between two refs where the candidate makes
# "parse" 1.4x slower. Exactly that row is a REGRESSION on its mean, read
# from Catch2's XML reporter; the others are rows too and are not.
source "$(dirname "$0")/lib.sh"
[ -f /usr/include/catch2/catch.hpp ] || skip "catch2 is not installed (scripts/install-deps.sh)"
EXAMPLES="$(cd "$(dirname "$0")/../../examples/suites" && pwd)"
repo="$WORK/repo"
"$EXAMPLES/two-refs.sh" catch2 "$repo" >/dev/null
# the example's config, built faster (both arms at once, -O1: compiling
# Catch2's main is most of the build), at SCHED_FIFO priority where it
# may (realtime_words, lib.sh: beside a hog on each CPU, parse read 1.255x
# [0.901, 1.745] INCONCLUSIVE without it), with 100 samples per benchmark
# and without an A/A control (the Google Benchmark scenario covers a suite's
# control): every invocation of a Catch2 v2 benchmark binary first spends
# about 2 s measuring its clock, whatever the samples
sed -e 's/^command = "make"$/command = "make CXXFLAGS=\x27-O1 -std=c++17\x27"\nparallel = true/' \
  -e 's/^\[run\]$/[run]\ncontrol = false/' \
  -e 's/"--benchmark-samples", "20", "--benchmark-resamples", "1000"/"--benchmark-samples", "100", "--benchmark-resamples", "100"/' \
  -e "s|^command = \\[\"{arm}/bench\"|command = [$(realtime_words)\"{arm}/bench\"|" \
  "$repo/refbench.toml" >"$WORK/refbench.toml"
grep -q '^control = false' "$WORK/refbench.toml" || fail "the example's config has no [run] table: $(cat "$WORK/refbench.toml")"
grep -q '^parallel = true' "$WORK/refbench.toml" || fail "the example's build command changed: $(cat "$WORK/refbench.toml")"
grep -q '"--benchmark-samples", "100"' "$WORK/refbench.toml" || fail "the example's command changed: $(cat "$WORK/refbench.toml")"

[ -z "$(realtime_words)" ] || grep -q '^command = \["chrt", "-f", "1", ' "$WORK/refbench.toml" ||
  fail "the command is not run through chrt: $(cat "$WORK/refbench.toml")"
run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline baseline --candidate candidate --seed 11 --min-rounds 8 --max-rounds 14 --out "$WORK/o"
expect_rc 1
R="$WORK/o/results.json"
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if not a['control']}) == ['catch2/checksum', 'catch2/encode', 'catch2/parse']"
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if a['verdict'] == 'REGRESSION' and a['gated']}) == ['catch2/parse']"
expect_json "$R" "1.25 <= next(a['ratio'] for a in r['analysis'] if a['cell'] == 'catch2/parse' and a['metric'] == 'mean') <= 1.6"
expect_json "$R" "{a['metric'] for a in r['analysis']} == {'mean'}"
expect_json "$R" "next(a for a in r['analysis'] if a['cell'] == 'catch2/parse')['unit'] == 'seconds'"
expect_in "$WORK/o/report.md" "| catch2/parse | mean |"
python3 -c "
import json; r = json.load(open('$R'))
for a in r['analysis']:
    print(a['cell'], a['metric'], a['verdict'], round(a['ratio'], 3), [round(a['ci_low'], 3), round(a['ci_high'], 3)], a['n'])"
