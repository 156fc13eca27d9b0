#!/usr/bin/env bash
# Builds a nightly history from the sample project and renders it: eight
# nights of `main`, each chained to the night before with
# `--baseline history-last`; five of them make `compute` ~4 % slower
# (WORK 25 → 30), none by itself past the 1.15x gate, three change only
# the docs; the history is read with a 1.10x gate on the chain. Writes OUT/history.jsonl, OUT/history.md (table + Mermaid chart),
# OUT/history.html and OUT/compute-wall.svg (the `compute` wall chart as a
# standalone SVG, the picture in docs/manual/history.md).
# Usage: scripts/history-example.sh OUT   (takes 1–2 minutes; needs a build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
refbench="${REFBENCH:-${BUILD_DIR:-$root/build}/src/refbench}"
out="${1:?usage: scripts/history-example.sh OUT}"
[ -x "$refbench" ] || { echo "history-example: $refbench is not built; run scripts/build.sh" >&2; exit 2; }
[ ! -e "$out/history.jsonl" ] || { echo "history-example: $out/history.jsonl exists; choose a new OUT" >&2; exit 2; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sample="$tmp/sample"
"$root/scripts/make-sample-repo.sh" "$sample" docs >/dev/null
export GIT_AUTHOR_NAME=sample GIT_AUTHOR_EMAIL=sample@example.invalid
export GIT_COMMITTER_NAME=sample GIT_COMMITTER_EMAIL=sample@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

work=25
baseline=v1.0.0
night=0
for change in docs work docs work work docs work work; do
  night=$((night + 1))
  if [ "$change" = work ]; then
    sed -i "s/^#define WORK $work\$/#define WORK $((work + 1))/" "$sample/work.c"
    work=$((work + 1))
    git -C "$sample" commit -q -am "compute: WORK $work"
  else
    echo "Night $night's notes." >>"$sample/README.md"
    git -C "$sample" commit -q -am "docs: night $night"
  fi
  echo "history-example: night $night ($change) against $baseline" >&2
  set +e
  "$refbench" run -q --repo "$sample" --baseline "$baseline" --candidate main --history "$out" \
    --seed "$night" --budget 60s --out "$tmp/night$night" >/dev/null
  rc=$?
  set -e
  [ "$rc" -le 1 ] || { echo "history-example: night $night's run exited with $rc" >&2; exit "$rc"; }
  baseline=history-last
done

# the chain's gate is stricter than a night's: 1.10 over the chain, 1.15 a night
set +e # a creep exits 1: that is the point of the example
"$refbench" history "$out" --threshold 1.10 >"$out/history.md"
"$refbench" history "$out" --threshold 1.10 --format html >"$out/history.html"
set -e
# the compute wall chart, standalone: an <svg> of the page with its namespace
awk '/<h2>compute wall/ { found = 1 } found && /<svg/ { on = 1 } on { print } on && /<\/svg>/ { exit }' \
  "$out/history.html" | sed '1s|<svg |<svg xmlns="http://www.w3.org/2000/svg" |' >"$out/compute-wall.svg"
[ -s "$out/compute-wall.svg" ] || { echo "history-example: no compute wall chart in $out/history.html" >&2; exit 1; }
echo "history-example: wrote $out/history.md, $out/history.html and $out/compute-wall.svg" >&2
