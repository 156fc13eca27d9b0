#!/usr/bin/env bash
# Gets the refbench binary for the GitHub Actions in this repository
# (action.yml, comment/action.yml). When the action is used at a release tag
# (`uses: refbench/refbench@v1.2.3`), downloads that release's
# refbench-linux-<arch> asset and checks it against the .sha256 published
# beside it; otherwise (a branch, a SHA, a major tag, no such asset, a bad
# checksum) builds refbench from this checkout of the action's own source.
# It never builds or runs the code of the repository being benchmarked.
#
# Environment: REFBENCH_ACTION_REF / REFBENCH_ACTION_REPOSITORY (the action's
# ref and owner/name; GITHUB_ACTION_REF / GITHUB_ACTION_REPOSITORY when
# unset), RUNNER_TEMP (where the binary goes), GITHUB_OUTPUT (optional).
# Prints the binary's path on stdout and writes it to $GITHUB_OUTPUT as
# `path`; everything else goes to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ref="${REFBENCH_ACTION_REF:-${GITHUB_ACTION_REF:-}}"
repo="${REFBENCH_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-refbench/refbench}}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

log() { echo "refbench-action: $*" >&2; }
warn() { echo "::warning::refbench-action: $*" >&2; }

# Prints the path of a verified release binary for tag $1, or fails.
download() {
  local tag="$1" arch asset dir url expected
  case "$(uname -m)" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *)
      warn "no release binary for the machine type $(uname -m); building from source"
      return 1
      ;;
  esac
  asset="refbench-linux-$arch"
  dir="$temp/refbench-bin/$tag"
  url="https://github.com/$repo/releases/download/$tag/$asset"
  mkdir -p "$dir"
  if ! curl -fsSL --retry 3 --connect-timeout 20 -o "$dir/$asset" "$url" ||
    ! curl -fsSL --retry 3 --connect-timeout 20 -o "$dir/$asset.sha256" "$url.sha256"; then
    warn "no release asset $asset (or its .sha256) at $url; building from source"
    return 1
  fi
  # The .sha256 may hold "HASH  NAME" or just "HASH": check against our own name.
  expected="$(head -c 200 "$dir/$asset.sha256" | awk 'NR == 1 { print tolower($1) }')"
  expected="${expected#\*}"
  if ! [[ "$expected" =~ ^[0-9a-f]{64}$ ]] ||
    ! (cd "$dir" && printf '%s  %s\n' "$expected" "$asset" | sha256sum -c --quiet - >/dev/null 2>&1); then
    warn "checksum verification of $asset from $tag failed; building from source"
    rm -f "$dir/$asset"
    return 1
  fi
  chmod +x "$dir/$asset"
  mv -f "$dir/$asset" "$dir/refbench"
  if [ "$("$dir/refbench" --version 2>/dev/null | head -n 1)" != "refbench ${tag#v}" ]; then
    warn "the $asset of $tag does not run here or is not version ${tag#v}; building from source"
    rm -f "$dir/refbench"
    return 1
  fi
  echo "$dir/refbench"
}

# Builds refbench from the action's source and prints the binary's path.
build_from_source() {
  local build="$temp/refbench-build"
  local bin="$build/src/refbench"
  if [ -x "$bin" ]; then
    log "reusing $bin, built earlier in this job"
  else
    echo "::group::refbench-action: building refbench from source ($root)" >&2
    "$root/scripts/install-deps.sh" --build-only >&2
    BUILD_DIR="$build" "$root/scripts/build.sh" -DREFBENCH_TESTS=OFF >&2
    echo "::endgroup::" >&2
  fi
  [ -x "$bin" ] || {
    echo "::error::refbench-action: the build finished but $bin is missing" >&2
    exit 1
  }
  echo "$bin"
}

if [ "$(uname -s)" != Linux ]; then
  echo "::error::refbench-action: refbench runs on Linux runners only (this is $(uname -s))" >&2
  exit 1
fi

bin=""
if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  bin="$(download "$ref")" || bin=""
else
  log "action ref '${ref:-(local)}' is not a release tag vX.Y.Z; building from source"
fi
[ -n "$bin" ] || bin="$(build_from_source)"

log "using $bin"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "path=$bin" >>"$GITHUB_OUTPUT"
fi
echo "$bin"
