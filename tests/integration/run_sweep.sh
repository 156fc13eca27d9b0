#!/usr/bin/env bash
# Parameter sweeps (docs/manual/config.md#parameter-sweeps) on real processes: one [[cell]]
# with params = { users = [1, 4, 16] } runs as three cells, each with its
# value filled into argv and env (quoted in a shell command); report.md gets
# the sweep's table (as GitHub's parser reads it: one row per level and
# metric, the levels in order) and a Mermaid xychart per gated metric that
# Mermaid's own parser accepts; results.json and the journal carry each
# cell's sweep and params; a name without the parameter is exit 2.
source "$(dirname "$0")/lib.sh"
repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/work.sh" <<'SH'
#!/bin/sh
# Spins for $1 × (1 ms, or 1.3 ms in the new version); reports it as "served".
version=$(cat "$(dirname "$0")/VERSION")
[ "$MODE" = "env-$1" ] || { echo "MODE is '$MODE', not env-$1" >&2; exit 3; }
per=1000
[ "$version" = new ] && per=1300
end=$(( $1 * per ))
i=0
while [ "$i" -lt "$end" ]; do i=$((i + 1)); done
echo "{\"served\": $1, \"errors\": 0}"
SH
chmod +x "$repo/work.sh"
cat >"$repo/refbench.toml" <<'TOML'
[build]
command = "true"

[run]
budget = "2m"
min_rounds = 10
max_rounds = 10

[[cell]]
name = "spin-{users}u"
command = ["{arm}/work.sh", "{users}"]
env = { MODE = "env-{users}" }
params = { users = [1, 4, 16] }
metrics = ["wall", "cpu", "errors"]
gate = ["wall", "errors"]
[[cell.metric]]
name = "errors"
kind = "count"

[[cell]]
name = "shell-{users}"
command = "test {users} = 'it'\"'\"'s' && echo '{\"errors\": 0}'"
env = { MODE = "x" }
params = { users = ["it's"] }
metrics = ["wall", "errors"]
gate = ["errors"]
[[cell.metric]]
name = "errors"
kind = "count"
TOML
commit_old_new "$repo"

run_refbench run -q --repo "$repo" --baseline v1 --candidate main --seed 9 --out "$WORK/o"
[ "$RC" -le 1 ] || fail "run exited $RC: $(cat "$WORK/err")"
R="$WORK/o/results.json"
expect_json "$R" "[c['name'] for c in r['cells'] if not c['control']] == ['spin-1u', 'spin-4u', 'spin-16u', 'shell-it\\'s']"
expect_json "$R" "[c['meta']['params'] for c in r['cells'] if c['name'].startswith('spin-')] == [[['users', '1']], [['users', '4']], [['users', '16']]]"
expect_json "$R" "all(c['meta'].get('sweep') == 'spin-{users}u' for c in r['cells'] if c['name'].startswith('spin-'))"
expect_json "$R" "all(not c['meta'].get('sweep') for c in r['cells'] if c['control'])"
# the shell command got the quoted value: its cell passed rather than failing `test`
expect_json "$R" "next(a['verdict'] for a in r['analysis'] if a['cell'] == 'shell-it\\'s' and a['metric'] == 'errors') == 'PASS'"
M="$WORK/o/report.md"
expect_in "$M" "**Sweep \`spin-{users}u\`** (3 levels)"
expect_in "$M" '| users | metric | baseline | candidate | ratio (95% CI) | verdict |'
# a one-level "sweep" gets no table
if grep -qF 'Sweep `shell-{users}`' "$M"; then fail "a sweep of one level got a table"; fi

# GitHub's parser: the sweep table has one row per level and metric, levels in order
cmark-gfm -e table "$M" >"$WORK/report.html"
"$PY" - "$WORK/report.html" <<'PY' || fail "the sweep table does not read back"
import html.parser, sys
class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.cell = [], None
    def handle_starttag(self, tag, attrs):
        if tag == "table": self.tables.append([])
        elif tag == "tr": self.tables[-1].append([])
        elif tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th"): self.tables[-1][-1].append(self.cell.strip()); self.cell = None
    def handle_data(self, data):
        if self.cell is not None: self.cell += data
t = Tables(); t.feed(open(sys.argv[1]).read())
sweep = next(rows for rows in t.tables if rows[0][:2] == ["users", "metric"])
body = sweep[1:]
assert [(r[0], r[1]) for r in body] == [(u, m) for u in ("1", "4", "16") for m in ("wall", "cpu", "errors")], body
assert all(len(r) == 6 for r in body), body
assert all(r[5].split(" ")[0] in ("PASS", "REGRESSION", "IMPROVED", "INCONCLUSIVE") for r in body), body
PY

# the charts: one per gated metric (wall, errors), each valid Mermaid
[ "$(grep -c '^```mermaid$' "$M")" -eq 2 ] || fail "expected 2 mermaid blocks: $(grep -c '^```mermaid$' "$M")"
expect_in "$M" 'x-axis "users" ["1", "4", "16"]'
expect_mermaid "$M" 2

# the journal carries the sweep: a replay renders the same sweep table
run_refbench report "$WORK/o/journal.jsonl"
expect_in "$WORK/out" "**Sweep \`spin-{users}u\`** (3 levels)"

# a name without the parameter: exit 2 naming file:line:column, nothing built
sed 's/^name = "spin-{users}u"$/name = "spin"/' "$repo/refbench.toml" >"$WORK/bad.toml"
run_refbench run --repo "$repo" -c "$WORK/bad.toml" --baseline v1 --candidate main --out "$WORK/bad"
expect_rc 2
expect_in "$WORK/err" "bad.toml:13:10: cell 'spin' has the parameter 'users', so its name must contain {users}"
[ ! -e "$WORK/bad/logs" ] || fail "built despite a bad sweep"
echo "ok: a sweep of 3 levels × 2 arms renders its table and charts; GitHub's and Mermaid's parsers accept them"
