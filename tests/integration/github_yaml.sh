#!/usr/bin/env bash
# The GitHub Actions files (action.yml, comment/action.yml,
# .github/workflows, examples/workflows) pass check_actions.py, and the
# checker fails with the expected message on broken copies of them. Then
# scripts/action-binary.sh, with a fake curl and fake build scripts: a
# release asset whose checksum and version match is used; a missing asset, a
# bad checksum, a wrong version or a non-release ref builds from source.
# shellcheck disable=SC2016 # single quotes keep ${{ }} and $VAR literal on purpose
source "$(dirname "$0")/lib.sh"

[ -x "$PY" ] || skip "python3 is not installed"
"$PY" -c 'import yaml' 2>/dev/null || skip "PyYAML is not installed (apt-get install python3-yaml)"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CHECKER="$ROOT/tests/integration/check_actions.py"

# Runs the checker on directory $1: output in $WORK/check, exit code in $RC.
check() {
  set +e
  "$PY" "$CHECKER" "$1" >"$WORK/check" 2>&1
  RC=$?
  set -e
}

# Copies the files the checker reads into $WORK/$1.
copy_tree() {
  local dir="$WORK/$1"
  mkdir -p "$dir/comment" "$dir/history" "$dir/scripts" "$dir/.github/workflows" "$dir/examples/workflows"
  cp "$ROOT/action.yml" "$dir/"
  cp "$ROOT/comment/action.yml" "$dir/comment/"
  cp "$ROOT/history/action.yml" "$dir/history/"
  cp "$ROOT/scripts/action-binary.sh" "$ROOT/scripts/history-branch.sh" "$dir/scripts/"
  cp "$ROOT"/.github/workflows/*.yml "$dir/.github/workflows/"
  cp "$ROOT"/examples/workflows/*.yml "$dir/examples/workflows/"
}

# Replaces the text $3 by $4 in file $2 of a fresh copy $WORK/$1; the text
# must occur exactly once, so a change to the real files cannot make a case
# test nothing.
broken_copy() {
  copy_tree "$1"
  "$PY" - "$WORK/$1/$2" "$3" "$4" <<'PY' || fail "$1: cannot make the broken copy"
import sys
path, old, new = sys.argv[1:4]
text = open(path, encoding="utf-8").read()
if text.count(old) != 1:
    sys.exit(f"expected one {old!r} in {path}, found {text.count(old)}")
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
}

# Fails unless the checker exits 1 on $WORK/$1 with the line fragment $2.
expect_violation() {
  check "$WORK/$1"
  [ "$RC" -eq 1 ] || fail "$1: the checker exited $RC, expected 1: $(cat "$WORK/check")"
  expect_in "$WORK/check" "$2"
}

# Line number of the first line of $WORK/$1 holding the fixed string $2.
line_of() {
  grep -nF -- "$2" "$WORK/$1" | head -n 1 | cut -d: -f1
}

# --- the real files, and an unchanged copy, pass --------------------------
check "$ROOT"
[ "$RC" -eq 0 ] || fail "the checker rejects the repository's files: $(cat "$WORK/check")"
shopt -s nullglob
files=("$ROOT"/action.yml "$ROOT"/comment/action.yml "$ROOT"/.github/workflows/*.y*ml "$ROOT"/examples/workflows/*.y*ml)
shopt -u nullglob
[ "${#files[@]}" -ge 8 ] || fail "expected action.yml, comment/action.yml, ci.yml and five examples; found ${files[*]}"
expect_in "$WORK/check" "check_actions: ${#files[@]} files ok"
copy_tree pristine
check "$WORK/pristine"
[ "$RC" -eq 0 ] || fail "the checker rejects an unchanged copy: $(cat "$WORK/check")"

# The action's outputs are what `refbench run --github` and `refbench bisect --github` write.
outputs="$("$PY" -c 'import sys, yaml; print(" ".join(sorted(yaml.safe_load(open(sys.argv[1]))["outputs"])))' "$ROOT/action.yml")"
[ "$outputs" = "culprit regressions report results verdict" ] || fail "action.yml outputs are '$outputs'"

# --- broken copies fail, one line per violation ---------------------------
# An undeclared input in with:, reported at its line.
broken_copy with_typo examples/workflows/refbench-dispatch.yml \
  'budget: ${{ inputs.budget }}' 'bugdet: ${{ inputs.budget }}'
line="$(line_of with_typo/examples/workflows/refbench-dispatch.yml 'bugdet:')"
expect_violation with_typo \
  "examples/workflows/refbench-dispatch.yml:$line: job 'benchmark' step 2: with: 'bugdet' is not an input of action.yml"

# A required input missing from with: (the comment action's artifact-dir).
broken_copy with_required examples/workflows/refbench-comment.yml \
  'artifact-dir: ${{ runner.temp }}/refbench-comment' 'github-token: ${{ github.token }}'
expect_violation with_required "with: lacks 'artifact-dir', a required input of comment/action.yml"

# An input interpolated into run: text instead of passed through env:.
broken_copy run_expression action.yml \
  'args+=("--budget=$REFBENCH_BUDGET")' 'args+=("--budget=${{ inputs.budget }}")'
line="$(line_of run_expression/action.yml '--budget=${{')"
expect_violation run_expression \
  "action.yml:$line: step 'run': run: contains the expression '\${{ inputs.budget }}'; pass it to the shell through env: instead"

# Event data interpolated into a workflow's run: text.
broken_copy run_event examples/workflows/refbench-command.yml \
  '"repos/$REPO/pulls/$PR"' '"repos/$REPO/pulls/${{ github.event.issue.number }}"'
expect_violation run_event "run: contains the expression '\${{ github.event.issue.number }}'"

# An output of a step that does not write it, and a step that does not exist.
broken_copy missing_output action.yml \
  'value: ${{ steps.run.outputs.results }}' 'value: ${{ steps.run.outputs.result }}'
expect_violation missing_output "outputs.results.value: step 'run' has no output 'result'"
broken_copy missing_step comment/action.yml \
  'REFBENCH: ${{ steps.binary.outputs.path }}' 'REFBENCH: ${{ steps.bin.outputs.path }}'
expect_violation missing_step "'steps.bin' names no step (no step has id 'bin')"
broken_copy missing_action_output examples/workflows/refbench-nightly.yml \
  'VERDICT: ${{ steps.refbench.outputs.verdict }}' 'VERDICT: ${{ steps.refbench.outputs.verdicts }}'
expect_violation missing_action_output "step 'refbench' has no output 'verdicts'"

# Invalid YAML.
broken_copy invalid_yaml examples/workflows/refbench-pr.yml \
  '    timeout-minutes: 60' $'    timeout-minutes: 60\n   steps: [unclosed'
expect_violation invalid_yaml "examples/workflows/refbench-pr.yml:"
expect_in "$WORK/check" "YAML error"
expect_in "$WORK/check" "check_actions: 1 violation(s)" # and nothing else about that folder

# The action's outputs must stay exactly verdict, regressions, report, results.
broken_copy outputs_changed action.yml '  regressions:' '  regression-count:'
expect_violation outputs_changed "expected exactly ['culprit', 'regressions', 'report', 'results', 'verdict']"

# An undeclared input inside the action (and the declared one left unused).
broken_copy action_input action.yml \
  'REFBENCH_MAX_ROUNDS: ${{ inputs.max-rounds }}' 'REFBENCH_MAX_ROUNDS: ${{ inputs.max-round }}'
expect_violation action_input "'inputs.max-round' is not a declared input"
expect_in "$WORK/check" "input 'max-rounds' is declared but never used"

# A workflow_dispatch input that is not declared (the key `on` reads as True).
broken_copy dispatch_input examples/workflows/refbench-dispatch.yml \
  '${{ inputs.budget }}' '${{ github.event.inputs.budgets }}'
expect_violation dispatch_input "'inputs.budgets' is not a declared workflow_dispatch/workflow_call input"

# No top-level permissions; a job without timeout-minutes.
broken_copy no_permissions .github/workflows/ci.yml $'permissions:\n  contents: read\n' ''
expect_violation no_permissions ".github/workflows/ci.yml:1: no top-level permissions:"
broken_copy no_timeout .github/workflows/ci.yml $'    timeout-minutes: 90\n' ''
expect_violation no_timeout "job 'debian' has no timeout-minutes"

# A composite run: step without shell:.
broken_copy no_shell comment/action.yml \
  $'    - name: Comment on the pull request\n      shell: bash\n' $'    - name: Comment on the pull request\n'
expect_violation no_shell "run: without shell: (composite steps need one)"

# A script path that does not exist from the action's folder.
broken_copy script_path comment/action.yml \
  '"$GITHUB_ACTION_PATH/../scripts/action-binary.sh"' '"$GITHUB_ACTION_PATH/scripts/action-binary.sh"'
expect_violation script_path "calls \$GITHUB_ACTION_PATH/scripts/action-binary.sh, which does not exist"

# The workflow_run workflow checking out code; naming a workflow that does not exist.
broken_copy checkout_in_workflow_run examples/workflows/refbench-comment.yml \
  '    steps:' $'    steps:\n      - uses: actions/checkout@v4'
expect_violation checkout_in_workflow_run "a workflow_run workflow must not check out code"
broken_copy workflow_run_name examples/workflows/refbench-pr.yml 'name: refbench-pr' 'name: refbench-pull-request'
expect_violation workflow_run_name "workflow_run names 'refbench-pr', which is no workflow's name in examples/workflows/"

# A pull_request workflow asking for a write token.
broken_copy pr_write examples/workflows/refbench-pr.yml $'permissions:\n  contents: read' $'permissions:\n  contents: read\n  pull-requests: write'
expect_violation pr_write "a pull_request workflow asks for 'pull-requests: write'"

# --- trust boundaries: a job that builds or runs the checked-out code -----
# A write permission.
broken_copy code_write examples/workflows/refbench-dispatch.yml $'permissions:\n  contents: read' $'permissions:\n  contents: write'
expect_violation code_write "job 'benchmark' builds or runs the checked-out code with 'contents: write'"
# A checkout that leaves the token in .git/config.
broken_copy persisted examples/workflows/refbench-nightly.yml \
  $'          persist-credentials: false # the token does not stay in .git/config for the build to read\n' ''
expect_violation persisted "job 'benchmark' step 1: checks out without 'persist-credentials: false'"
broken_copy persisted_ci .github/workflows/ci.yml \
  $'      - uses: actions/checkout@v4\n        with:\n          persist-credentials: false\n      - name: Trust the checkout (it belongs to the runner\'s user, not root)\n        run: git config --global --add safe.directory "$GITHUB_WORKSPACE"\n      - name: .ci/run' \
  $'      - uses: actions/checkout@v4\n      - name: Trust the checkout (it belongs to the runner\'s user, not root)\n        run: git config --global --add safe.directory "$GITHUB_WORKSPACE"\n      - name: .ci/run'
expect_violation persisted_ci "job 'debian' step 2: checks out without 'persist-credentials: false'"
# A token in a step's env, in the action's step that runs refbench, or as the action's input.
broken_copy token_env examples/workflows/refbench-nightly.yml \
  'VERDICT: ${{ steps.refbench.outputs.verdict }}' $'GH_TOKEN: ${{ github.token }}\n          VERDICT: ${{ steps.refbench.outputs.verdict }}'
expect_violation token_env "step 3 ('Verdict'): env: 'GH_TOKEN' hands the token to it in a job that runs the checked-out code"
broken_copy token_run_step action.yml \
  'REFBENCH_BUDGET: ${{ inputs.budget }}' $'GITHUB_TOKEN: ${{ inputs.github-token }}\n        REFBENCH_BUDGET: ${{ inputs.budget }}'
expect_violation token_run_step "step 'run': env: 'GITHUB_TOKEN' hands the token to it (the step that builds and runs the code)"
broken_copy token_bisect_step action.yml \
  'REFBENCH_GOOD: ${{ steps.run.outputs.baseline-sha }}' \
  $'GH_TOKEN: ${{ inputs.github-token }}\n        REFBENCH_GOOD: ${{ steps.run.outputs.baseline-sha }}'
expect_violation token_bisect_step "step 'bisect': env: 'GH_TOKEN' hands the token to it (the step that builds and runs the code)"
broken_copy token_input examples/workflows/refbench-pr.yml \
  'comment: false' $'comment: false\n          github-token: ${{ secrets.COMMENT_TOKEN }}'
expect_violation token_input "with: 'github-token' hands the token to the step that builds and runs the code"
# /refbench measuring a moving ref instead of the commit the accepting job pinned.
broken_copy moving_ref examples/workflows/refbench-command.yml \
  '          ref: ${{ needs.accept.outputs.candidate }}' '          ref: refs/pull/${{ github.event.issue.number }}/head'
expect_violation moving_ref "a /refbench job must check out the commit the accepting job pinned"
broken_copy moving_candidate examples/workflows/refbench-command.yml \
  'candidate-ref: ${{ needs.accept.outputs.candidate }}' 'candidate-ref: ${{ github.head_ref }}'
expect_violation moving_candidate "a /refbench job must pass 'candidate-ref' pinned by the accepting job"
broken_copy moving_fetch examples/workflows/refbench-command.yml \
  $'      - uses: refbench/refbench@v1\n' $'      - env:\n          PR: ${{ github.event.issue.number }}\n        run: git fetch origin "+refs/pull/$PR/head"\n      - uses: refbench/refbench@v1\n'
expect_violation moving_fetch "fetches a refs/pull/ branch, which moves"

# --- scripts/action-binary.sh --------------------------------------------
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *)
    echo "ok (action-binary.sh not checked: no release asset for $(uname -m))"
    exit 0
    ;;
esac
fake="$WORK/fake-action"
mkdir -p "$fake/scripts" "$WORK/fake-bin"
cp "$ROOT/scripts/action-binary.sh" "$fake/scripts/"
cat >"$fake/scripts/install-deps.sh" <<'EOF'
#!/bin/sh
echo "install-deps" >>"$CALLS"
echo "install-deps: all packages present"
EOF
cat >"$fake/scripts/build.sh" <<'EOF'
#!/bin/sh
echo "build $BUILD_DIR $*" >>"$CALLS"
mkdir -p "$BUILD_DIR/src"
printf '#!/bin/sh\necho "refbench built"\n' >"$BUILD_DIR/src/refbench"
chmod +x "$BUILD_DIR/src/refbench"
EOF
# curl that serves $RELEASE/<owner>/<name>/releases/download/..., exit 22 (HTTP error) when absent.
cat >"$WORK/fake-bin/curl" <<'EOF'
#!/bin/sh
out="" url=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o | --retry | --connect-timeout) [ "$1" = -o ] && out="$2"; shift 2 ;;
    -*) shift ;;
    *) url="$1"; shift ;;
  esac
done
echo "curl $url" >>"$CALLS"
file="$RELEASE/${url#https://github.com/}"
[ -f "$file" ] || exit 22
cp "$file" "$out"
EOF
chmod +x "$fake/scripts/"*.sh "$WORK/fake-bin/curl"
export RELEASE="$WORK/release"
asset="refbench-linux-$arch"

# Publishes a fake release $1 whose binary reports version $2; with $3 = bad,
# its .sha256 does not match.
publish() {
  local dir="$RELEASE/refbench/refbench/releases/download/$1"
  mkdir -p "$dir"
  printf '#!/bin/sh\necho "refbench %s"\n' "$2" >"$dir/$asset"
  (cd "$dir" && sha256sum "$asset" >"$asset.sha256")
  if [ "${3:-}" = bad ]; then echo "tampered" >>"$dir/$asset"; fi
}
publish v1.2.3 1.2.3
publish v1.2.4 1.2.4 bad
publish v1.2.5 1.2.3

# Runs action-binary.sh for action ref $1 with runner temp $WORK/temp-$2;
# stdout in $WORK/bin.out, stderr in $WORK/bin.err, exit code in $RC.
get_binary() {
  export CALLS="$WORK/calls-$2" RUNNER_TEMP="$WORK/temp-$2" GITHUB_OUTPUT="$WORK/output-$2"
  mkdir -p "$RUNNER_TEMP"
  set +e
  PATH="$WORK/fake-bin:$PATH" REFBENCH_ACTION_REF="$1" REFBENCH_ACTION_REPOSITORY=refbench/refbench \
    "$fake/scripts/action-binary.sh" >"$WORK/bin.out" 2>"$WORK/bin.err"
  RC=$?
  set -e
  touch "$CALLS"
  [ "$RC" -eq 0 ] || fail "action-binary.sh for '$1' exited $RC: $(cat "$WORK/bin.err")"
}

# Fails unless the last get_binary printed (and wrote as output) path $1.
expect_binary() {
  [ "$(cat "$WORK/bin.out")" = "$1" ] || fail "expected the binary $1, got '$(cat "$WORK/bin.out")'; stderr: $(cat "$WORK/bin.err")"
  grep -qxF "path=$1" "$GITHUB_OUTPUT" || fail "no path=$1 in GITHUB_OUTPUT: $(cat "$GITHUB_OUTPUT")"
  [ -x "$1" ] || fail "$1 is not executable"
}

# Fails unless the last get_binary built from source after a warning with $1.
expect_built_after() {
  expect_binary "$RUNNER_TEMP/refbench-build/src/refbench"
  expect_in "$WORK/bin.err" "::warning::"
  expect_in "$WORK/bin.err" "$1"
  expect_in "$CALLS" "build $RUNNER_TEMP/refbench-build -DREFBENCH_TESTS=OFF"
}

get_binary v1.2.3 release
expect_binary "$RUNNER_TEMP/refbench-bin/v1.2.3/refbench"
[ "$("$RUNNER_TEMP/refbench-bin/v1.2.3/refbench" --version)" = "refbench 1.2.3" ] || fail "not the release binary"
! grep -q '^build\|^install-deps' "$CALLS" || fail "built although the release asset was fine: $(cat "$CALLS")"
expect_in "$CALLS" "curl https://github.com/refbench/refbench/releases/download/v1.2.3/$asset.sha256"

get_binary v1.2.4 bad-checksum
expect_built_after "checksum verification of $asset from v1.2.4 failed"
[ ! -e "$RUNNER_TEMP/refbench-bin/v1.2.4/$asset" ] || fail "the unverified download was kept"

get_binary v1.2.5 wrong-version
expect_built_after "is not version 1.2.5"

get_binary v9.9.9 no-asset
expect_built_after "no release asset $asset"

get_binary main branch
expect_binary "$RUNNER_TEMP/refbench-build/src/refbench"
expect_in "$WORK/bin.err" "action ref 'main' is not a release tag"
! grep -q '^curl' "$CALLS" || fail "downloaded for a branch ref: $(cat "$CALLS")"
get_binary main branch # the same job again: the build is reused
expect_in "$WORK/bin.err" "reusing $RUNNER_TEMP/refbench-build/src/refbench"
[ "$(grep -c '^build' "$CALLS")" -eq 1 ] || fail "built twice in one job: $(cat "$CALLS")"

echo "ok"
