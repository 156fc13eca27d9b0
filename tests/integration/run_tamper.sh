#!/usr/bin/env bash
# The arms' trees are the verdict's evidence (docs/manual/security.md): a
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
# runs base against candidate $1 into $WORK/o-$1 (more flags after it)
measure() {
  local name="$1"
  shift
  run_refbench run --repo "$repo" --baseline base --candidate "$name" --out "$WORK/o-$name" --replicas 1 \
    --max-rounds "${ROUNDS:-4}" --min-rounds "${ROUNDS:-4}" --warmup 1 --isolate off --color never "$@"
}
# whether this machine makes the box (docs/manual/security.md): then the
# attacks below run boxed and unboxed (--sandbox off), else unboxed only
boxes=(off)
if unshare -p -m -f true 2>/dev/null || unshare -r -p -m -f true 2>/dev/null; then
  boxes=(auto off)
fi

# --- (a) sed -i on the baseline's work: a 2x regression would read IMPROVED
candidate sed 'sed -i "s/sleep 0.02$/sleep 0.2/" "$(dirname "$1")/a/work"'
measure sed --sandbox off
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
measure undo --sandbox off
expect_rc 4
expect_in "$WORK/err" "a change to the baseline's tree: work (modified)"

# --- (c) a write under run.writable is the tree's own business; an honest candidate gets its verdict
candidate honest 'echo 1 >> "$1/cache/count"'
measure honest
[ "$RC" -le 1 ] || fail "a write under run.writable stopped the run (exit $RC): $(cat "$WORK/err")"
expect_json "$WORK/o-honest/results.json" "all(a['verdict'] != 'ERROR' for a in r['analysis'])"
expect_in "$WORK/err" "the arms' trees are checked after every round: 2 trees"
expect_json "$WORK/o-honest/results.json" \
  "any(w['message'].startswith('run.writable = [\"cache/*\"] left 2 entries') for w in r['warnings'])"
expect_in "$WORK/o-honest/report.md" "left 2 entries of the arms' trees out of their check"


# --- (d) a 2x regression whose command re-points the baseline's {arm} link
# at a slowed copy of the baseline's tree: never IMPROVED or PASS. Boxed,
# the links are read-only (the regression shows); unboxed, the link check
# before every invocation finds the move (ERROR)
git_in "$repo" checkout -q -B relink base
printf '#!/bin/sh\nsleep 0.04\n' >"$repo/work"
printf '#!/bin/sh\n%s\nexec sh "$1/work"\n' 'arms="$(dirname "$1")"; copy="$arms/../copy"
if [ ! -d "$copy" ]; then cp -r "$arms/a/" "$copy" 2>/dev/null && sed -i "s/0.02/0.2/" "$copy/work"; fi
ln -sfn "$copy" "$arms/a" 2>/dev/null' >"$repo/bench.sh"
git_in "$repo" commit -q -am relink
for box in "${boxes[@]}"; do
  rm -rf "$WORK/o-relink"
  ROUNDS=8 measure relink --sandbox "$box"
  grep -Eq "^\| work \| wall .*(IMPROVED|PASS)" "$WORK/out" &&
    fail "--sandbox $box: a re-pointed link gave a verdict: $(cat "$WORK/out")"
  if [ "$box" = off ]; then
    expect_rc 4
    expect_in "$WORK/err" "the check of the arms' trees found a move of the link $WORK/o-relink/arms/a (re-pointed to"
  else
    [ "$RC" -eq 1 ] || [ "$RC" -eq 4 ] || fail "--sandbox $box: exit $RC: $(cat "$WORK/err")"
    [ "$RC" -eq 4 ] || [ "$(verdict_of "$WORK/o-relink/results.json" work wall)" = REGRESSION ] ||
      fail "--sandbox $box: the 2x regression reads $(verdict_of "$WORK/o-relink/results.json" work wall)"
    expect_json "$WORK/o-relink/results.json" "r['environment']['sandbox']['mode'].endswith('namespaces')"
  fi
done

# --- (e) the candidate's own config exempts everything (writable = ["*"])
# and edits the baseline's program in place: programs are never exempt
git_in "$repo" checkout -q -B star base
sed -i 's/^writable = .*/writable = ["*"]/' "$repo/refbench.toml"
printf '#!/bin/sh\n%s\nexec sh "$1/work"\n' 'sed -i "s/sleep 0.02$/sleep 0.2/" "$(dirname "$1")/a/work"' \
  >"$repo/bench.sh"
git_in "$repo" commit -q -am star
for box in "${boxes[@]}"; do
  rm -rf "$WORK/o-star"
  measure star --sandbox "$box"
  expect_rc 4
  expect_in "$WORK/err" "a change to the baseline's tree: work ("
  expect_in "$WORK/o-star/report.md" "entries of the arms' trees out of their check"
done
echo "ok"
