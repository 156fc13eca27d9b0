#!/usr/bin/env bash
# Replicas (docs/manual/measurement.md, "Replicas"): `run` with replicas = 3
# copies each built arm twice beside its worktree (fresh files: other
# inodes, same bytes), draws a replica per arm and round, balanced; records
# `replica` on every sample (journal and results.json, also re-rendered
# from the journal); the A/A control's two arms never share a replica in a
# round; the copies are gone afterwards. `replicate` copies only what it
# names; `compare --replicas` copies the program.
source "$(dirname "$0")/lib.sh"

repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/tool.sh" <<'SH'
#!/bin/sh
# prints where it runs from, so the scenario sees each replica used
(cd "$(dirname "$0")" && pwd -P) >>"$1"
SH
chmod +x "$repo/tool.sh"
echo "data" >"$repo/notes.txt"
cat >"$repo/refbench.toml" <<TOML
[build]
command = "cp tool.sh built.sh"

[run]
replicas = 3
replicate = ["*.sh"]

[[cell]]
name = "where"
command = ["{arm}/built.sh", "$WORK/where-{round}.txt"]
TOML
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=t -c user.email=t@t.invalid add -A
git -C "$repo" -c user.name=t -c user.email=t@t.invalid commit -q -m one

run_refbench run --repo "$repo" --baseline main --candidate main --allow-same-commit --out "$WORK/o" \
  --max-rounds 6 --min-rounds 6 --warmup 1 --seed 11 --isolate off
[ "$RC" -le 1 ] || fail "the run failed (exit $RC): $(cat "$WORK/err")"
r="$WORK/o/results.json"
expect_json "$r" 'r["settings"]["replicas"] == 3'
# every measured sample names its replica; each arm uses each replica twice in 6 rounds
expect_json "$r" 'all("replica" in s for c in r["cells"] for s in c["samples"])'
expect_json "$r" 'all(sorted([s["replica"] for s in c["samples"] if not s["warmup"] and s["arm"] == a]) == [0, 0, 1, 1, 2, 2] for c in r["cells"] for a in ("baseline", "candidate"))'
# the control compares two different replicas of the baseline in every round
expect_json "$r" 'all(len({s["replica"] for s in c["samples"] if s["round"] == k}) == 2 for c in r["cells"] if c["control"] for k in range(1, 7))'
# the commands really ran from three directories per arm: the worktree and its two copies
dirs=$(cat "$WORK"/where-[1-6].txt | sort -u | wc -l)
[ "$dirs" -ge 3 ] || fail "the commands ran from $dirs directories: $(sort -u "$WORK"/where-*.txt)"
grep -q '\.r1$' "$WORK"/where-*.txt || fail "no command ran from a copy: $(sort -u "$WORK"/where-*.txt)"
# replicate = ["*.sh"]: the copies hold fresh .sh files, other files are links
# (checked on a kept run below); the copies are removed with the worktrees
[ -z "$(find "$WORK/o/arms" -maxdepth 1 -name '*.r[0-9]*' 2>/dev/null)" ] || fail "replicas left behind"
expect_in "$WORK/o/report.md" "**Replicas**"
# the journal of the run re-renders the replicas
run_refbench report --format json "$WORK/o/journal.jsonl"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["replicas"]) >= 6 and all("replica" in s for c in d["cells"] for s in c["samples"]), d.get("replicas")' "$WORK/out" ||
  fail "the journal lost the replicas"

# a kept run: the copies are fresh files with the same bytes, only what replicate names
run_refbench run --repo "$repo" --baseline main --candidate main --allow-same-commit --out "$WORK/k" \
  --max-rounds 2 --min-rounds 2 --warmup 0 --keep-worktrees --isolate off
[ "$RC" -le 1 ] || fail "the kept run failed (exit $RC): $(cat "$WORK/err")"
tree=$(find "$WORK/k/arms" -maxdepth 1 -type d -name 'main-*' ! -name '*.r*' | head -1)
[ -n "$tree" ] && [ -d "$tree.r1" ] && [ -d "$tree.r2" ] || fail "no kept replicas of $tree"
[ ! -L "$tree.r1/built.sh" ] && cmp -s "$tree/built.sh" "$tree.r1/built.sh" || fail "built.sh is not a copy"
[ "$(stat -c %i "$tree/built.sh")" != "$(stat -c %i "$tree.r1/built.sh")" ] || fail "built.sh is a hard link"
[ -x "$tree.r1/built.sh" ] || fail "the copy lost its mode"
[ -L "$tree.r1/notes.txt" ] || fail "notes.txt (not in replicate) should be a link"

# compare --replicas copies the program the command names first
run_refbench compare --replicas 2 --max-rounds 4 --min-rounds 4 --warmup 0 --seed 2 --out "$WORK/c" --isolate off \
  "$repo/tool.sh $WORK/cmp-a.txt" "$repo/tool.sh $WORK/cmp-b.txt"
[ "$RC" -le 1 ] || fail "compare --replicas failed (exit $RC): $(cat "$WORK/err")"
[ "$(sort -u "$WORK/cmp-a.txt" | wc -l)" -eq 2 ] || fail "the baseline ran from $(sort -u "$WORK/cmp-a.txt")"
[ ! -e "$WORK/c/replicas" ] && [ ! -e "$WORK/c/arms" ] || fail "compare left its replicas behind"
run_refbench compare --replicas 2 --shell --out "$WORK/c2" true true
expect_rc 2
expect_in "$WORK/err" "--replicas copies the program"
echo "ok: replicas made, drawn balanced, recorded, the control on two of them, removed"
