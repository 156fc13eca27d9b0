#!/usr/bin/env bash
# What replicas cost a run: extra disk (the copies, measured on a kept run)
# and extra time (the whole `refbench run` with the default replicas = 3
# against replicas = 1, same seed, 3 rounds), for the sample project and
# for a worktree whose build leaves 1 GiB of data beside a small program,
# with and without `replicate = ["bin/*"]`. Prints each figure and the time
# as a ratio to the replicas = 1 run measured just before it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
refbench="${REFBENCH:-${BUILD_DIR:-$root/build}/src/refbench}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# $1 repo, $2 config, $3 replicas, $4 out → prints "seconds bytes-of-copies"
measure() {
  "$refbench" run -q --repo "$1" -c "$2" --baseline v1.0.0 --candidate main --replicas "$3" --seed 1 \
    --max-rounds 3 --min-rounds 3 --warmup 0 --isolate off --fail-on never --keep-worktrees --out "$4" \
    >/dev/null 2>&1 || true
  local seconds bytes
  seconds=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_seconds"])' "$4/results.json")
  bytes=$(find "$4/arms" -maxdepth 1 -name '*.r[0-9]*' -exec du -sb {} \; 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}')
  echo "$seconds $bytes"
  git -C "$1" worktree list --porcelain | awk '/^worktree / {print $2}' | tail -n +2 |
    xargs -r -n1 git -C "$1" worktree remove --force
  rm -rf "$4"
}

compare_cost() { # $1 label, $2 repo, $3 config
  local one three bytes
  one=$(measure "$2" "$3" 1 "$work/one") # waits for its clean-up, unlike a process substitution
  three=$(measure "$2" "$3" 3 "$work/three")
  bytes=${three#* }
  one=${one%% *}
  three=${three%% *}
  /usr/bin/python3 -c 'import sys; l, a, b, n = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]); print(f"{l}: copies {n / 2**20:.1f} MiB, run {b:.2f} s with replicas = 3 vs {a:.2f} s with 1 ({b / a:.2f}x)")' \
    "$1" "$one" "$three" "$bytes"
}

sample="$work/sample"
"$root/scripts/make-sample-repo.sh" "$sample" slower >/dev/null
compare_cost "sample project" "$sample" "$sample/refbench.toml"

big="$work/big"
mkdir -p "$big"
cat >"$big/refbench.toml" <<'TOML'
[build]
command = "mkdir -p bin data && cp /bin/true bin/tool && head -c 1073741824 /dev/zero > data/big.bin"
disk = "2GiB"

[[cell]]
name = "tool"
command = ["{arm}/bin/tool"]
TOML
sed 's/^disk = "2GiB"$/disk = "2GiB"\n[run]\nreplicate = ["bin\/*"]/' "$big/refbench.toml" >"$work/replicate.toml"
git -C "$big" init -q -b main
git -C "$big" -c user.name=b -c user.email=b@b.invalid add -A
git -C "$big" -c user.name=b -c user.email=b@b.invalid commit -q -m one
git -C "$big" tag v1.0.0
git -C "$big" -c user.name=b -c user.email=b@b.invalid commit -q --allow-empty -m two
compare_cost "1 GiB worktree, whole tree copied" "$big" "$big/refbench.toml"
compare_cost "1 GiB worktree, replicate = [\"bin/*\"]" "$big" "$work/replicate.toml"
