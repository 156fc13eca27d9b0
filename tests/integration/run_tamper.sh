#!/usr/bin/env bash
# The arms' trees are the verdict's evidence (README: Security model): a
# candidate whose benchmarked command rewrites the baseline's tree during
# the run — replacing a file, or editing it in place and setting its time
# back — gets an ERROR (exit 4) naming the file, never a verdict; the
# journal keeps what was measured. Paths listed in run.writable may change.
source "$(dirname "$0")/lib.sh"

repo="$WORK/repo"
mkdir -p "$repo"
# the work: a short sleep, its length on the file's last line
printf '#!/bin/sh\nsleep 0.02\n' >"$repo/work"
printf '#!/bin/sh\nexec sh "$1/work"\n' >"$repo/bench.sh"
mkdir -p "$repo/cache"
echo 0 >"$repo/cache/count"
cat >"$repo/refbench.toml" <<'TOML'
[run]
writable = ["cache/*"]

[[cell]]
name = "work"
command = ["sh", "{arm}/bench.sh", "{arm}"]
TOML
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m base
git_in "$repo" tag base

# $1: the candidate's bench.sh body (it gets {arm}; the baseline's tree is $WORK/o/arms/a)
candidate() {
  git_in "$repo" checkout -q -B "$1" base
  printf '#!/bin/sh\n%s\nexec sh "$1/work"\n' "$2" >"$repo/bench.sh"
  git_in "$repo" commit -q -am "$1"
}
# runs base against candidate $1 into $WORK/o-$1
measure() {
  run_refbench run --repo "$repo" --baseline base --candidate "$1" --out "$WORK/o-$1" --replicas 1 \
    --max-rounds 4 --min-rounds 4 --warmup 1 --isolate off --color never
}

# --- (a) sed -i on the baseline's work: a 2x regression would read IMPROVED
candidate sed 'sed -i "s/sleep 0.02$/sleep 0.2/" "$(dirname "$1")/a/work"'
measure sed
expect_rc 4
expect_in "$WORK/err" "the check of the arms' trees found a change to the baseline's tree: work (size 21 → 20 bytes) after warm-up"
expect_in "$WORK/err" "run.writable"
grep -q "IMPROVED" "$WORK/out" && fail "a verdict was given on a changed tree: $(cat "$WORK/out")"
expect_json "$WORK/o-sed/results.json" "all(a['verdict'] == 'ERROR' for a in r['analysis'])"
expect_json "$WORK/o-sed/results.json" "any('work (size' in (a.get('error') or '') for a in r['analysis'])"
grep -q '"type":"tree_changed"' "$WORK/o-sed/journal.jsonl" || fail "the journal does not record the change"
# the report re-rendered from the journal says the same
run_refbench report "$WORK/o-sed/journal.jsonl" --format json
expect_rc 4
cp "$WORK/out" "$WORK/re-sed.json"
expect_json "$WORK/re-sed.json" "all(a['verdict'] == 'ERROR' for a in r['analysis'])"

# --- (b) an edit in place of the same length, its modification time set back
candidate undo 'f="$(dirname "$1")/a/work"; t=$(stat -c %Y "$f")
sed "s/0.02/0.09/" "$f" > "$f.new"; cat "$f.new" > "$f"; rm "$f.new"; touch -d "@$t" "$f"'
measure undo
expect_rc 4
expect_in "$WORK/err" "a change to the baseline's tree: work (modified)"

# --- (c) a write under run.writable is the tree's own business; an honest candidate gets its verdict
candidate honest 'echo 1 >> "$1/cache/count"'
measure honest
[ "$RC" -le 1 ] || fail "a write under run.writable stopped the run (exit $RC): $(cat "$WORK/err")"
expect_json "$WORK/o-honest/results.json" "all(a['verdict'] != 'ERROR' for a in r['analysis'])"
expect_in "$WORK/err" "the arms' trees are checked after every round: 2 trees"
echo "ok"
