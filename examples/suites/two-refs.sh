#!/usr/bin/env bash
# Makes DIR a git repository of the suite example HARNESS with two refs:
# `baseline` (the example as it is) and `candidate` (its candidate.patch
# applied: one benchmark 1.4x slower). Then, in DIR:
#   refbench run --baseline baseline --candidate candidate
set -euo pipefail
if [ $# -ne 2 ] || [ ! -d "$(dirname "$0")/$1" ]; then
  echo "usage: $0 HARNESS DIR   (HARNESS: one of $(cd "$(dirname "$0")" && ls -d */ | tr -d / | tr '\n' ' '))" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")/$1" && pwd)"
mkdir -p "$2"
cd "$2"
git init -q
git config user.email example@refbench.invalid
git config user.name "refbench example"
tar -C "$here" --exclude-vcs-ignores --exclude=candidate.patch -cf - . | tar -xf -
git add -A
git commit -qm "baseline"
git tag baseline
patch -s -p1 < "$here/candidate.patch"
git commit -qam "candidate: one benchmark 1.4x slower"
git tag candidate
echo "$2: refs baseline and candidate of the $1 example"
