#!/usr/bin/env bash
# New and removed cells (docs/manual/config.md#new-and-removed-cells): a cell the
# baseline commit's copy of refbench.toml lacks runs on the candidate only
# and is NEW (its median, never gating, exit 0); a cell only the baseline's
# copy has is listed as removed; the A/A control is never a new cell; a
# replay of the journal says the same; a baseline without the file makes
# every cell NEW.
source "$(dirname "$0")/lib.sh"
repo="$WORK/repo"
mkdir -p "$repo"
cell() { # name command
  printf '\n[[cell]]\nname = "%s"\ncommand = %s\nthreshold = { wall = 3.0 }\n' "$1" "$2"
}
{
  printf '[build]\ncommand = "true"\n\n[run]\nmin_rounds = 6\nmax_rounds = 6\ncontrol_cell = "added"\n'
  cell keep '["true"]'
  cell gone '["true"]'
} >"$repo/refbench.toml"
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m baseline
printf '#!/bin/sh\nexit 0\n' >"$repo/added.sh"
chmod +x "$repo/added.sh"
{
  printf '[build]\ncommand = "true"\n\n[run]\nmin_rounds = 6\nmax_rounds = 6\ncontrol_cell = "added"\n'
  cell keep '["true"]'
  cell added '["{arm}/added.sh"]'
} >"$repo/refbench.toml"
git_in "$repo" add -A
git_in "$repo" commit -q -m "add a benchmark, drop one"

run_refbench run -q --repo "$repo" --baseline main~1 --candidate main --seed 4 --out "$WORK/o"
expect_rc 0
R="$WORK/o/results.json"
expect_json "$R" "[c['name'] for c in r['cells']] == ['keep', 'added', 'keep-control']"
expect_json "$R" "r['removed_cells'] == ['gone']"
expect_json "$R" "all(a['verdict'] == 'NEW' and a.get('new') and not a['gated'] for a in r['analysis'] if a['cell'] == 'added')"
expect_json "$R" "all(a['candidate_median'] > 0 and a['baseline_median'] is None and a['n'] == 6 for a in r['analysis'] if a['cell'] == 'added' and a['metric'] == 'wall')"
expect_json "$R" "[s['arm'] for c in r['cells'] if c['name'] == 'added' for s in c['samples']] == ['candidate'] * 7"
expect_json "$R" "next(c for c in r['cells'] if c['name'] == 'added')['meta']['new'] is True"
M="$WORK/o/report.md"
expect_in "$M" "| added | wall | — |"
expect_in "$M" "| NEW |"
expect_in "$M" "**Removed** since the baseline (not measured): \`gone\`"

# the journal says the same
run_refbench report "$WORK/o/journal.jsonl" --format json
expect_rc 0
cp "$WORK/out" "$WORK/replay.json"
expect_json "$WORK/replay.json" "r['removed_cells'] == ['gone'] and [a['verdict'] for a in r['analysis'] if a['cell'] == 'added'] == ['NEW'] * 3"

# a baseline without the file: every cell is NEW, and no control can run
repo2="$WORK/repo2"
mkdir -p "$repo2"
printf '#!/bin/sh\nexit 0\n' >"$repo2/added.sh"
chmod +x "$repo2/added.sh"
git_in "$repo2" init -q -b main
git_in "$repo2" add -A
git_in "$repo2" commit -q -m "no benchmarks yet"
{
  printf '[build]\ncommand = "true"\n\n[run]\nmin_rounds = 3\nmax_rounds = 3\n'
  cell added '["{arm}/added.sh"]'
} >"$repo2/refbench.toml"
git_in "$repo2" add -A
git_in "$repo2" commit -q -m "the first benchmark"
run_refbench run -q --repo "$repo2" --baseline main~1 --candidate main --seed 4 --out "$WORK/o2"
expect_rc 0
expect_json "$WORK/o2/results.json" "[c['name'] for c in r['cells']] == ['added'] and all(a['verdict'] == 'NEW' for a in r['analysis'])"
# nothing was compared, so the run cannot pass: inconclusive, and the report says why
expect_json "$WORK/o2/results.json" "r['verdict'] == 'inconclusive' and any('every cell is NEW' in w['message'] for w in r['warnings'])"
expect_in "$WORK/o2/report.md" "inconclusive: nothing compared, every cell is NEW"
echo "ok: a new cell is measured on the candidate only and NEW; a removed cell is listed; exit 0"
