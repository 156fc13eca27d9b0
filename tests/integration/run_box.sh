#!/usr/bin/env bash
# The box (docs/manual/security.md): a benchmarked command that signals
# every refbench process it can find changes nothing (no exit 137, no
# worktree left, an honest verdict); refbench killed with SIGKILL from
# outside mid-cell — alone, or with its whole process group — leaves no
# process it started running; --sandbox required refuses (exit 3) where
# the box cannot be made.
source "$(dirname "$0")/lib.sh"

if ! { unshare -p -m -f true 2>/dev/null || unshare -r -p -m -f true 2>/dev/null; }; then
  run_refbench run --repo "$WORK" --sandbox required
  skip "this machine makes no PID and mount namespaces"
fi

repo="$WORK/repo"
mkdir -p "$repo"
printf '#!/bin/sh\nsleep 0.02\n' >"$repo/work"
cat >"$repo/refbench.toml" <<'TOML'
[[cell]]
name = "work"
command = ["sh", "{arm}/bench.sh", "{arm}"]
TOML
printf '#!/bin/sh\nexec sh "$1/work"\n' >"$repo/bench.sh"
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m base
git_in "$repo" tag base

# --- (a) the candidate's command kills its parent, its grandparent and
# its launcher (process 1 of the box, which no signal from inside reaches);
# refbench, outside, it cannot see
git_in "$repo" checkout -q -B killer base
printf '#!/bin/sh\n%s\nexec sh "$1/work"\n' 'p=$PPID; g=$(cut -d" " -f4 /proc/$p/stat)
kill -KILL "$p" 2>/dev/null; [ "$g" -gt 1 ] && kill -KILL "$g" 2>/dev/null; true' >"$repo/bench.sh"
git_in "$repo" commit -q -am killer
run_refbench run --repo "$repo" --baseline base --candidate killer --out "$WORK/o" --replicas 1 \
  --max-rounds 4 --min-rounds 4 --warmup 1 --isolate off --color never --sandbox required
[ "$RC" -le 1 ] || fail "a command that signals refbench's processes ended the run with exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/o/results.json" "r['environment']['sandbox']['mode'].endswith('namespaces')"
expect_json "$WORK/o/results.json" "all(a['verdict'] != 'ERROR' for a in r['analysis'])"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left: $(git -C "$repo" worktree list)"
expect_in "$WORK/o/report.md" "sandbox: namespaces"

# --- (b) refbench killed with SIGKILL mid-cell, alone or with its process
# group: no command it started runs on — boxed (the box dies with the
# launcher, the launcher with refbench) or not (the launcher, in a group of
# its own, sees refbench's end of the socket close and kills the command)
git_in "$repo" checkout -q -B spin base
printf '#!/bin/sh\nwhile :; do :; done\n' >"$repo/bench.sh"
git_in "$repo" commit -q -am spin
for case in auto-pid auto-group off-pid off-group; do
  target="${case#*-}"
  rm -rf "$WORK/k-$target"
  setsid "$REFBENCH" run --repo "$repo" --baseline base --candidate spin --out "$WORK/k-$target" --replicas 1 \
    --max-rounds 2 --min-rounds 2 --warmup 1 --isolate off --color never --timeout 600s --sandbox "${case%-*}" \
    >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  for _ in $(seq 300); do # until the spinning command runs
    pgrep -f "$WORK/k-$target/arms/b/bench.sh" >/dev/null && break
    sleep 0.1
  done
  pgrep -f "$WORK/k-$target/arms/b/bench.sh" >/dev/null || fail "the spinning command never started: $(cat "$WORK/err")"
  if [ "$target" = pid ]; then
    kill -KILL "$pid"
  else
    kill -KILL -- "-$pid"
  fi
  wait "$pid" 2>/dev/null || true
  sleep 5
  if pgrep -f "$WORK/k-$target/" >/dev/null; then
    left="$(pgrep -af "$WORK/k-$target/")"
    kill -KILL $(pgrep -f "$WORK/k-$target/") 2>/dev/null || true # this test's own, under its $WORK
    fail "--sandbox ${case%-*}: SIGKILL to refbench's $target left what it started running: $left"
  fi
done

# --- (c) the box turned off: recorded, and said once
rm -rf "$WORK/o"
git_in "$repo" checkout -q main 2>/dev/null || true
run_refbench run --repo "$repo" --baseline base --candidate base --allow-same-commit --out "$WORK/o" --replicas 1 \
  --max-rounds 2 --min-rounds 2 --warmup 0 --isolate off --color never --sandbox off
[ "$RC" -le 1 ] || fail "--sandbox off: exit $RC: $(cat "$WORK/err")"
expect_json "$WORK/o/results.json" "r['environment']['sandbox'] == {'mode': 'none', 'reason': 'run.sandbox = \"off\"'}"
echo "ok"
