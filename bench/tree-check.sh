#!/usr/bin/env bash
# What the check of the arms' trees costs (docs/manual/security.md), all
# measured in this one run: a repository of FILES files (default 5 000)
# holding MIB MiB in all (default 200), measured by `refbench run` for
# ROUNDS rounds of `true` with one replica per arm. Prints refbench's
# hashing of both trees (taken once, after the builds) beside `sha256sum`
# over the same files, and its per-round lstat checks beside `find -printf`
# over the same trees, as ratios.
# Usage: bench/tree-check.sh [FILES] [MIB] [ROUNDS]   (needs a built refbench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
refbench="${BUILD_DIR:-$root/build}/src/refbench"
files="${1:-5000}"
mib="${2:-200}"
rounds="${3:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -x "$refbench" ] || { echo "build refbench first: scripts/build.sh" >&2; exit 1; }

repo="$work/repo"
mkdir -p "$repo"
/usr/bin/python3 - "$repo" "$files" "$mib" <<'PY'
import os, random, sys
root, files, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
size = mib * 1024 * 1024 // files
for i in range(files):
    d = os.path.join(root, f"d{i % 50}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i}"), "wb") as f:
        f.write(rng.randbytes(size))
open(os.path.join(root, "refbench.toml"), "w").write('[[cell]]\nname = "noop"\ncommand = ["true"]\n')
PY
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=b -c user.email=b@b.invalid add -A
git -C "$repo" -c user.name=b -c user.email=b@b.invalid commit -q -m files
"$refbench" run --repo "$repo" --baseline main --candidate main --allow-same-commit --replicas 1 --isolate off \
  --max-rounds "$rounds" --min-rounds "$rounds" --warmup 1 --fail-on never --keep-worktrees --out "$work/o" \
  >/dev/null 2>"$work/err"
hashed=$(sed -n 's/.*(hashed in \([0-9.]*\) s)$/\1/p' "$work/err")
checks=$(sed -n "s/.*the checks of the arms' trees took \([0-9.]*\) s in all$/\1/p" "$work/err")
trees=("$work/o/arms"/*/)
start=$(date +%s%N)
find "${trees[@]}" -path '*/.git' -prune -o -type f -print0 | xargs -0 sha256sum >/dev/null
peer_hash=$(echo "scale=3; ($(date +%s%N) - $start) / 1000000000" | bc)
start=$(date +%s%N)
for _ in $(seq $((rounds + 1))); do
  find "${trees[@]}" -printf '%s %i %T@ %C@ %m\n' >/dev/null
done
peer_stat=$(echo "scale=3; ($(date +%s%N) - $start) / 1000000000" | bc)
# the thorough look after the last round re-hashes: take one hashing off the checks' total
per_round=$(echo "scale=4; ($checks - $hashed) / ($rounds + 1)" | bc)
peer_round=$(echo "scale=4; $peer_stat / ($rounds + 1)" | bc)
echo "trees: 2 × $files files, $mib MiB each; $rounds rounds"
printf 'hashing both trees:    refbench %6.3f s   sha256sum %6.3f s   ratio %.2f\n' "$hashed" "$peer_hash" \
  "$(echo "scale=3; $hashed / $peer_hash" | bc)"
printf 'lstat check per round: refbench %6.4f s   find -printf %6.4f s   ratio %.2f\n' "$per_round" "$peer_round" \
  "$(echo "scale=3; $per_round / $peer_round" | bc)"
