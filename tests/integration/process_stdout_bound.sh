#!/usr/bin/env bash
# A cell whose command prints 60 MB before its custom metric: the metric is
# read from the end of its stdout, the launcher's RSS floor does not move,
# and `true` measured after it still reads a few MiB of rss.
source "$(dirname "$0")/lib.sh"

repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/loud.sh" <<'SH'
head -c 60000000 /dev/zero | tr '\000' x
echo
echo '{"ops": 5}'
SH
cat >"$repo/refbench.toml" <<'TOML'
[build]
command = "true"

[run]
min_rounds = 3
max_rounds = 3

[[cell]]
name = "loud"
command = ["sh", "{arm}/loud.sh"]
metrics = ["wall", "ops"]
gate = ["ops"]

[[cell.metric]]
name = "ops"
from = "stdout"
key = "ops"
better = "higher"

[[cell]]
name = "quiet"
command = ["true"]
metrics = ["wall", "rss"]
gate = ["wall"]
TOML
commit_two_refs "$repo"

run_refbench run -q --repo "$repo" --baseline HEAD~1 --candidate main --seed 2 --fail-on never --out "$WORK/o"
expect_rc 0
r="$WORK/o/results.json"
expect_json "$r" "samples('loud', 'candidate', 'values') == [{'ops': 5.0}] * 3"
# the floor read with every measured invocation of a cell (the warm-up's first spawn pages in more) stays within the drift of request
# sizes (process::k_rss_floor_drift, 128 KiB)
expect_json "$r" "all(max(s['rss_floor'] for s in c['samples'] if s['round'] > 0) - min(s['rss_floor'] for s in c['samples'] if s['round'] > 0) <= 128 * 1024 for c in r['cells'])"
expect_json "$r" "not any('RSS floor' in w['message'] for w in r['warnings'])"
expect_json "$r" "max(samples('quiet', 'baseline', 'rss') + samples('quiet', 'candidate', 'rss')) < 8 * 2**20"
echo "ok: 60 MB of stdout: metric read from its end, launcher floor unchanged, true < 8 MiB"
