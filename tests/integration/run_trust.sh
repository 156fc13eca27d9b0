#!/usr/bin/env bash
# What a hostile pull request or a planted file can reach in `refbench run`:
# no credentials in the build's or the cells' environment (nor what
# --scrub-env / run.scrub_env name), a hostile --out is a path in sh -c
# scripts and never code, nothing is written through symlinks planted in
# --out, and an occupied <workdir>/a is refused (exit 3) naming the path.
source "$(dirname "$0")/lib.sh"

repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/refbench.toml" <<TOML
[build]
command = "env > build.env; setsid sleep 300 & echo \$! > $WORK/daemon-\$(basename \$PWD).pid"

[run]
scrub_env = ["FROM_CONFIG"]

[[cell]]
name = "envdump"
command = "env > {output}; cp {output} $WORK/cell-{round}.env; tr '\\\\0' '\\\\n' < /proc/\$PPID/environ > $WORK/launcher-{round}.env"
TOML
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=t -c user.email=t@t.invalid add -A
git -C "$repo" -c user.name=t -c user.email=t@t.invalid commit -q -m one

# --- credentials never reach build or cell commands
out="$WORK/o\$(touch $WORK/pwned)" # a path that a shell would run
set +e
env GITHUB_TOKEN=secret-gh GH_TOKEN=secret-ghcli ACTIONS_RUNTIME_TOKEN=secret-rt ACTIONS_ID_TOKEN_REQUEST_TOKEN=secret-id \
  ACTIONS_ID_TOKEN_REQUEST_URL=secret-url ACTIONS_CACHE_URL=secret-cache ACTIONS_RESULTS_URL=secret-results \
  INPUT_GITHUB-TOKEN=secret-input MY_SECRET_1=secret-glob FROM_CONFIG=secret-config KEEP_ME=visible \
  "$REFBENCH" run --repo "$repo" --baseline main --candidate main --allow-same-commit --scrub-env 'MY_SECRET_*' \
  --out "$out" --max-rounds 2 --min-rounds 2 --warmup 0 --keep-worktrees --isolate off >"$WORK/out" 2>"$WORK/err"
RC=$?
set -e
[ "$RC" -le 1 ] || fail "the run failed (exit $RC): $(cat "$WORK/err")"
[ ! -e "$WORK/pwned" ] || fail "a placeholder ran as shell code: --out was not quoted in the sh -c script"
build_env=$(find "$out/arms" -name build.env | head -1)
[ -n "$build_env" ] || fail "the build wrote no build.env"
ls "$WORK"/cell-*.env >/dev/null 2>&1 || fail "the cell wrote no environment dump"
ls "$WORK"/launcher-*.env >/dev/null 2>&1 || fail "the cell could not read its parent's environment"
for f in "$build_env" "$WORK"/cell-*.env "$WORK"/launcher-*.env; do
  if grep -q "secret-" "$f"; then
    fail "a credential reached a command: $(grep secret- "$f")"
  fi
done
for f in "$build_env" "$WORK"/cell-*.env; do
  expect_in "$f" "KEEP_ME=visible"
done
# the launcher, every command's parent, holds only what it reads itself
! grep -qv '^PATH=' "$WORK"/launcher-1.env || fail "the launcher's environment: $(cat "$WORK"/launcher-1.env)"
# what a build leaves running (setsid: out of its process group) is killed after the builds
for pidfile in "$WORK"/daemon-*.pid; do
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ]; then
    kill -9 "$pid"
    fail "a daemon the build left ($pid) still runs after the run"
  fi
done

# --- planted symlinks in --out are replaced, never written through
out2="$WORK/o2"
mkdir -p "$out2/logs" "$out2/payloads"
for victim in journal report-tmp results-tmp log; do echo "precious" >"$WORK/victim-$victim"; done
ln -s "$WORK/victim-journal" "$out2/journal.jsonl"
ln -s "$WORK/victim-log" "$out2/logs/build-baseline.log"
ln -s "$WORK/victim-report-tmp" "$out2/report.md.tmp"
ln -s "$WORK/victim-results-tmp" "$out2/results.json.tmp"
ln -s "$WORK/victim-results-tmp" "$out2/report.md"
mkdir -p "$out2/outputs" && echo "precious" >"$WORK/victim-output"
ln -s "$WORK/victim-output" "$out2/outputs/0-baseline.out"
run_refbench run --repo "$repo" --baseline main --candidate main --allow-same-commit --out "$out2" \
  --max-rounds 2 --min-rounds 2 --warmup 0 --isolate off
[ "$RC" -le 1 ] || fail "the run with planted links failed (exit $RC): $(cat "$WORK/err")"
for victim in journal report-tmp results-tmp log output; do
  [ "$(cat "$WORK/victim-$victim")" = "precious" ] || fail "refbench wrote through the planted link to victim-$victim"
done
[ ! -L "$out2/journal.jsonl" ] && [ -s "$out2/journal.jsonl" ] || fail "the journal is not a fresh file"
[ ! -L "$out2/report.md" ] && [ -s "$out2/report.md" ] || fail "report.md is not a fresh file"

# --- an occupied {arm} link path is the user's: refused, not deleted
mkdir -p "$WORK/w/a" && echo mine >"$WORK/w/a/file"
trees=$(git -C "$repo" worktree list | wc -l)
run_refbench run --repo "$repo" --baseline main --candidate main --allow-same-commit --out "$WORK/o3" \
  --workdir "$WORK/w" --max-rounds 2 --min-rounds 2 --warmup 0 --isolate off
expect_rc 3
expect_in "$WORK/err" "$WORK/w/a is in the way"
[ "$(cat "$WORK/w/a/file")" = mine ] || fail "the user's directory was touched"
[ "$(git -C "$repo" worktree list | wc -l)" -eq "$trees" ] || fail "worktrees were left behind after the refusal"
echo "ok: credentials scrubbed, placeholders quoted, planted links not followed, occupied workdir refused"
