#!/bin/sh
# Builds the Criterion benchmarks offline against Debian's packages: cargo
# and librust-criterion-dev, its crates as a directory source.
set -eu
home="${TMPDIR:-/tmp}/refbench-cargo-home"
mkdir -p "$home"
cat >"$home/config.toml" <<'TOML'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
# the benchmark executable, copied to ./suite-bench: refbench runs it, not
# cargo, which would touch the build's fingerprints in the tree
executable=$(CARGO_HOME="$home" /usr/bin/cargo bench --bench suite --no-run --message-format=json |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -n "$executable" ] || { echo "build.sh: cargo named no benchmark executable" >&2; exit 1; }
cp "$executable" suite-bench
