#!/usr/bin/python3
"""Checks two structural rules of refbench's code, printing one line per
violation as `path:line: problem`; exits 1 when there is any.

1. Dependencies: a folder under src/ or include/refbench/ includes
   (`#include <refbench/X/...>`) only what the "may include" column of the
   folder table in ARCHITECTURE.md allows it: a whole folder (`util`) or one
   header of it (`process/executor.hpp`). That table is the one statement of
   the rules: this script reads it and holds no list of its own.
2. Function length: no function body in src/**/*.cpp spans more than
   MAX_BODY_LINES lines, counted from the line of its opening brace to the
   line of its closing brace. Lambdas and blocks inside a body are part of
   it; member functions defined in a class body count on their own.

Usage: check-structure.py [ROOT]   (default: the repository holding this script)
"""

import pathlib
import re
import sys

MAX_BODY_LINES = 80
INCLUDE = re.compile(r"^\s*#\s*include\s*<refbench/((\w+)/[\w./]+)>")
BACKTICKED = re.compile(r"`(\w+(?:/[\w.]+)?)`")


def read_rules(architecture):
    """{folder: (what it may include, the line of its row)} from the Markdown
    table whose header has a "may include" column. A row's folder is the first
    backticked name of its first cell; what it may include is every
    backticked folder or folder/header.hpp of its "may include" cell
    (nothing: "—")."""
    rules = {}
    column = None
    for number, line in enumerate(architecture.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            column = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if column is None:
            lowered = [cell.lower() for cell in cells]
            column = lowered.index("may include") if "may include" in lowered else None
            continue
        if set(line) <= set("|-: "):
            continue  # the delimiter row under the header
        folder = BACKTICKED.search(cells[0])
        if folder is None or column >= len(cells):
            raise SystemExit(f"{architecture.name}:{number}: a row of the folder table without a folder "
                             "or a \"may include\" cell")
        rules[folder.group(1)] = (set(BACKTICKED.findall(cells[column])), number)
    return rules


def folders(root):
    """{folder: its directories} under src/ and include/refbench/."""
    found = {}
    for base in (root / "src", root / "include" / "refbench"):
        for directory in sorted(path for path in base.iterdir() if path.is_dir()):
            found.setdefault(directory.name, []).append(directory)
    return found


def check_includes(root, rules):
    problems = []
    existing = folders(root)
    for folder, (allowed, row) in sorted(rules.items()):
        for name in sorted(allowed):
            target = root / "include" / "refbench" / name if "/" in name else None
            if name.split("/")[0] not in existing or (target is not None and not target.is_file()):
                problems.append(f"ARCHITECTURE.md:{row}: `{folder}` may include `{name}`, which does not exist")
    for folder, directories in sorted(existing.items()):
        if folder not in rules:
            problems.append(f"{directories[0].relative_to(root)}:1: folder `{folder}` has no row in "
                            "ARCHITECTURE.md's folder table")
            continue
        allowed = rules[folder][0]
        listed = ", ".join(f"`{name}`" for name in sorted(allowed)) or "nothing from the project"
        for directory in directories:
            for path in sorted(p for p in directory.rglob("*") if p.is_file()):
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    match = INCLUDE.match(line)
                    if match and match.group(2) != folder and not {match.group(1), match.group(2)} & allowed:
                        problems.append(f"{path.relative_to(root)}:{number}: `{folder}` includes "
                                        f"<refbench/{match.group(1)}>, but ARCHITECTURE.md lets it include "
                                        f"{listed}")
    return problems


RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^ ()\\\t\n]{0,16})\(')


def blank_out(text):
    """`text` with comments, string and character literals and preprocessor
    directives turned into spaces (newlines kept), so that its braces can be
    counted and its lines still numbered."""
    out = list(text)
    n = len(text)

    def blank(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    i = 0
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            end = i
            while True:  # the directive and its continuation lines
                newline = text.find("\n", end)
                if newline == -1:
                    end = n
                    break
                if not text[end:newline].rstrip().endswith("\\"):
                    end = newline
                    break
                end = newline + 1
            blank(i, end)
            i = end
            continue
        if c == "\n":
            at_line_start = True
        elif c not in " \t":
            at_line_start = False
        identifier_before = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        raw = None if identifier_before else RAW_STRING.match(text, i)
        if raw:
            closing = ")" + raw.group(1) + '"'
            end = text.find(closing, raw.end())
            end = n if end == -1 else end + len(closing)
            blank(i, end)
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            blank(i, end)
            i = end
        elif c == "'" and identifier_before and re.search(r"(?<![\w'])\d[\w']*$", text[max(0, i - 64) : i]):
            i += 1  # a digit separator, as in 1'000'000
        elif c in "\"'":
            end = i + 1
            while end < n and text[end] not in (c, "\n"):
                end += 2 if text[end] == "\\" else 1
            blank(i, end + 1)
            i = end + 1
        else:
            i += 1
    return "".join(out)


def closing_brace(code, at):
    """The index of the brace that closes the one at `at`."""
    depth = 0
    for k in range(at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def flattened(header):
    """`header` with the inside of every (…) and […] left out: "()" stays."""
    out = []
    depth = 0
    for c in header:
        if c in "([":
            depth += 1
            if depth == 1:
                out.append("(")
        elif c in ")]":
            depth -= 1
            if depth == 0:
                out.append(")")
        elif depth == 0:
            out.append(c)
    return "".join(out)


def without_template_heads(header):
    """`header` without leading `template <…>` clauses."""
    while (match := re.match(r"\s*template\s*<", header)) is not None:
        depth = 0
        for k in range(match.end() - 1, len(header)):
            depth += {"<": 1, ">": -1}.get(header[k], 0)
            if depth == 0:
                header = header[k + 1 :]
                break
        else:
            return header
    return header


ACCESS = re.compile(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+")
NAMESPACE = re.compile(r"\s*(?:inline\s+)?namespace\b|\s*extern\s*$")  # extern "C": its literal is blanked
TYPE = re.compile(r"\s*(?:typedef\s+)?(class|struct|union|enum)\b")
QUALIFIERS = r"(?:\s*(?:const|volatile|noexcept(?:\s*\(\))?|override|final|mutable|&&|&|->[^;{}]*|requires[^;{}]*))*"
SIGNATURE_END = re.compile(r"\)" + QUALIFIERS + r"\s*$")
INITIALISER_LIST = re.compile(r"\)" + QUALIFIERS + r"\s*:(?!:)")
ASSIGNMENT = re.compile(r"(?<![=!<>])=(?!=)")
OPERATOR = re.compile(r"\boperator\s*(?:\(\)|[^\w\s(]+)")


def long_functions(text):
    """(line, lines) of every function definition in `text` whose body
    spans more than MAX_BODY_LINES lines; `line` is where its signature starts."""
    code = blank_out(text)
    line_at = []
    line = 1
    for c in code:
        line_at.append(line)
        line += c == "\n"
    line_at.append(line)

    found = []
    header_start = 0
    i = 0
    while i < len(code):
        c = code[i]
        if c in ";}":
            header_start = i + 1
        elif c == "{":
            raw = code[header_start:i]
            header = without_template_heads(ACCESS.sub("", raw))
            flat = OPERATOR.sub("operator", flattened(header))
            if raw.count("(") + raw.count("[") > raw.count(")") + raw.count("]"):
                i = closing_brace(code, i)  # braces inside an open (…), as in m_x(n, {0, 0})
            elif NAMESPACE.match(header):
                header_start = i + 1  # its contents are read like the file's
            elif (kind := TYPE.match(header)) and "(" not in flat.split(":")[0]:
                if kind.group(1) == "enum":
                    i = closing_brace(code, i)
                header_start = i + 1  # a class body's member functions are read like the file's
            elif ASSIGNMENT.search(flat):
                i = closing_brace(code, i)  # an initialiser, lambdas at namespace scope included
            elif INITIALISER_LIST.search(flat) and re.search(r"[\w>]\s*$", code[header_start:i]):
                i = closing_brace(code, i)  # a member initialiser's braces, still before the body
            elif SIGNATURE_END.search(flat) or INITIALISER_LIST.search(flat):
                end = closing_brace(code, i)
                lines = line_at[end] - line_at[i] + 1
                if lines > MAX_BODY_LINES:
                    access = ACCESS.match(raw)
                    signature_text = raw[access.end() if access else 0 :]
                    signature = i - len(without_template_heads(signature_text).lstrip())
                    found.append((line_at[signature], lines))
                i = end
                header_start = i + 1
            else:
                i = closing_brace(code, i)  # braces that are no function body (an aggregate's)
        i += 1
    return found


def check_lengths(root):
    problems = []
    for path in sorted((root / "src").rglob("*.cpp")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for line, length in long_functions(text):
            signature = " ".join(lines[line - 1].split())
            problems.append(f"{path.relative_to(root)}:{line}: a function body of {length} lines (at most "
                            f"{MAX_BODY_LINES}; split it into named steps): {signature}")
    return problems


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    rules = read_rules(root / "ARCHITECTURE.md")
    problems = check_includes(root, rules) if rules else ["ARCHITECTURE.md:1: no table with a \"may include\" column"]
    problems += check_lengths(root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
