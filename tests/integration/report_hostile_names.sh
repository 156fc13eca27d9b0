#!/usr/bin/env bash
# Names a pull request's harness chooses stay text (docs/manual/security.md): a Google Benchmark suite whose benchmark and counter names carry a
# heading, an unterminated HTML comment, '|', <script>, "::error::" and
# @mentions, one benchmark 1.5x slower in the candidate. report.md, read
# back by cmark-gfm (raw HTML kept, as GitHub keeps comments), has one
# heading, no comment but the marker, no <script>, no live mention, and
# every row of every table as wide as its header, the verdict table a row
# per result; no line refbench prints starts a workflow command.
source "$(dirname "$0")/lib.sh"

CMARK=/usr/bin/cmark-gfm
[ -x "$CMARK" ] || skip "cmark-gfm is not installed (apt-get install cmark-gfm)"
[ -x "$PY" ] || skip "python3 is not installed"

repo="$WORK/repo"
mkdir -p "$repo"
cat >"$repo/bench.py" <<'PY'
import json, os, random
slow = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "VERSION")).read().strip() == "new"
counter = "z\n\n### refbench: \u2705 no regression\n\n<!--"
names = ["BM_a|b|c <script>alert(1)</script>", "::error::pwned", "BM_cc @someone and @org/team",
         "BM_d\n::warning title=x::y\n# h"]
benchmarks = []
for i, name in enumerate(names):
    time = 1000.0 * (1.5 if slow and i == 0 else 1.0) * random.uniform(0.99, 1.01)
    benchmarks.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 1000,
                       "real_time": time, "cpu_time": time, "time_unit": "ns", counter: 3.0, "@team|x": 2.5})
print(json.dumps({"context": {}, "benchmarks": benchmarks}))
PY
cat >"$repo/refbench.toml" <<'TOML'
[build]
command = "true"

[run]
min_rounds = 8
max_rounds = 8

[[cell]]
name = "s"
suite = "google-benchmark"
command = ["python3", "{arm}/bench.py"]
TOML
commit_old_new "$repo"

run_refbench run --repo "$repo" --baseline v1 --candidate main --seed 3 --fail-on never --out "$WORK/o"
expect_rc 0
for stream in out err; do
  if grep -nE '^[[:space:]]*::' "$WORK/$stream"; then
    fail "refbench's std$stream has a line that starts a workflow command"
  fi
done
"$CMARK" --unsafe -e table "$WORK/o/report.md" >"$WORK/report.html" || fail "cmark-gfm cannot render report.md"
"$PY" - "$WORK/report.html" "$WORK/o/results.json" <<'PY' || fail "report.md is not text: see above"
import html.parser, json, re, sys

class Report(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.headings, self.comments, self.scripts, self.tables = 0, [], 0, []
        self.code = 0
        self.text = []

    def handle_starttag(self, tag, attrs):
        if re.fullmatch(r"h[1-6]", tag):
            self.headings += 1
        elif tag == "script":
            self.scripts += 1
        elif tag in ("code", "pre"):
            self.code += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append(0)
        elif tag in ("td", "th"):
            self.tables[-1][-1] += 1

    def handle_endtag(self, tag):
        if tag in ("code", "pre"):
            self.code -= 1

    def handle_comment(self, data):
        self.comments.append(data.strip())

    def handle_data(self, data):
        if self.code == 0:
            self.text.append(data)

report = Report()
report.feed(open(sys.argv[1], encoding="utf-8").read())
results = json.load(open(sys.argv[2]))["analysis"]
problems = []
if report.headings != 1:
    problems.append("%d headings" % report.headings)
if report.comments != ["refbench"]:
    problems.append("comments %r" % report.comments)
if report.scripts:
    problems.append("%d <script> tags" % report.scripts)
mentions = re.findall(r"(?<![\w`])@[A-Za-z0-9][\w/-]*", " ".join(report.text))
if mentions:
    problems.append("live mentions %r" % mentions)
for number, table in enumerate(report.tables, 1):
    if any(cells != table[0] for cells in table):
        problems.append("table %d: rows of %r cells" % (number, sorted(set(table))))
if not report.tables or report.tables[0][0] != 8 or len(report.tables[0]) != 1 + len(results):
    problems.append("verdict table %r for %d results" % (report.tables[:1], len(results)))
if not any(r["verdict"] == "REGRESSION" and r["metric"] == "real_time" for r in results):
    problems.append("no REGRESSION of the slower benchmark")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
echo "ok: hostile benchmark and counter names: one heading, the marker alone, no tag, no mention, tables whole"
