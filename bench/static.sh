#!/usr/bin/env bash
# The static release binary (scripts/build-static.sh), measured on this
# machine: its stripped size (target ≤ 8 MiB), its median start-up time for
# `refbench --version` against /bin/true as a ratio (target ≤ 3x, hyperfine
# -N, both in one run), and the RSS floor of its launcher — what every peak
# RSS reading includes (target ≤ 2 MiB). The development build, when there
# is one, is measured beside it.
# Usage: bench/static.sh [STATIC_BINARY]   (default dist/refbench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
static="${1:-$root/dist/refbench}"
dynamic="${BUILD_DIR:-$root/build}/src/refbench"
[ -x "$static" ] || { echo "build it first: scripts/build-static.sh" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "hyperfine missing: scripts/install-deps.sh" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
true_bin="$(type -P true)"

# measured from a copy, as a download writes it: the file `strip -o` leaves
# can sit in the page cache so that the first run maps far more of it
# (seen: a launcher floor of 6.1 MiB for the stripped file, 3.0 MiB for a copy)
cp "$static" "$work/refbench-static"
static="$work/refbench-static"
binaries=("$static")
[ -x "$dynamic" ] && binaries+=("$dynamic")

# median start-up, all commands in one hyperfine run
args=()
for b in "${binaries[@]}"; do args+=("$b --version"); done
hyperfine -N --warmup 20 --runs 300 --export-json "$work/start.json" "$true_bin" "${args[@]}" >/dev/null 2>&1

for i in "${!binaries[@]}"; do
  b="${binaries[$i]}"
  "$b" compare -q --no-control --max-rounds 5 --min-rounds 5 --budget 60s --seed 1 --out "$work/rss" \
    "$true_bin" "$true_bin" >/dev/null
  /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rss"]["floor_bytes"])' \
    "$work/rss/results.json" >"$work/floor-$i"
done

/usr/bin/python3 - "$work" "$true_bin" "${binaries[@]}" <<'PY'
import json, os, statistics, sys
work, true_bin, binaries = sys.argv[1], sys.argv[2], sys.argv[3:]
results = json.load(open(os.path.join(work, "start.json")))["results"]
median = {r["command"]: statistics.median(r["times"]) for r in results}
base = median[true_bin]
print(f"{'binary':40} {'size':>10} {'start-up':>10} {'vs true':>8} {'RSS floor':>10}")
print(f"{true_bin:40} {'':>10} {base * 1e6:8.0f} us {1:7.2f}x")
for i, b in enumerate(binaries):
    size = os.path.getsize(b) / 2**20
    start = median[b + " --version"]
    floor = int(open(os.path.join(work, f"floor-{i}")).read())
    kind = "static" if i == 0 else "dynamic (development)"
    print(f"{b[-40:]:40} {size:6.2f} MiB {start * 1e6:8.0f} us {start / base:7.2f}x {floor / 2**20:6.2f} MiB   {kind}")
print("targets (static): size <= 8 MiB, start-up <= 3x /bin/true, RSS floor <= 2 MiB")
PY
