#!/usr/bin/env bash
# Explanations (docs/manual/explanations.md): where a change came from. The
# fixture's candidate doubles hash_work's loop and triples make_nodes'
# allocations; the explanation lists hash_work first at 2.00x its baseline
# instructions, make_nodes as the allocation site at 3.00x, and not steady,
# which did not move; a wall-only cell is explained too (one callgrind
# invocation per arm after the rounds, its seconds recorded); the A/A
# control never is, nor a run whose arms are the same. The picture of the
# change by call stack is an SVG under --out that opens in Chromium.
source "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed (scripts/install-deps.sh)"
build_fixture explain
explained() { echo "next(e for e in r.get('explanations', []) if e['cell'] == '$1')"; }

# every cell explained (--explain all), counted on instructions and allocations too
set +e
"$REFBENCH" compare -q --seed 5 --max-rounds 3 --min-rounds 3 --metric wall,instructions,allocations --explain all \
  --out "$WORK/all" "$WORK/explain 1 1" "$WORK/explain 2 3" >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
[ "$RC" -le 1 ] || fail "compare exited $RC: $(cat "$WORK/err")"
R="$WORK/all/results.json"
E="$(explained compare)"
echo "functions: $(json_eval "$R" "[(f['function'], f['baseline'], f['candidate']) for f in $E['functions'][:4]]")"
echo "allocation sites: $(json_eval "$R" "[(f['function'], f['baseline'], f['candidate']) for f in $E['allocation_sites'][:3]]")"
expect_json "$R" "$E['source'] == 'callgrind' and $E['seconds'] > 0"
expect_json "$R" "$E['functions'][0]['function'] == 'hash_work' and $E['functions'][0]['object'] == 'explain'"
expect_json "$R" "f\"{$E['functions'][0]['candidate'] / $E['functions'][0]['baseline']:.2f}\" == '2.00'"
expect_json "$R" "$E['functions'][0]['delta'] == $E['functions'][0]['candidate'] - $E['functions'][0]['baseline']"
expect_json "$R" "all(f['function'] != 'steady' for f in $E['functions'])"
expect_json "$R" "$E['allocation_sites'][0]['function'] == 'make_nodes'"
expect_json "$R" "$E['allocation_sites'][0]['baseline'] == 1000 and $E['allocation_sites'][0]['candidate'] == 3000"
# the explanation's totals are the instructions the rounds counted (cachegrind and callgrind count alike)
expect_json "$R" "abs($E['instructions']['candidate'] / next(a for a in r['analysis'] if a['cell'] == 'compare' and a['metric'] == 'instructions')['ratio'] / $E['instructions']['baseline'] - 1) < 0.01"
expect_json "$R" "all(e['cell'] != 'compare-control' for e in r['explanations'])"
expect_json "$R" "$E['graph'] == 'why/1-compare.svg'"
expect_in "$WORK/all/report.md" "<details><summary>Where compare changed:"
expect_in "$WORK/all/report.md" "| hash_work | explain |"
expect_in "$WORK/all/report.md" "| make_nodes | explain | 1"

# the picture: an SVG, no script, that Chromium draws (a screenshot that is not blank)
SVG="$WORK/all/why/1-compare.svg"
[ -f "$SVG" ] && [ ! -L "$SVG" ] || fail "no picture at $SVG"
grep -q "hash_work" "$SVG" || fail "the picture does not name hash_work"
! grep -qiE '<script|href=' "$SVG" || fail "the picture carries a script or a link"
command -v chromium >/dev/null || fail "chromium is not installed: run scripts/install-deps.sh"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/chrome" \
  --window-size=1200,700 --screenshot="$WORK/why.png" "file://$SVG" >/dev/null 2>>"$WORK/chromium.log" ||
  fail "chromium --screenshot failed: $(tail -3 "$WORK/chromium.log")"
read -r width height colours ink < <("$PY" "$(dirname "$0")/png_stats.py" "$WORK/why.png")
echo "screenshot: ${width}x$height, $colours colours, $ink of it drawn"
[ "$width" = 1200 ] && [ "$colours" -ge 8 ] && "$PY" -c "import sys; sys.exit(not 0.02 < $ink < 0.95)" ||
  fail "the screenshot looks blank: ${width}x$height, $colours colours, $ink of it not background"

# a wall-only cell (nothing counted in the rounds) with a clear regression: explained by default
set +e
"$REFBENCH" compare -q --seed 6 --max-rounds 10 --out "$WORK/wall" "$WORK/explain 1 1" "$WORK/explain 4 1" \
  >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
R="$WORK/wall/results.json"
expect_json "$R" "next(a for a in r['analysis'] if a['cell'] == 'compare' and a['metric'] == 'wall')['verdict'] == 'REGRESSION'"
expect_json "$R" "r['settings']['explain'] == 'regressions' and len(r['explanations']) == 1"
expect_json "$R" "$(explained compare)['functions'][0]['function'] == 'hash_work' and $(explained compare)['seconds'] > 0"
expect_json "$R" "not any(s.get('instructions') for c in r['cells'] for s in c['samples'])"

# the same program on both arms: nothing moved, nothing explained; --explain off: none either
run_refbench compare -q --seed 7 --max-rounds 10 --out "$WORK/aa" "$WORK/explain 1 1" "$WORK/explain 1 1"
expect_rc 0
expect_json "$WORK/aa/results.json" "'explanations' not in r and r['settings']['explain'] == 'regressions'"
[ ! -e "$WORK/aa/why" ] || [ -z "$(ls -A "$WORK/aa/why")" ] || fail "an A/A run drew a picture"
set +e
"$REFBENCH" compare -q --seed 6 --max-rounds 10 --explain off --out "$WORK/off" "$WORK/explain 1 1" \
  "$WORK/explain 4 1" >"$WORK/out" 2>"$WORK/err"
set -e
expect_json "$WORK/off/results.json" "'explanations' not in r and r['settings']['explain'] == 'off'"
echo "ok: hash_work 2.00x, make_nodes 3.00x, steady not listed, a wall-only cell explained, no A/A explanation"
