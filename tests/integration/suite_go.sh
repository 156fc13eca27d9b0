#!/usr/bin/env bash
# Suites (docs/manual/suites.md) with the real `go test -bench`: the example's
# benchmarks between two refs where the candidate makes BenchmarkParse
# 1.4x slower. Exactly that row is a REGRESSION on ns_per_op; B/op and
# allocs/op are rows' metrics too (counts, 512 and 1 for BenchmarkAlloc);
# Go's sub-benchmarks form a sweep.
# PARALLEL (tests/integration/CMakeLists.txt): it passed beside `yes` on each
# CPU (63 s)
source "$(dirname "$0")/lib.sh"
command -v go >/dev/null || skip "golang-go is not installed (scripts/install-deps.sh)"
EXAMPLES="$(cd "$(dirname "$0")/../../examples/suites" && pwd)"
repo="$WORK/repo"
"$EXAMPLES/two-refs.sh" go "$repo" >/dev/null
export GOCACHE="$WORK/gocache" GOFLAGS=-mod=mod
# gated on nothing but ns_per_op, the harness's primary measure
run_refbench run -q --repo "$repo" --baseline baseline --candidate candidate --seed 5 --max-rounds 20 --out "$WORK/o"
expect_rc 1
R="$WORK/o/results.json"
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if a['verdict'] == 'REGRESSION' and a['gated']}) == ['go/BenchmarkParse']"
expect_json "$R" "1.25 <= next(a['ratio'] for a in r['analysis'] if a['cell'] == 'go/BenchmarkParse' and a['metric'] == 'ns_per_op') <= 1.6"
expect_json "$R" "{a['metric'] for a in r['analysis'] if a['gated']} == {'ns_per_op'}"
expect_json "$R" "sorted({a['cell'] for a in r['analysis'] if not a['control']}) == ['go/BenchmarkAlloc', 'go/BenchmarkEncode', 'go/BenchmarkParse', 'go/BenchmarkSort/size=512', 'go/BenchmarkSort/size=64']"
expect_json "$R" "next(a['baseline_median'] for a in r['analysis'] if a['cell'] == 'go/BenchmarkAlloc' and a['metric'] == 'bytes_per_op') == 512"
expect_json "$R" "next(a['candidate_median'] for a in r['analysis'] if a['cell'] == 'go/BenchmarkAlloc' and a['metric'] == 'allocs_per_op') == 1"
expect_in "$WORK/o/report.md" "**Sweep \`go/BenchmarkSort/{size}\`** (2 levels)"
