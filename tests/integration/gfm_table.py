#!/usr/bin/python3
"""Checks a report.md as GitHub's parser sees it.

Usage: gfm_table.py REPORT_HTML RESULTS_JSON

REPORT_HTML is report.md rendered by `cmark-gfm -e table`. The first table
(the verdict table) must have the 8 columns of the verdict table of docs/manual/output-files.md in every row and one
row per `analysis` entry of RESULTS_JSON, in order, whose cell, metric and
verdict read back exactly as plain text (any markup or omitted raw HTML in a
cell counts as a difference). The per-cell table of the details must name
the `cells` of RESULTS_JSON the same way. Standard library only.
"""
import html.parser
import json
import sys

HEADER = ["cell", "metric", "baseline", "candidate", "ratio (95% CI)", "p (BH)", "n", "verdict"]


class Tables(html.parser.HTMLParser):
    """Collects every table as rows of cell texts; markup inside a cell is kept as <tag>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = []
        self.cell = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif self.cell is not None:
            self.cell.append("<%s>" % tag)

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self.cell))
            self.cell = None
        elif self.cell is not None:
            self.cell.append("</%s>" % tag)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def handle_comment(self, data):
        if self.cell is not None:
            self.cell.append("<!--%s-->" % data)


def check_verdict_table(table, analysis):
    problems = []
    if not table or table[0] != HEADER:
        return ["header is %r, expected %r" % (table[0] if table else None, HEADER)]
    rows = table[1:]
    for number, row in enumerate(rows, 1):
        if len(row) != len(HEADER):
            problems.append("row %d has %d columns: %r" % (number, len(row), row))
    if len(rows) != len(analysis):
        problems.append("%d rows, expected %d (one per analysis entry)" % (len(rows), len(analysis)))
    for row, entry in zip(rows, analysis):
        if len(row) != len(HEADER):
            continue
        verdict = row[7].removesuffix(" (info)")
        expected = (entry["cell"], entry["metric"], entry["verdict"])
        if (row[0], row[1], verdict) != expected:
            problems.append("row reads back as %r, expected %r" % ((row[0], row[1], verdict), expected))
    return problems


def check_cells_table(tables, cells):
    table = next((t for t in tables[1:] if t and t[0] and t[0][0] == "cell" and len(t[0]) == 4), None)
    if table is None:
        return ["no per-cell table in the details"]
    names = [row[0] for row in table[1:]]
    expected = [cell["name"] for cell in cells]
    return [] if names == expected else ["per-cell table names %r, expected %r" % (names, expected)]


def main():
    parser = Tables()
    with open(sys.argv[1], encoding="utf-8") as page:
        parser.feed(page.read())
    with open(sys.argv[2], encoding="utf-8") as results_file:
        results = json.load(results_file)
    if not parser.tables:
        print("no table in %s" % sys.argv[1])
        return 1
    problems = check_verdict_table(parser.tables[0], results["analysis"])
    problems += check_cells_table(parser.tables, results.get("cells", []))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
