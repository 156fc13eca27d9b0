#!/usr/bin/env bash
# Every measurement is journaled; results.json holds every sample; a fixed
# seed reproduces the schedule (the order of invocations and the pads).
source "$(dirname "$0")/lib.sh"
cd "$WORK"
for out in a b c; do
  seed=77
  [ "$out" = c ] && seed=78
  run_refbench compare -q --fail-on never --seed "$seed" --max-rounds 6 --out "$WORK/$out" true "sleep 0.001"
  expect_rc 0
done
order() {
  "$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "sample":
        print(o["cell"], o["arm"], o["round"], o["order"])
' "$1"
}
order "$WORK/a/journal.jsonl" >"$WORK/order-a"
order "$WORK/b/journal.jsonl" >"$WORK/order-b"
order "$WORK/c/journal.jsonl" >"$WORK/order-c"
cmp -s "$WORK/order-a" "$WORK/order-b" || fail "same seed, different schedule"
! cmp -s "$WORK/order-a" "$WORK/order-c" || fail "different seeds, same schedule"
# warm-up (2 cells × 2 arms) + 6 rounds × 4 invocations
[ "$(wc -l <"$WORK/order-a")" -eq $((4 + 24)) ] || fail "unexpected sample count"
expect_json "$WORK/a/results.json" "sum(len(c['samples']) for c in r['cells']) == 28"
expect_json "$WORK/a/results.json" "'--seed 77' in r['reproduce']"
expect_json "$WORK/a/results.json" "r['schema_version'] == 1 and r['tool']['name'] == 'refbench'"
head -1 "$WORK/a/journal.jsonl" | "$PY" -c 'import json,sys; h=json.load(sys.stdin); assert h["type"]=="header" and h["seed"]==77' \
  || fail "journal header"
echo "ok: journal complete, seed reproduces the schedule"
