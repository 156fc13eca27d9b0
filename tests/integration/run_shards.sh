#!/usr/bin/env bash
# run --shard K/N (docs/manual/commands.md#shards): two shards of the sample project run disjoint
# cells that cover the plan, each with its own A/A control and the seed
# derived from the refs and the config; `refbench report` merges them with
# one Benjamini–Hochberg family; shards of another seed, ref or config, or
# the same shard twice, are refused (exit 2) naming both files.
source "$(dirname "$0")/lib.sh"
repo=$(make_sample slower)
cp "$repo/refbench.toml" "$WORK/refbench.toml"

shard() { # K/N out-dir [extra flags]; the candidate is $CANDIDATE (default main)
  run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline v1.0.0 --candidate "${CANDIDATE:-main}" \
    --max-rounds 10 --shard "$1" --out "$WORK/$2" "${@:3}"
  [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "--shard $1: exit $RC; stderr: $(cat "$WORK/err")"
}

# --- bad shard specs, before anything is built
for bad in 0/2 3/2 2 a/2 1/0; do
  run_refbench run --repo "$repo" --config "$WORK/refbench.toml" --baseline v1.0.0 --candidate main \
    --shard "$bad" --out "$WORK/bad"
  expect_rc 2
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "--shard $bad: not one line: $(cat "$WORK/err")"
  expect_in "$WORK/err" "refbench: error: --shard '$bad'"
done
run_refbench run --repo "$repo" --config "$WORK/refbench.toml" --baseline v1.0.0 --candidate main \
  --shard 1/4 --out "$WORK/bad"
expect_rc 2
expect_in "$WORK/err" "refbench: error: --shard 1/4: the config plans only 3 cells, so some shard would get none — use at most 3 shards"
[ ! -e "$WORK/bad/logs/build-baseline.log" ] || fail "built despite a bad --shard"
run_refbench compare --shard 1/2 true true
expect_rc 2 # compare has one cell: --shard is a run flag

# --- the two shards of one run
shard 1/2 shard-1
shard 2/2 shard-2
S1="$WORK/shard-1/results.json"
S2="$WORK/shard-2/results.json"
# cost = 1 MiB + payload: checksum-2MiB (3 MiB) → 1; checksum-64KiB, compute → 2
expect_json "$S1" "[c['name'] for c in r['cells'] if not c['control']] == ['checksum-2MiB']"
expect_json "$S2" "[c['name'] for c in r['cells'] if not c['control']] == ['compute', 'checksum-64KiB']"
# one A/A control each, of one of its own cells
for f in "$S1" "$S2"; do
  expect_json "$f" "sum(c['control'] for c in r['cells']) == 1"
  expect_json "$f" "next(c['name'] for c in r['cells'] if c['control'])[:-len('-control')] in [c['name'] for c in r['cells'] if not c['control']]"
done
# only the payloads of its own cells
expect_json "$S1" "[p['label'] for p in r['payloads']] == ['2MiB']"
expect_json "$S2" "[p['label'] for p in r['payloads']] == ['64KiB']"
# the shard record, the seed derived from both commits and the config file's bytes
base=$(git -C "$repo" rev-parse v1.0.0)
cand=$(git -C "$repo" rev-parse main)
seed=$("$PY" - "$base" "$cand" "$WORK/refbench.toml" <<'PY'
import hashlib, sys
text = b"refbench shard seed\n" + sys.argv[1].encode() + b"\n" + sys.argv[2].encode() + b"\n" + open(sys.argv[3], "rb").read()
print(int(hashlib.sha256(text).hexdigest()[:16], 16))
PY
)
for f in "$S1" "$S2"; do
  expect_json "$f" "r['seed'] == $seed and r['shard']['seed'] == $seed and r['shard']['seed_derived'] is True"
  expect_json "$f" "r['shard']['count'] == 2 and r['shard']['baseline_sha'] == '$base' and r['shard']['candidate_sha'] == '$cand'"
  expect_json "$f" "' --shard ' in r['reproduce'] and ' --seed $seed ' in r['reproduce']"
done
expect_json "$S1" "r['shard']['index'] == 1 and len(r['shard']['config_sha256']) == 64"
expect_json "$S2" "r['shard']['index'] == 2"
[ "$(json_eval "$S1" "r['shard']['config_sha256']")" = "$(json_eval "$S2" "r['shard']['config_sha256']")" ] ||
  fail "the shards' config hashes differ"
head -1 "$WORK/shard-2/journal.jsonl" | grep -q '"shard":{' || fail "no shard record in the journal header"
# each shard's own report is about its cells only
expect_in "$WORK/shard-1/report.md" "shard 1/2: the verdict covers this shard's cells only"
expect_json "$S1" "{a['cell'] for a in r['analysis']} == {c['name'] for c in r['cells']}"

# --- merged: every cell, one BH family over the gated metrics of both shards
run_refbench report --format json "$S1" "$S2"
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "report of both shards: exit $RC: $(cat "$WORK/err")"
cp "$WORK/out" "$WORK/merged.json"
expect_json "$WORK/merged.json" "sorted(c['name'] for c in r['cells'] if not c['control']) == ['checksum-2MiB', 'checksum-64KiB', 'compute']"
expect_json "$WORK/merged.json" "sum(c['control'] for c in r['cells']) == 2"
expect_json "$WORK/merged.json" "[(s['index'], s['count']) for s in r['shards']] == [(1, 2), (2, 2)] and 'shard' not in r"
"$PY" - "$WORK/merged.json" "$S1" "$S2" <<'PY' || fail "merged p_bh is not BH over both shards"
import json, sys
merged = json.load(open(sys.argv[1]))
family = lambda a: a["gated"] and not a["control"] and a["p"] is not None and not a["censored"] and a["verdict"] != "ERROR"
raw = [a for f in sys.argv[2:] for a in json.load(open(f))["analysis"] if family(a)]
# Benjamini–Hochberg step-up over the raw p of both shards, computed here independently
ps = sorted(raw, key=lambda a: a["p"])
m = len(ps)
adjusted, running = {}, 1.0
for rank in range(m, 0, -1):
    a = ps[rank - 1]
    running = min(running, a["p"] * m / rank)
    adjusted[(a["cell"], a["metric"])] = running
assert m == 4, m  # compute gates wall and rss, the checksums wall
got = {(a["cell"], a["metric"]): a["p_bh"] for a in merged["analysis"] if family(a)}
assert set(got) == set(adjusted), (got, adjusted)
for key, value in adjusted.items():
    assert abs(got[key] - value) <= 1e-9 * max(1.0, value), (key, got[key], value)
# each file's cells keep their own run's raw p (their pairs are unchanged)
for a in raw:
    b = next(x for x in merged["analysis"] if x["cell"] == a["cell"] and x["metric"] == a["metric"])
    assert abs(b["p"] - a["p"]) <= 1e-12 and b["n"] == a["n"], (a, b)
PY
run_refbench report "$S1" "$S2"
expect_in "$WORK/out" "merged shards 1, 2 of 2"
expect_in "$WORK/out" "| compute | wall |"
expect_in "$WORK/out" "| checksum-2MiB | wall |"
# a killed shard's journal merges like its results.json
run_refbench report --format json "$WORK/shard-1/journal.jsonl" "$S2"
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "report of a journal and a shard: exit $RC: $(cat "$WORK/err")"
cp "$WORK/out" "$WORK/merged-journal.json"
"$PY" - "$WORK/merged.json" "$WORK/merged-journal.json" <<'PY' || fail "a shard's journal merges differently"
import json, sys
a, b = (json.load(open(f))["analysis"] for f in sys.argv[1:])
key = lambda x: (x["cell"], x["metric"])
assert sorted(map(key, a)) == sorted(map(key, b))
bb = {key(x): x for x in b}
for x in a:
    assert x["verdict"] == bb[key(x)]["verdict"] and x["n"] == bb[key(x)]["n"], (x, bb[key(x)])
PY

# --- refused merges: one line naming both files, the difference and the next step
refused() { # file-a file-b expected-text
  run_refbench report "$1" "$2"
  expect_rc 2
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "not one line: $(cat "$WORK/err")"
  expect_in "$WORK/err" "refbench: error: cannot merge $2 with $1: $3 — "
}
refused "$S1" "$S1" "both are shard 1/2"
expect_in "$WORK/err" "— pass each shard's results once"
shard 2/2 seed-5 --seed 5
refused "$S1" "$WORK/seed-5/results.json" "different seeds: $seed vs 5"
expect_in "$WORK/err" "same refs, config, settings, seed and shard count N"
CANDIDATE=v1.1.0-rc1 shard 2/2 other-ref
refused "$S1" "$WORK/other-ref/results.json" \
  "different candidate commits: ${cand:0:12} vs $(git -C "$repo" rev-parse v1.1.0-rc1 | cut -c1-12)"
printf '# another comment\n' >>"$WORK/refbench.toml"
shard 2/2 other-config
refused "$S1" "$WORK/other-config/results.json" "different configs or settings: sha256 $(json_eval "$S1" \
  "r['shard']['config_sha256'][:12]") vs $(json_eval "$WORK/other-config/results.json" "r['shard']['config_sha256'][:12]")"

# --- a subset of three shards merges with a warning naming the missing one
cp "$repo/refbench.toml" "$WORK/refbench.toml"
shard 1/3 three-1
shard 3/3 three-3
run_refbench report "$WORK/three-1/results.json" "$WORK/three-3/results.json"
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "report of 2 of 3 shards: exit $RC: $(cat "$WORK/err")"
expect_in "$WORK/err" "refbench: warning: shard 2 of 3 missing: the report covers only the cells of the shards given"
expect_in "$WORK/out" "merged shards 1, 3 of 3 · shard 2 missing: its cells are not in this report"
run_refbench report --format json "$WORK/three-1/results.json" "$WORK/three-3/results.json"
expect_json "$WORK/out" "r['verdict'] == 'regression'" # a regression among the cells given is still one
# ... but a subset cannot pass: an A/A run whose shards each pass merges as inconclusive
# (30 rounds: at 10, an A/A cell's interval can still reach past 1.15x)
# (a shard measured during a burst of load elsewhere may read INCONCLUSIVE: it is measured once
# more, and the rows of the first are printed)
aa_shard() {
  run_refbench run -q --repo "$repo" --config "$WORK/refbench.toml" --baseline v1.0.0 --candidate v1.0.0 \
    --allow-same-commit --min-rounds 30 --max-rounds 30 --shard "$1/3" --out "$WORK/aa-$1"
  expect_rc 0
}
for k in 1 3; do
  aa_shard $k
  if [ "$(json_eval "$WORK/aa-$k/results.json" "r['verdict']")" != pass ]; then
    echo "note: A/A shard $k/3 was not PASS; measuring it again:" \
      "$(json_eval "$WORK/aa-$k/results.json" "[(a['cell'], a['metric'], a['verdict'], a['ratio'], a.get('noise_floor')) for a in r['analysis'] if a['verdict'] != 'PASS']")" >&2
    rm -rf "$WORK/aa-$k"
    aa_shard $k
  fi
  expect_json "$WORK/aa-$k/results.json" "r['verdict'] == 'pass'"
done
run_refbench report --format json "$WORK/aa-1/results.json" "$WORK/aa-3/results.json"
expect_json "$WORK/out" "r['verdict'] == 'inconclusive' and \
  all(a['verdict'] in ('PASS', 'IMPROVED', 'CENSORED') for a in r['analysis'])"
run_refbench report --fail-on inconclusive "$WORK/aa-1/results.json" "$WORK/aa-3/results.json"
expect_rc 1
run_refbench report "$WORK/aa-1/results.json" "$WORK/aa-3/results.json"
expect_rc 0

# --- results that are not shards merge only over the same two commits
/usr/bin/env python3 - "$WORK/three-1/results.json" "$WORK/plain.json" "$WORK/plain-other.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["shard"]
json.dump(r, open(sys.argv[2], "w"))
r["arms"]["candidate"]["sha"] = "0123456789ab" + r["arms"]["candidate"]["sha"][12:]
json.dump(r, open(sys.argv[3], "w"))
PY
# a corrupt shard record is refused, not listed as billions of missing shards
/usr/bin/env python3 - "$WORK/three-1/results.json" "$WORK/corrupt.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["shard"]["count"] = 2**62
json.dump(r, open(sys.argv[2], "w"))
PY
run_refbench report "$WORK/corrupt.json" "$WORK/three-3/results.json"
expect_rc 2
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "not one line: $(cat "$WORK/err")"
expect_in "$WORK/err" "refbench: error: $WORK/corrupt.json: malformed \"shard\" record: shard 1 of $((2**62)) (K/N needs \
1 <= K <= N <= 100000) — pass the results.json or journal.jsonl a \`refbench run --shard\` wrote"
run_refbench report "$WORK/plain.json" "$WORK/plain-other.json"
expect_rc 2
expect_in "$WORK/err" "refbench: error: cannot merge $WORK/plain-other.json with $WORK/plain.json: different candidate \
commits: 0123456789ab vs ${cand:0:12} — merge only results of the same two commits"
[ "$(git -C "$repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left behind"
echo "ok: shards are disjoint and covering, merge with one BH family, mismatches refused"
