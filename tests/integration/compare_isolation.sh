#!/usr/bin/env bash
# CPU isolation (docs/manual/measurement.md#cpu-isolation isolate): with fewer than 4 usable CPUs `auto`
# warns once and runs unpinned, recorded in results.json, report.md and the
# journal; an explicit list pins every benchmarked process to exactly it; a
# CPU outside the usable set is a usage error; a cell's {cpus.NAME}
# placeholders get the planned lists in `run`.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
usable="$("$PY" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')"
count="$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')"
last="$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')"
# the usable list as refbench formats it ("0-1", "0-3,8")
usable_list="$("$PY" - "$usable" <<'PY'
import sys
cpus = [int(c) for c in sys.argv[1].split(",")]
runs, start = [], cpus[0]
for a, b in zip(cpus, cpus[1:] + [None]):
    if b != a + 1:
        runs.append(str(start) if start == a else f"{start}-{a}")
        start = b
print(",".join(runs))
PY
)"
quick=(--max-rounds 2 --min-rounds 2 --warmup 0 --no-control --seed 7 --shell)
seen='grep Cpus_allowed_list /proc/self/status | cut -f2 >'

# --- auto
run_refbench compare "${quick[@]}" --out "$WORK/auto" "$seen $WORK/auto-a" "$seen $WORK/auto-b"
expect_rc 0
if [ "$count" -lt 4 ]; then
  warning="CPU isolation needs at least 4 usable CPUs, this machine has $count ($usable_list); running unpinned"
  expect_in "$WORK/err" "refbench: warning: $warning"
  [ "$(grep -c 'CPU isolation' "$WORK/err")" -eq 1 ] || fail "the warning was not printed once: $(cat "$WORK/err")"
  expect_json auto/results.json "r['environment']['isolation'] == {'mode': 'auto', 'pinned': False, \
'usable_cpus': '$usable_list', 'refbench_cpus': '', 'benchmark_cpus': '', 'splits': [], 'warning': '$warning'}"
  expect_in auto/report.md "- CPU isolation (auto): unpinned — $warning"
  [ "$(cat auto-a)" = "$usable_list" ] || fail "an unpinned command saw CPUs $(cat auto-a), not $usable_list"
  # the journal header keeps it, so a killed run's report still says so
  "$REFBENCH" report auto/journal.jsonl >journal-report.md
  expect_in journal-report.md "- CPU isolation (auto): unpinned — $warning"
else
  expect_json auto/results.json "r['environment']['isolation']['pinned'] is True"
  benchmark="$(json_eval auto/results.json "r['environment']['isolation']['benchmark_cpus']")"
  [ "$(cat auto-a)" = "$benchmark" ] || fail "the baseline saw CPUs $(cat auto-a), not $benchmark"
  [ "$(cat auto-b)" = "$benchmark" ] || fail "the candidate saw CPUs $(cat auto-b), not $benchmark"
  expect_in auto/report.md "- CPU isolation (auto): benchmarked processes on CPUs $benchmark"
fi

# --- an explicit list: both arms see exactly that CPU; refbench keeps the others
run_refbench compare "${quick[@]}" --isolate "$last" --out "$WORK/list" "$seen $WORK/list-a" "$seen $WORK/list-b"
expect_rc 0
[ "$(cat list-a)" = "$last" ] || fail "--isolate $last: the baseline saw CPUs $(cat list-a)"
[ "$(cat list-b)" = "$last" ] || fail "--isolate $last: the candidate saw CPUs $(cat list-b)"
expect_json list/results.json "r['environment']['isolation']['mode'] == 'list' and \
r['environment']['isolation']['pinned'] is True and r['environment']['isolation']['benchmark_cpus'] == '$last' \
and r['environment']['isolation']['warning'] is None"
expect_json list/results.json "'--isolate $last' in r['reproduce']"
if ! grep -q "warning: CPU isolation" "$WORK/err"; then :; else fail "a warning for an explicit list: $(cat "$WORK/err")"; fi
# the layout, printed once before round 1
[ "$(grep -c '^refbench: CPU layout: benchmarked processes on CPUs '"$last"', refbench ' "$WORK/err")" -eq 1 ] ||
  fail "the CPU layout was not printed once: $(cat "$WORK/err")"
if [ "$count" -ge 2 ]; then
  others="$(json_eval list/results.json "r['environment']['isolation']['refbench_cpus']")"
  expect_in list/report.md "- CPU isolation (list): benchmarked processes on CPUs $last, refbench on $others"
fi

# --- a CPU outside the usable set, or a malformed list: exit 2, one line, nothing run
outside=$((last + 1))
run_refbench compare "${quick[@]}" --isolate "$outside" --out "$WORK/bad" true true
expect_rc 2
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line: $(cat "$WORK/err")"
expect_in "$WORK/err" "refbench: error: isolate $outside: CPU $outside is not usable here (usable: $usable_list)"
run_refbench compare "${quick[@]}" --isolate 3-1 --out "$WORK/bad" true true
expect_rc 2
expect_in "$WORK/err" "refbench: error: isolate: '3-1' is not a CPU list"
[ ! -e "$WORK/bad" ] || fail "a usage error created the output directory"

# --- run: a cell's split fills {cpus.NAME} (unpinned: the whole usable list)
repo="$WORK/repo"
git init -q -b main "$repo"
cat >"$repo/refbench.toml" <<EOF
[run]
max_rounds = 2
min_rounds = 2
warmup = 0
control = false

[[cell]]
name = "split"
command = "echo {cpus.service} \$CLIENT_CPUS >$WORK/split-seen"
env = { CLIENT_CPUS = "{cpus.client}" }
cpus = { service = 1, client = "rest" }
EOF
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.invalid commit -q -m one
git -C "$repo" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m two
run_refbench run --repo "$repo" --baseline HEAD~1 --candidate HEAD --out "$WORK/run" --seed 3
expect_rc 0
groups="$(json_eval run/results.json \
  "' '.join(s['groups'][g] for s in r['environment']['isolation']['splits'] for g in ('service', 'client'))")"
[ "$(cat split-seen)" = "$groups" ] || fail "the cell saw '$(cat split-seen)', results.json says '$groups'"
if [ "$count" -lt 4 ]; then
  [ "$groups" = "$usable_list $usable_list" ] || fail "unpinned groups are '$groups', not the usable list"
  expect_in "$WORK/err" "refbench: warning: CPU isolation needs at least 4 usable CPUs"
  expect_in run/report.md "  - cell \`split\` CPUs: client $usable_list · service $usable_list"
fi
echo "ok: isolation warns and runs unpinned on $count CPUs; --isolate $last pins to it; bad lists exit 2"
