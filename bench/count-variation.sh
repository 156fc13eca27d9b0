#!/usr/bin/env bash
# How often a count that varies comes out the same twice in a row: the
# chance that k_fixed_counts (docs/design.md, Counters) takes it for fixed.
# Each command runs RUNS times (default 20) under cachegrind; printed: how
# many distinct instruction counts it read and how many consecutive pairs
# were equal. Programs whose counts are fixed are listed beside them.
# Usage: bench/count-variation.sh
set -euo pipefail
runs="${RUNS:-20}"
command -v valgrind >/dev/null || { echo "bench/count-variation.sh: needs valgrind" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
seq 1 2000 >"$work/lines"
# two threads adding to one counter: the schedule decides how often the atomic add retries
cat >"$work/threads.c" <<'C'
#include <pthread.h>
#include <stdio.h>
static volatile long counter;
static void* work(void* arg) { for (int i = 0; i < 200000; ++i) __sync_fetch_and_add(&counter, 1); return arg; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%ld\n", counter);
  return 0;
}
C
cc -O1 -pthread -o "$work/threads" "$work/threads.c"
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
printf '%-36s %9s %s\n' command distinct "equal consecutive pairs"
for spec in "/usr/bin/python3 -c pass" "sort -R $work/lines" "$work/threads" "date" "ls -l /proc/self/" \
  "gzip -c $work/lines" "sort $work/lines"; do
  read -ra argv <<<"$spec"
  for _ in $(seq 1 "$runs"); do count "${argv[@]}"; done >"$work/counts"
  distinct=$(sort -u "$work/counts" | wc -l)
  equal=$(awk 'NR > 1 && $1 == prev { n++ } { prev = $1 } END { print n + 0 }' "$work/counts")
  printf '%-36s %9s %s of %s\n' "${spec/$work\//}" "$distinct" "$equal" "$((runs - 1))"
done
