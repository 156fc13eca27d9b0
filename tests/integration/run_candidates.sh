#!/usr/bin/env bash
# More candidates and arm settings (docs/manual/commands.md#more-candidates, docs/manual/config.md#arm-settings):
# - `run --candidate A --candidate B` measures both against the one
#   baseline in the same rounds: one BH family, a `candidate` column, every
#   candidate in results.json, per-candidate verdicts, a journal replay that
#   says the same; run.candidates does the same from the config;
# - [arms.baseline] / [arms.candidate] env and args reach the cell's command
#   (argv and /bin/sh -c, quoted), hooks get the env only, and one build is
#   A/B'd with --allow-same-commit;
# - `compare BASE C1 C2 -n …` names its commands;
# - bad combinations exit 2 naming what to fix.
source "$(dirname "$0")/lib.sh"
repo="$WORK/repo"
mkdir -p "$repo/bin"
# the program: sleeps 20 ms, or $DELAY ms, or 32 ms given "slow"; logs how it was called
cat >"$repo/bin/work" <<'EOF'
#!/bin/sh
printf '%s|%s|%s\n' "${MODE:-none}" "$#" "$*" >>"$LOG"
case "$1" in slow) exec sleep 0.032 ;; esac
exec sleep "0.0${DELAY:-20}"
EOF
chmod +x "$repo/bin/work"
cat >"$repo/refbench.toml" <<EOF
[build]
command = "true"

[run]
min_rounds = 16 # fixed, so that every cell runs every round; 16 pairs keep a docs-only PASS inside ±15 % under load
max_rounds = 16
control_cell = "argv"

[[cell]]
name = "argv"
command = ["{arm}/bin/work"]
env = { LOG = "$WORK/argv.log" }
EOF
git_in "$repo" init -q -b main
git_in "$repo" add -A
git_in "$repo" commit -q -m base
git_in "$repo" tag v1
echo "docs" >"$repo/README"
git_in "$repo" add -A
git_in "$repo" commit -q -m "docs only"
git_in "$repo" branch docs
sed -i 's/DELAY:-20/DELAY:-30/' "$repo/bin/work"
git_in "$repo" commit -q -am "slower"
git_in "$repo" branch slower

run_refbench run -q --repo "$repo" --baseline v1 --candidate docs --candidate slower --seed 5 --out "$WORK/o"
expect_rc 1
R="$WORK/o/results.json"
expect_json "$R" "[a['ref'] for a in r['arms']['candidates']] == ['docs', 'slower'] and r['arms']['candidate']['ref'] == 'docs'"
expect_json "$R" "[(c['name'], c['meta'].get('candidate')) for c in r['cells']] == [('argv', 'docs'), ('argv', 'slower'), ('argv-control', None)]"
expect_json "$R" "next(a for a in r['analysis'] if a.get('candidate') == 'slower' and a['metric'] == 'wall')['verdict'] == 'REGRESSION'"
# the docs-only candidate never reads REGRESSION; INCONCLUSIVE only when the run itself says it could not
# tell (its interval or the A/A floor reaches the threshold: a busy host stalled a few of its 16 rounds)
expect_json "$R" "(lambda a: a['verdict'] in ('PASS', 'IMPROVED') or (a['verdict'] == 'INCONCLUSIVE' and max(a['ci_high'], a['noise_floor'] or 0) >= a['threshold']))(next(a for a in r['analysis'] if a.get('candidate') == 'docs' and a['metric'] == 'wall'))"
# one BH family over both candidates' gated rows: with m = 2, the larger p stays and the smaller one doubles (capped by it)
expect_json "$R" "(lambda g, ps: len(g) == 2 and all(abs(a['p_bh'] - (max(ps) if a['p'] == max(ps) else min(2 * a['p'], max(ps)))) < 1e-12 for a in g))(*(lambda g: (g, [a['p'] for a in g]))([a for a in r['analysis'] if a['gated']]))"
# every pair was measured in the same rounds: each candidate's cell ran all 16 rounds, each round holding both
expect_json "$R" "all(sorted({s['round'] for s in c['samples']}) == list(range(17)) for c in r['cells'])"
M="$WORK/o/report.md"
expect_in "$M" "vs candidates \`docs\`"
expect_in "$M" "| cell | candidate | metric | baseline | candidate median |"
expect_in "$M" "| argv | slower | wall |"
expect_in "$M" "| argv-control | — | wall |"
expect_in "$WORK/o/report.csv" ",candidate"
[ -f "$WORK/o/logs/build-candidate-2.log" ] || fail "no build log of the second candidate"
run_refbench report "$WORK/o/journal.jsonl" --format json
expect_rc 1
cp "$WORK/out" "$WORK/replay.json"
wall_verdicts="[(a['cell'], a.get('candidate'), a['verdict']) for a in r['analysis'] if a['metric'] == 'wall']"
expect_json "$WORK/replay.json" "$wall_verdicts == $(json_eval "$R" "$wall_verdicts")"
expect_json "$WORK/replay.json" "[c for c, k, v in $wall_verdicts] == ['argv', 'argv', 'argv-control']"

# run.candidates in the config, no --candidate flag: the same arms
sed -i 's/^max_rounds = 16$/max_rounds = 16\ncandidates = ["docs", "slower"]/' "$repo/refbench.toml"
run_refbench run -q --repo "$repo" --baseline v1 --seed 5 --out "$WORK/o2"
expect_rc 1
expect_json "$WORK/o2/results.json" "[a['ref'] for a in r['arms']['candidates']] == ['docs', 'slower']"

# arm settings: one build A/B'd on a flag and an environment variable
cat >"$WORK/ab.toml" <<EOF
[build]
command = "true"

[run]
min_rounds = 16 # with 8, one stalled pair of the 1.6x cell can lift its p past 0.05
max_rounds = 16
control_cell = "argv"

[arms.baseline]
env = { MODE = "base" }

[arms.candidate]
env = { MODE = "cand" }
args = ["slow"]

[[cell]]
name = "argv"
command = ["{arm}/bin/work"]
env = { LOG = "$WORK/ab-argv.log", MODE = "cell" }
setup = ["/bin/sh", "-c", "echo \"\$MODE|\$*\" >>$WORK/ab-hook.log", "hook", "x"]

[[cell]]
name = "shell"
command = "{arm}/bin/work"
env = { LOG = "$WORK/ab-shell.log" }
threshold = { wall = 2.0 }
EOF
sed -i 's/^args = \["slow"\]$/args = ["slow", "it'"'"'s two"]/' "$WORK/ab.toml"
run_refbench run -q --repo "$repo" --config "$WORK/ab.toml" --baseline v1 --candidate v1 --allow-same-commit \
  --seed 5 --out "$WORK/ab"
expect_rc 1
expect_json "$WORK/ab/results.json" "r['arms']['candidate']['args'] == ['slow', \"it's two\"] and r['arms']['candidate']['env'] == ['MODE=cand'] and r['arms']['baseline']['env'] == ['MODE=base']"
expect_json "$WORK/ab/results.json" "next(a for a in r['analysis'] if a['cell'] == 'argv' and a['metric'] == 'wall')['verdict'] == 'REGRESSION'"
expect_in "$WORK/ab/report.md" 'with `MODE=cand slow '"'it'\\''s two'"'`'
# the arm's env wins over the cell's; args follow the command's words, one argument each
grep -qx "cand|2|slow it's two" "$WORK/ab-argv.log" || fail "the candidate's args/env did not reach its command: $(sort -u "$WORK/ab-argv.log")"
grep -qx "base|0|" "$WORK/ab-argv.log" || fail "the baseline's env did not reach its command: $(sort -u "$WORK/ab-argv.log")"
[ "$(sort -u "$WORK/ab-argv.log" | wc -l)" = 2 ] || fail "unexpected invocations: $(sort -u "$WORK/ab-argv.log")"
# a string command gets them appended to its script, shell-quoted: still two words
[ "$(sort -u "$WORK/ab-shell.log" | tr '\n' ' ')" = "base|0| cand|2|slow it's two " ] ||
  fail "shell cell: $(sort -u "$WORK/ab-shell.log")"
# hooks get the arm's env, not its args
[ "$(sort -u "$WORK/ab-hook.log" | tr "\n" " ")" = "base|x cand|x " ] || fail "hooks: $(sort -u "$WORK/ab-hook.log")"

# compare: a baseline and two candidates, named as hyperfine names them
run_refbench compare -q --out "$WORK/c" --seed 3 --min-rounds 16 --max-rounds 16 -n base -n same -n slow \
  'sleep 0.02' 'sleep 0.02' 'sleep 0.032'
expect_rc 1
expect_json "$WORK/c/results.json" "r['arms']['baseline']['name'] == 'base' and [a['name'] for a in r['arms']['candidates']] == ['same', 'slow']"
# `same` as the docs-only candidate above: PASS (or IMPROVED), or INCONCLUSIVE when the run could not tell
expect_json "$WORK/c/results.json" "[(a.get('candidate'), 'PASS' if a['verdict'] == 'IMPROVED' or (a['verdict'] == 'INCONCLUSIVE' and max(a['ci_high'], a['noise_floor'] or 0) >= a['threshold']) else a['verdict']) for a in r['analysis'] if a['metric'] == 'wall'][:2] == [('same', 'PASS'), ('slow', 'REGRESSION')]"
expect_in "$WORK/c/report.md" "baseline \`base\` vs candidates \`same\`, \`slow\`"
expect_in "$WORK/c/results.json" '"reproduce"'
expect_json "$WORK/c/results.json" "r['reproduce'].endswith(\"-n base -n same -n slow 'sleep 0.02' 'sleep 0.02' 'sleep 0.032'\")"

# bad combinations
run_refbench compare --out "$WORK/c2" -n base -n one 'sleep 0.01' 'sleep 0.01' 'sleep 0.01'
expect_rc 2
expect_in "$WORK/err" "2 command names for 3 commands"
run_refbench run --repo "$repo" --baseline v1 --candidate docs --candidate docs --out "$WORK/o3"
expect_rc 2
expect_in "$WORK/err" "--candidate docs is named twice"
run_refbench run --repo "$repo" --config "$WORK/ab.toml" --baseline v1 --candidate docs --candidate slower \
  --shard 1/2 --out "$WORK/o3"
expect_rc 2
expect_in "$WORK/err" "--shard splits a run of one candidate"
run_refbench run --repo "$repo" --baseline v1 --candidate docs --candidate slower --replicas 2 --out "$WORK/o3"
expect_rc 2
expect_in "$WORK/err" "pass --replicas 1"
run_refbench run --repo "$repo" --baseline v1 --candidate docs --candidate slower --history "$WORK/h" --out "$WORK/o3"
expect_rc 2
expect_in "$WORK/err" "--history keeps the series of one candidate; this run names 2"
[ ! -e "$WORK/h/history.jsonl" ] || fail "a refused run wrote a history"
printf '[arms.other]\nenv = { A = "1" }\n' >>"$WORK/ab.toml"
run_refbench run --repo "$repo" --config "$WORK/ab.toml" --baseline v1 --candidate docs --out "$WORK/o3"
expect_rc 2
expect_in "$WORK/err" "ab.toml:27:1: [arms.other]: the arms are baseline and candidate"
sed -i '$d' "$WORK/ab.toml"
sed -i '$d' "$WORK/ab.toml"
printf '[arms.baseline.x]\n' >>"$WORK/ab.toml"
run_refbench run --repo "$repo" --config "$WORK/ab.toml" --baseline v1 --candidate docs --out "$WORK/o3"
expect_rc 2
expect_in "$WORK/err" "arms.baseline"
[ ! -e "$WORK/o3/arms" ] || fail "a refused run made worktrees"
echo "ok: several candidates share the baseline's rounds and one BH family; arm settings reach the commands"
