#!/usr/bin/env bash
# Installs everything refbench needs to build, test and benchmark, from
# Debian's packages (--build-only: only what building needs). Idempotent:
# packages already present are skipped.
set -euo pipefail

# What building refbench needs (the action builds with --build-only, on a
# user's runner); then what its tests and benchmarks need as well.
packages=(
  g++ cmake make ninja-build git ca-certificates pkg-config
  libcurl4-openssl-dev libssl-dev
  libcli11-dev libtomlplusplus-dev libboost-math-dev
  nlohmann-json3-dev libfmt-dev
)
if [ "${1:-}" != "--build-only" ]; then
  packages+=(
    doctest-dev hyperfine python3 python3-scipy python3-yaml cmark-gfm
    util-linux procps openssl wrk
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
