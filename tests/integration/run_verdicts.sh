#!/usr/bin/env bash
# refbench run on real git repositories of the sample project, built by make
# in worktrees: docs-only → no regression; +30 % work → wall REGRESSION;
# +60 % memory → rss REGRESSION; −30 % work → IMPROVED.
source "$(dirname "$0")/lib.sh"
run_case() { # variant expected-rc [extra flags]
  local repo
  repo=$(make_sample "$1")
  run_refbench run -q --repo "$repo" --baseline latest-release --candidate main --seed 21 \
    --max-rounds 30 --out "$WORK/out-$1" "${@:3}"
  expect_rc "$2"
  RESULTS="$WORK/out-$1/results.json"
  expect_json "$RESULTS" "r['arms']['baseline']['ref'] == 'latest-release' and len(r['arms']['candidate']['sha']) == 40"
  expect_json "$RESULTS" "r['arms']['baseline']['build_seconds'] > 0 and r['arms']['candidate']['build_seconds'] > 0"
  # worktrees are gone, the main checkout is the only one left
  [ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left behind: $(git -C "$repo" worktree list)"
}

run_case docs 0
expect_json "$RESULTS" "r['verdict'] in ('pass', 'inconclusive')"
expect_json "$RESULTS" "all(a['verdict'] != 'REGRESSION' for a in r['analysis'])"
# one automatic A/A control, of whichever cell was cheapest in the warm-up, listed last
expect_json "$RESULTS" "[c['name'] for c in r['cells']][:3] == ['compute', 'checksum-64KiB', 'checksum-2MiB']"
expect_json "$RESULTS" "len(r['cells']) == 4 and r['cells'][3]['control'] and r['cells'][3]['name'][:-len('-control')] in ('compute', 'checksum-64KiB', 'checksum-2MiB')"
expect_json "$RESULTS" "len(r['payloads']) == 2 and all(len(p['sha256']) == 64 for p in r['payloads'])"

run_case slower 1
[ "$(verdict_of "$RESULTS" compute wall)" = REGRESSION ] || fail "slower: compute wall is $(verdict_of "$RESULTS" compute wall)"
expect_json "$RESULTS" "r['verdict'] == 'regression'"
expect_json "$RESULTS" "r['arms']['baseline']['name'] == 'v1.0.0' and r['arms']['candidate']['name'] == 'main'"
# report.md: the marker, then the headline with the tag latest-release named and both short SHAs
REPORT="$WORK/out-slower/report.md"
base_sha=$(json_eval "$RESULTS" "r['arms']['baseline']['sha'][:7]")
cand_sha=$(json_eval "$RESULTS" "r['arms']['candidate']['sha'][:7]")
[ "$(sed -n 1p "$REPORT")" = "<!-- refbench -->" ] || fail "report.md does not start with the marker"
sed -n 2p "$REPORT" | grep -qF "### refbench: ❌ " || fail "headline: $(sed -n 2p "$REPORT")"
sed -n 2p "$REPORT" | grep -qF "baseline \`v1.0.0\` ($base_sha) vs candidate \`main\` ($cand_sha)" ||
  fail "headline refs: $(sed -n 2p "$REPORT")"
expect_in "$REPORT" "| compute | wall |"
expect_in "$REPORT" "<details><summary>Details</summary>"
expect_in "$REPORT" "refbench run --repo"
[ "$(wc -l <"$WORK/out-slower/report.csv")" -eq 13 ] || fail "report.csv: 4 cells × 3 metrics + header expected"

run_case fatter 1
[ "$(verdict_of "$RESULTS" compute rss)" = REGRESSION ] || fail "fatter: compute rss is $(verdict_of "$RESULTS" compute rss)"
expect_json "$RESULTS" "1.4 < next(a['ratio'] for a in r['analysis'] if a['cell'] == 'compute' and a['metric'] == 'rss') < 1.8"

# both arms built at once (build.parallel)
sed 's/^timeout = "5m"$/timeout = "5m"\nparallel = true/' "$(dirname "$0")/../../examples/sample-project/refbench.toml" \
  >"$WORK/parallel.toml"
run_case faster 0 --config "$WORK/parallel.toml"
grep -q "cc" "$WORK/out-faster/logs/build-baseline.log" || fail "no baseline build log"
grep -q "cc" "$WORK/out-faster/logs/build-candidate.log" || fail "no candidate build log"
[ "$(verdict_of "$RESULTS" compute wall)" = IMPROVED ] || fail "faster: compute wall is $(verdict_of "$RESULTS" compute wall)"
echo "ok: docs-only passes, slower/fatter regress, faster improves"
