#!/usr/bin/env bash
# Config errors exit 2 naming file:line:column; a preflight refusal exits 3
# before anything is built.
source "$(dirname "$0")/lib.sh"
repo=$(make_sample slower)
cp "$repo/refbench.toml" "$WORK/good.toml"

sed 's/^max_rounds = 30$/max_rouns = 30/' "$WORK/good.toml" >"$WORK/typo.toml"
run_refbench run --repo "$repo" --config "$WORK/typo.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_rc 2
expect_in "$WORK/err" "refbench: error: $WORK/typo.toml:8:1: unknown key 'max_rouns' in [run]"

sed 's/^budget = "60s"$/budget = 60s/' "$WORK/good.toml" >"$WORK/syntax.toml"
run_refbench run --repo "$repo" --config "$WORK/syntax.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_rc 2
expect_in "$WORK/err" "$WORK/syntax.toml:7:"

sed 's/^min_rounds = 10$/min_rounds = "ten"/' "$WORK/good.toml" >"$WORK/type.toml"
run_refbench run --repo "$repo" --config "$WORK/type.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_rc 2
expect_in "$WORK/err" "$WORK/type.toml:9:14: run.min_rounds must be an integer"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "a worktree was added despite a config error"

# docs/manual/suites.md: an unknown harness, and from = "file" without {output}
printf '%s\n' '' '[[cell]]' 'name = "micro"' 'suite = "gbench"' 'command = ["true"]' >"$WORK/suite.toml"
cat "$WORK/good.toml" "$WORK/suite.toml" >"$WORK/harness.toml"
run_refbench run --repo "$repo" --config "$WORK/harness.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_rc 2
expect_in "$WORK/err" 'cell.suite must be one of google-benchmark, go, criterion, pytest-benchmark, catch2, bmf, hyperfine or cargo-bench, got "gbench"'
printf '%s\n' '' '[[cell]]' 'name = "micro"' 'suite = "go"' 'from = "file"' 'command = ["true"]' >"$WORK/suite.toml"
cat "$WORK/good.toml" "$WORK/suite.toml" >"$WORK/from.toml"
run_refbench run --repo "$repo" --config "$WORK/from.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_rc 2
expect_in "$WORK/err" "cell 'micro' reads its go results from {output} (from = \"file\"), but its command never mentions {output}"

# the disk preflight refuses a build that needs more than the filesystem has
sed 's/^timeout = "5m"$/timeout = "5m"\ndisk = "1000TiB"/' "$WORK/good.toml" >"$WORK/disk.toml"
run_refbench run --repo "$repo" --config "$WORK/disk.toml" --baseline v1.0.0 --candidate main --out "$WORK/o"
expect_rc 3
expect_in "$WORK/err" "not enough disk space"
[ ! -e "$WORK/o/logs/build-baseline.log" ] || fail "built despite the preflight refusal"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "a worktree was added despite the preflight refusal"
echo "ok: config errors → 2 with file:line:column, preflight → 3 before building"
