#!/usr/bin/env bash
# What an explanation costs against the run it explains (docs/manual/explanations.md):
# each case runs once with `--explain all` and once with `--explain off`, same
# seed, 10 rounds fixed (precision stopping would have the two runs measure
# different amounts), and prints both runs' total_seconds, the explanations'
# seconds (the sum of explanations[].seconds), their share of the explained
# run, and the callgrind invocations per explained cell, counted by a
# `valgrind` shim first on the PATH that logs each `--tool=callgrind` before
# it execs the real one (docs/manual/explanations.md: one per arm, so 2).
#   (a) the sample project (scripts/make-sample-repo.sh, `main` ~30 % slower):
#       `refbench run --baseline latest-release --candidate main`, as scripts/demo.sh.
#   (b) zstd between two releases, when ZSTD_SRC names a zstd git clone (no
#       network needed): ZSTD_OLD (v1.4.9) against ZSTD_NEW (v1.5.0), each
#       exported with `git archive` and built with `make zstd` (unstripped),
#       `zstd -q -ZSTD_LEVEL (6) -f PAYLOAD -o /dev/null` on the old tree's C
#       sources concatenated (~3.7 MB), `refbench compare --metric
#       wall,instructions`; also the top 5 functions named.
# Usage: bench/explain-cost.sh [BUDGET]   (default 60s, case (a)'s budget;
#        needs a built refbench and valgrind; ZSTD_SRC=DIR for case (b))
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
refbench="$build/src/refbench"
budget="${1:-60s}"
[ -x "$refbench" ] || { echo "bench/explain-cost.sh: build refbench first: scripts/build.sh" >&2; exit 2; }
real_valgrind="$(type -P valgrind)" ||
  { echo "bench/explain-cost.sh: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/shim"
cat >"$work/shim/valgrind" <<SH
#!/bin/sh
case " \$* " in *" --tool=callgrind "*) echo callgrind >>"\${EXPLAIN_COST_LOG:-/dev/null}" ;; esac
exec "$real_valgrind" "\$@"
SH
chmod +x "$work/shim/valgrind"

# run_case NAME REFBENCH-ARGS…: the same command with --explain all and off
run_case() {
  local name="$1" mode
  shift
  for mode in all off; do
    : >"$work/$name-$mode.callgrind"
    EXPLAIN_COST_LOG="$work/$name-$mode.callgrind" PATH="$work/shim:$PATH" \
      "$refbench" "$@" -q --seed 1 --fail-on never --explain "$mode" --out "$work/$name-$mode" \
      >/dev/null 2>"$work/$name-$mode.err" ||
      { echo "bench/explain-cost.sh: $name --explain $mode failed: $(tail -n 5 "$work/$name-$mode.err")" >&2; exit 1; }
  done
}

# summary LABEL NAME [TOP]: the figures of one case, and its TOP functions
summary() {
  /usr/bin/python3 - "$1" "$work/$2" "${3:-0}" <<'PY'
import json, sys
label, base, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
def load(mode):
    return json.load(open(f"{base}-{mode}/results.json"))
def profiled(mode):
    return sum(1 for _ in open(f"{base}-{mode}.callgrind"))
on, off = load("all"), load("off")
entries = on.get("explanations", [])
explained = [e for e in entries if "problem" not in e]
refused = [e for e in entries if "problem" in e]
seconds = sum(e["seconds"] for e in entries)
total = on["total_seconds"]
print(f"{label}:")
print(f"  run with --explain all   {total:8.2f} s total ({on['elapsed_seconds']:.2f} s rounds and explanations)")
print(f"  run with --explain off   {off['total_seconds']:8.2f} s total ({off['elapsed_seconds']:.2f} s rounds)")
print(f"  explanations             {len(explained):8d} cells, {seconds:.2f} s "
      f"({seconds / total:.3f} of the explained run, {seconds / max(len(explained), 1):.2f} s per cell)")
print(f"  callgrind invocations    {profiled('all'):8d} with --explain all "
      f"({profiled('all') / max(len(explained), 1):.1f} per explained cell), {profiled('off')} with off")
for e in explained:
    i = e["instructions"]
    print(f"    {e['cell']:<22} {e['seconds']:6.2f} s  {i['baseline']:>14,.0f} -> {i['candidate']:>14,.0f} instructions "
          f"({len(e['functions'])} functions moved)")
for e in refused:
    print(f"    {e['cell']:<22} not explained: {e['problem']}")
verdicts = [f"{a['metric']} {a['verdict']} {a['ratio']:.3f}x" for a in on["analysis"]
            if not a["control"] and a.get("ratio") is not None]
print("  verdicts (explained run) " + "; ".join(verdicts))
if top:
    for e in explained:
        print(f"  top {top} functions of {e['cell']} (self instructions):")
        print(f"    {'function':<34} {'object':<10} {'baseline':>14} {'candidate':>14} {'delta':>15}")
        for f in e["functions"][:top]:
            print(f"    {f['function'][:34]:<34} {f['object'][:10]:<10} {f['baseline']:>14,.0f} "
                  f"{f['candidate']:>14,.0f} {f['delta']:>+15,.0f}")
PY
}

# (a) the sample project
sample="$work/sample"
"$root/scripts/make-sample-repo.sh" "$sample" slower >/dev/null
run_case sample run --repo "$sample" --baseline latest-release --candidate main --budget "$budget" \
  --min-rounds 10 --max-rounds 10
summary "(a) sample project, v1.0.0 -> main (slower), 10 rounds, budget $budget" sample

# (b) zstd between two releases
if [ -z "${ZSTD_SRC:-}" ]; then
  echo "(b) zstd: skipped (set ZSTD_SRC to a zstd git clone, e.g. of https://github.com/facebook/zstd)"
  exit 0
fi
old="${ZSTD_OLD:-v1.4.9}"
new="${ZSTD_NEW:-v1.5.0}"
level="${ZSTD_LEVEL:-6}"
for tag in "$old" "$new"; do
  mkdir -p "$work/zstd-$tag"
  git -C "$ZSTD_SRC" archive "$tag" | tar -x -C "$work/zstd-$tag"
  make -j2 -C "$work/zstd-$tag" zstd >"$work/zstd-$tag.log" 2>&1 ||
    { echo "bench/explain-cost.sh: building zstd $tag failed: $(tail -n 5 "$work/zstd-$tag.log")" >&2; exit 1; }
done
payload="$work/payload.txt"
(cd "$work/zstd-$old" && find lib programs tests -name '*.[ch]' | LC_ALL=C sort | xargs cat) >"$payload"
zstd_cmd() { echo "$work/zstd-$1/programs/zstd -q -$level -f $payload -o /dev/null"; }
run_case zstd compare --metric wall,instructions --min-rounds 10 --max-rounds 10 "$(zstd_cmd "$old")" "$(zstd_cmd "$new")"
summary "(b) zstd $old -> $new, -$level on $(($(wc -c <"$payload") / 1024)) KiB of C sources" zstd 5
