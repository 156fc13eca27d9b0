#!/usr/bin/env bash
# run --cells GLOB[,GLOB…] (docs/manual/commands.md#refbench-run): only the matching cells are built
# into the plan, the A/A control is chosen among them, only their payloads
# are generated and the reproduce line keeps the selection; a glob that
# matches no cell, or --cells with --shard, exits 2 before anything is built.
source "$(dirname "$0")/lib.sh"
repo=$(make_sample slower)

run_refbench run --repo "$repo" --baseline v1.0.0 --candidate main --cells 'nothing*,compute' --out "$WORK/none"
expect_rc 2
expect_in "$WORK/err" "refbench: error: --cells 'nothing*' matches no cell"
expect_in "$WORK/err" "the cells are: compute, checksum-64KiB, checksum-2MiB"
[ ! -e "$WORK/none/logs/build-baseline.log" ] || fail "built despite a glob that matches no cell"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "a worktree was added despite a glob that matches no cell"

run_refbench run --repo "$repo" --baseline v1.0.0 --candidate main --cells compute --shard 1/2 --out "$WORK/both"
expect_rc 2
expect_in "$WORK/err" "--cells and --shard cannot be combined"

# run.control_cell (compute) is not selected: the control is one of the selected cells
sed 's/^\[run\]$/[run]\ncontrol_cell = "compute"/' "$repo/refbench.toml" >"$WORK/control.toml"
run_refbench run -q --repo "$repo" -c "$WORK/control.toml" --baseline v1.0.0 --candidate main \
  --cells 'checksum-2*' --cells 'nothing-else,checksum-2MiB' --min-rounds 3 --max-rounds 3 --seed 3 --out "$WORK/sel"
expect_rc 2
expect_in "$WORK/err" "--cells 'nothing-else' matches no cell"

run_refbench run -q --repo "$repo" -c "$WORK/control.toml" --baseline v1.0.0 --candidate main \
  --cells 'checksum-2*' --cells 'checksum-6?KiB' --min-rounds 3 --max-rounds 3 --seed 3 --out "$WORK/sel"
[ "$RC" -le 1 ] || fail "run --cells exited $RC: $(cat "$WORK/err")"
R="$WORK/sel/results.json"
expect_json "$R" "[c['name'] for c in r['cells'] if not c['control']] == ['checksum-64KiB', 'checksum-2MiB']"
expect_json "$R" "[c['name'] for c in r['cells'] if c['control']] in (['checksum-64KiB-control'], ['checksum-2MiB-control'])"
expect_json "$R" "sorted(p['label'] for p in r['payloads']) == ['2MiB', '64KiB']"
expect_json "$R" "\"--cells 'checksum-2*,checksum-6?KiB'\" in r['reproduce']"
expect_json "$R" "all(a['cell'] != 'compute' for a in r['analysis'])"

# one size selected: the other payload is not generated
run_refbench run -q --repo "$repo" --baseline v1.0.0 --candidate main --cells 'checksum-64KiB' \
  --min-rounds 3 --max-rounds 3 --seed 3 --out "$WORK/one"
[ "$RC" -le 1 ] || fail "run --cells exited $RC: $(cat "$WORK/err")"
expect_json "$WORK/one/results.json" "[p['label'] for p in r['payloads']] == ['64KiB']"
expect_json "$WORK/one/results.json" "[c['name'] for c in r['cells']] == ['checksum-64KiB', 'checksum-64KiB-control']"
echo "ok: --cells selects cells, the control among them and their payloads; no match → 2 before building"
