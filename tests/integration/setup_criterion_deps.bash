#!/usr/bin/env bash
# CTest fixture of the Criterion scenario (suite_criterion.sh): builds the
# example's dependencies — Criterion's 59 crates, at the scenario's
# opt-level 0 — once, into DIR/target, while the machine may still be busy
# (a PARALLEL test). The scenario, which runs alone, copies that target/
# into each arm's tree before the arm's own build, so cargo compiles only
# the example's crate there: its build is the work of a CI cache of
# target/, and what it measures does not change. The example's own crate
# is removed from DIR/target, so each arm compiles its own sources.
# Never fails the run: without cargo, or when the build fails, it leaves no
# DIR/target and the scenario builds everything itself (and fails there,
# with the build's log, if the build is broken).
#   setup_criterion_deps.bash DIR
set -euo pipefail
dir="${1:?usage: setup_criterion_deps.bash DIR}"
example="$(cd "$(dirname "$0")/../../examples/suites/criterion" && pwd)"
rm -rf "$dir"
if [ ! -x /usr/bin/cargo ] || ! compgen -G '/usr/share/cargo/registry/criterion-0.3*' >/dev/null; then
  echo "cargo and librust-criterion-dev are not installed: nothing to prepare"
  exit 0
fi
mkdir -p "$dir"
cp -a "$example" "$dir/tree"
cd "$dir/tree"
# the scenario's settings (suite_criterion.sh): the same profile and CARGO_HOME's place
export CARGO_PROFILE_BENCH_OPT_LEVEL=0 TMPDIR="$dir"
if ! ./build.sh >"$dir/build.log" 2>&1; then
  echo "the example's build failed: the scenario builds it itself ($(tail -n 1 "$dir/build.log"))"
  exit 0
fi
CARGO_HOME="$dir/refbench-cargo-home" /usr/bin/cargo clean --release -p suite >>"$dir/build.log" 2>&1
mv target "$dir/target"
cd "$dir" && rm -rf "$dir/tree"
echo "prepared $dir/target: $(du -sh "$dir/target" | cut -f1)"
