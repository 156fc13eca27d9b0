#!/usr/bin/env bash
# report.md as GitHub reads it: cmark-gfm (GitHub's own GFM parser) renders
# the verdict table with 8 columns in every row and one row per result, and
# cell names with |, backticks, < and other Markdown read back exactly.
source "$(dirname "$0")/lib.sh"

CMARK=/usr/bin/cmark-gfm
[ -x "$CMARK" ] || skip "cmark-gfm is not installed (apt-get install cmark-gfm)"
[ -x "$PY" ] || skip "python3 is not installed"
CHECKER="$(dirname "$0")/gfm_table.py"

# Runs compare with cell name $1 into $WORK/$2 and checks its report.md.
check_name() {
  local out="$WORK/$2"
  run_refbench compare --name "$1" --max-rounds 3 --min-rounds 2 --budget 20s --out "$out" true true
  [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "compare --name '$1' exited $RC: $(cat "$WORK/err")"
  [ -s "$out/report.md" ] || fail "no report.md in $out"
  head -n 1 "$out/report.md" | grep -qxF '<!-- refbench -->' || fail "report.md does not start with the marker"
  "$CMARK" -e table "$out/report.md" >"$out/report.html" || fail "cmark-gfm cannot render $out/report.md"
  "$PY" "$CHECKER" "$out/report.html" "$out/results.json" >"$WORK/check" ||
    fail "report.md of '$1' misread by GFM: $(cat "$WORK/check")"
  expect_json "$out/results.json" "len(r['analysis']) >= 6" # the cell and its control, 3 metrics each
}

check_name 'a|b`c<d>' plain
check_name 'x\|y *e* _f_ &amp; [l](u) ~s~ <b>' markdown
echo "ok"
