#!/usr/bin/env bash
# Creates a git repository at DIR from examples/sample-project: the initial
# version is tagged v1.0.0 (and v1.1.0-rc1 after a docs change, a
# pre-release), then one more commit on `main` applies VARIANT:
#   slower   ~+30 % wall time    fatter  +60 % memory touched
#   faster   ~−30 % wall time    docs    a docs-only change
#   failing  exits with code 3   broken  does not compile
#   different  writes a different checksum ({output} differs)
#   slower-service  bin/serve does 1.4x the work per request (~28 % fewer requests/s)
# Usage: scripts/make-sample-repo.sh DIR [VARIANT]   (default: slower)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$1"
variant="${2:-slower}"
[ ! -e "$dir" ] || { echo "make-sample-repo: $dir exists; choose a new directory" >&2; exit 2; }
mkdir -p "$dir"
cp "$root/examples/sample-project/"{work.c,serve.c,Makefile,refbench.toml,service.toml,sweep.toml,bench-service.sh,wrk-report.lua,README.md} "$dir/"
printf 'bin/\n' >"$dir/.gitignore"
export GIT_AUTHOR_NAME=sample GIT_AUTHOR_EMAIL=sample@example.invalid
export GIT_COMMITTER_NAME=sample GIT_COMMITTER_EMAIL=sample@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git -C "$dir" init -q -b main
git -C "$dir" add -A
git -C "$dir" commit -q -m "sample: first release"
git -C "$dir" tag v1.0.0
echo "Release candidate notes." >>"$dir/README.md"
git -C "$dir" commit -q -am "docs: release notes"
git -C "$dir" tag v1.1.0-rc1
case "$variant" in
  slower) sed -i 's/^#define WORK 25$/#define WORK 40/' "$dir/work.c" ;;
  faster) sed -i 's/^#define WORK 25$/#define WORK 12/' "$dir/work.c" ;;
  fatter) sed -i 's/^#define MEMORY_MIB 8$/#define MEMORY_MIB 13/' "$dir/work.c" ;;
  failing) sed -i 's/^#define EXIT_CODE 0$/#define EXIT_CODE 3/' "$dir/work.c" ;;
  broken) sed -i 's/^  return EXIT_CODE;$/  return EXIT_CODE  \/* a missing semicolon *\//' "$dir/work.c" ;;
  different) sed -i 's/sum = sum \* 31 + buffer\[i\];/sum = sum * 37 + buffer[i];/' "$dir/work.c" ;;
  slower-service) sed -i 's/^#define REQUEST_WORK 400000$/#define REQUEST_WORK 560000/' "$dir/serve.c" ;;
  docs) echo "More documentation." >>"$dir/README.md" ;;
  *) echo "make-sample-repo: unknown variant '$variant'" >&2; exit 2 ;;
esac
git -C "$dir" commit -q -am "sample: $variant"
echo "$dir: v1.0.0 (baseline) and main ($variant)"
