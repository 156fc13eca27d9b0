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
CARGO_HOME="$home" exec /usr/bin/cargo bench --bench suite --no-run
