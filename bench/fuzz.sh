#!/usr/bin/env bash
# Fuzzes every reader of untrusted input (tests/fuzz: config, CSV, hyperfine
# JSON, results.json, journal, comment.json, event payload) for FUZZ_RUNS
# (default 100 000) executions each, starting from tests/fuzz/corpus, and
# prints per reader: executions, crashes, internal errors (an exception
# other than a usage or refusal error). Engines: the seeded mutation driver
# of the normal build (FUZZ_ENGINE=mutate), libFuzzer with ASan+UBSan
# (FUZZ_ENGINE=libfuzzer: a REFBENCH_FUZZ build in $FUZZ_BUILD_DIR; needs
# Debian's clang and libclang-rt-14-dev, which this script does not
# install), or both, one after the other (the default; libFuzzer is
# skipped with a note when its runtime is missing). The corpus holds
# hostile seeds for every JSON reader: nesting thousands of levels deep,
# numbers beyond a double or 2^53, long strings.
# Exit 1 when anything failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
fuzz_build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
runs="${FUZZ_RUNS:-100000}"
engine="${FUZZ_ENGINE:-both}"
targets=(config csv hyperfine results journal comment event reported history api rendered callgrind)
have_libfuzzer() { compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "$engine" = libfuzzer ] && ! have_libfuzzer; then
  echo "fuzz.sh: libFuzzer's runtime is missing: apt-get install clang libclang-rt-14-dev" >&2
  exit 2
fi
if [ "$engine" = both ] && ! have_libfuzzer; then
  echo "fuzz.sh: note: libFuzzer's runtime is missing (apt-get install clang libclang-rt-14-dev): mutation driver only" >&2
  engine=mutate
fi

failed=0
printf '%-10s %11s %8s %16s  %s\n' reader executions crashes "internal errors" engine
run_libfuzzer() {
  if [ ! -f "$fuzz_build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$fuzz_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREFBENCH_FUZZ=ON -DREFBENCH_SANITIZE=ON \
      -DREFBENCH_TESTS=ON >/dev/null
  fi
  cmake --build "$fuzz_build" -j"$(nproc)" --target refbench_fuzz >/dev/null
  for t in "${targets[@]}"; do
    mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
    cp "$root/tests/fuzz/corpus/$t/"* "$work/$t/corpus/"
    set +e
    ASAN_OPTIONS=detect_leaks=0 "$fuzz_build/tests/fuzz/refbench_fuzz_$t" -runs="$runs" -seed=1 -max_len=16384 \
      -use_value_profile=1 -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" "$work/$t/corpus" \
      >"$work/$t/log" 2>&1
    rc=$?
    set -e
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
    internal=$(grep -c "refbench fuzz $t: internal error" "$work/$t/log" || true)
    crashes=$(find "$work/$t/artifacts" -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
    crashes=$((crashes - internal))
    printf '%-10s %11s %8s %16s  %s\n' "$t" "${executions:-?}" "$crashes" "$internal" libfuzzer
    if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ] || [ "$internal" -ne 0 ]; then
      failed=1
      grep -m3 -E "internal error|ERROR: |runtime error" "$work/$t/log" >&2 || true
      mkdir -p "$root/build-fuzz-artifacts"
      cp "$work/$t/artifacts/"* "$root/build-fuzz-artifacts/" 2>/dev/null || true
    fi
  done
}

run_mutate() {
  cmake --build "$build" -j"$(nproc)" --target refbench_fuzz_mutate >/dev/null
  for t in "${targets[@]}"; do
    set +e
    "$build/tests/fuzz/refbench_fuzz_mutate" --corpus "$root/tests/fuzz/corpus" --runs "$runs" --target "$t" \
      --crashes "$work/crashes" >"$work/$t.out" 2>"$work/$t.err"
    rc=$?
    set -e
    read -r _ executions _ _ internal < <(tail -1 "$work/$t.out" | grep "^$t " || echo "$t ? ? ? ?")
    crashes=0
    if [ "$rc" -gt 128 ] || [ -s "$work/crashes/crash-$t" ]; then
      crashes=1 # the driver stops at the first crash
    fi
    printf '%-10s %11s %8s %16s  %s\n' "$t" "$executions" "$crashes" "$internal" mutate
    if [ "$rc" -ne 0 ]; then
      failed=1
      cat "$work/$t.err" >&2
      mkdir -p "$root/build-fuzz-artifacts"
      cp "$work/crashes/"* "$root/build-fuzz-artifacts/" 2>/dev/null || true
    fi
  done
}

[ "$engine" = libfuzzer ] || run_mutate
[ "$engine" = mutate ] || run_libfuzzer
exit "$failed"
