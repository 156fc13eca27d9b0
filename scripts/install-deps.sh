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
    groff-base # renders docs/refbench.1 (tests/integration/docs_man_page.sh)
    chromium # the history's HTML page is looked at in a real browser
    valgrind # instruction counts (docs/manual/counters.md)
    libbenchmark-dev golang-go python3-pytest-benchmark catch2 # the harnesses of examples/suites (docs/manual/suites.md)
    cargo librust-criterion-dev # Criterion 0.3, built offline from Debian's crates (examples/suites/criterion)
  )
  # Node.js and npm for Mermaid's parser (below); a Node.js from elsewhere is kept
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Mermaid's own parser from the npm registry, which the sweep scenario checks
# report.md's charts with (tests only; REFBENCH_MERMAID_DIR, default below)
install_mermaid() {
  local dir="${REFBENCH_MERMAID_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/refbench/mermaid}"
  [ "${1:-}" != "--build-only" ] || return 0
  [ ! -d "$dir/node_modules/mermaid" ] || return 0
  echo "install-deps: installing mermaid and jsdom from npm into $dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error mermaid@11.17.2 jsdom@24.1.3 >/dev/null
}

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_mermaid "${1:-}"
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
install_mermaid "${1:-}"
echo "install-deps: done"
