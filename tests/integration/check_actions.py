"""Static checks of refbench's GitHub Actions files.

Usage: check_actions.py ROOT

Reads ROOT/action.yml, ROOT/comment/action.yml, ROOT/history/action.yml,
ROOT/.github/workflows/*.yml
and ROOT/examples/workflows/*.yml, prints one line per violation as
`FILE:LINE: message` and exits 1 if there is any (0 if none, 2 on bad usage).

Actions: valid YAML; composite; `${{ inputs.X }}` names a declared input and
every declared input is used; `steps.ID.…` names an earlier step (any step
for `outputs:`), and `steps.ID.outputs.Y` an output that step writes; no
`${{ }}` inside `run:` text (inputs reach the shell through `env:`); every
`run:` step has `shell:`; scripts called through $GITHUB_ACTION_PATH exist;
action.yml's outputs are exactly verdict, regressions, report, results.

Workflows: valid YAML with triggers (PyYAML reads the key `on` as True);
top-level `permissions:`; `timeout-minutes` on every job with steps; no
`${{ }}` inside `run:`; `with:` of this repository's actions
(refbench/refbench@…, refbench/refbench/comment@…, ./, ./comment) uses
declared inputs only and gives every required one; `steps.ID.outputs.Y`
names an earlier step of the job and, for this repository's actions, a
declared output; `inputs.X` / `github.event.inputs.X` name declared
workflow_dispatch / workflow_call inputs; workflow_run and
pull_request_target workflows check out no code; pull_request workflows ask
for no write permission; workflow_run names a workflow of the same folder.

Trust boundaries. A job that runs code of a checkout (it uses this
repository's action, or checks out and then has a run: step) has no write
permission (its own permissions:, else the workflow's), checks out with
`persist-credentials: false`, and no step of it gets a token (GITHUB_TOKEN or
GH_TOKEN in env:, `github.token` or `secrets.` in env: or with:, a
github-token given to this repository's action). In an issue_comment
workflow (`/refbench`) such a job checks out the commit an accepting job
pinned (`ref: ${{ needs.JOB.outputs.X }}`), hands the action those pinned
refs, and fetches no refs/pull/ branch. In action.yml, the step that runs
`refbench run` gets no token either.
"""

import re
import sys
from pathlib import Path

import yaml

# What `refbench run --github` writes to $GITHUB_OUTPUT (docs/manual/github-actions.md).
RUN_GITHUB_OUTPUTS = {"verdict", "regressions", "report", "results", "baseline-sha", "candidate-sha", "culprit", "bisect"}
ACTION_OUTPUTS = {"verdict", "regressions", "report", "results", "culprit"}

EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")
NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
INPUT_REF = re.compile(r"(?<![\w.-])inputs\.(" + NAME + ")")
EVENT_INPUT_REF = re.compile(r"(?<![\w.-])github\.event\.inputs\.(" + NAME + ")")
STEP_REF = re.compile(r"(?<![\w.-])steps\.(" + NAME + r")(?:\.(\w+)(?:\.(" + NAME + "))?)?")
OUTPUT_WRITE = re.compile(
    r"(?:echo|printf)\s+(?:-\w+\s+)*(?:'[^']*%s[^']*'\s+)?[\"']?(" + NAME + r")(?:=|<<)"
)
ACTION_SCRIPT = re.compile(r"\$\{?GITHUB_ACTION_PATH\}?/([\w./-]+)")
LOCAL_ACTIONS = {
    "refbench/refbench": "action.yml",
    "refbench/refbench/comment": "comment/action.yml",
    "refbench/refbench/history": "history/action.yml",
    ".": "action.yml",
    "./comment": "comment/action.yml",
    "./history": "history/action.yml",
}

violations = []


def report(file, line, message):
    violations.append(f"{file}:{line}: {message}")


# ---------------------------------------------------------------------------
# YAML with line numbers: mappings remember the line of each key's value,
# sequences the line of each item; duplicate keys are violations.


class LineMap(dict):
    line = 0
    value_lines = {}
    block = {}


class LineList(list):
    line = 0
    item_lines = []


class Loader(yaml.SafeLoader):
    current_file = ""


def _construct_map(loader, node):
    data = LineMap()
    data.line = node.start_mark.line + 1
    yield data
    loader.flatten_mapping(node)
    data.value_lines, data.block = {}, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in data:
            report(loader.current_file, key_node.start_mark.line + 1, f"duplicate key '{key}'")
        data[key] = loader.construct_object(value_node, deep=True)
        data.value_lines[key] = value_node.start_mark.line + 1
        data.block[key] = getattr(value_node, "style", None) in ("|", ">")


def _construct_seq(loader, node):
    data = LineList()
    data.line = node.start_mark.line + 1
    yield data
    data.item_lines = []
    for item in node.value:
        data.append(loader.construct_object(item, deep=True))
        data.item_lines.append(item.start_mark.line + 1)


Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def load(path, label):
    Loader.current_file = label
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.load(f, Loader=Loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        problem = getattr(e, "problem", None) or str(e)
        report(label, line, f"YAML error: {problem}")
        return None
    except (OSError, UnicodeDecodeError) as e:
        report(label, 0, f"cannot read: {e}")
        return None
    if not isinstance(doc, dict):
        report(label, 1, "YAML error: the document is not a mapping")
        return None
    return doc


def line_of(mapping, key):
    """Line of `mapping[key]`'s value (first content line for a block scalar)."""
    if isinstance(mapping, LineMap) and key in mapping.value_lines:
        return mapping.value_lines[key] + (1 if mapping.block.get(key) else 0)
    return getattr(mapping, "line", 0)


def strings(node, line, path):
    """Yields (text, line, path, parent, key) for every string under `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings_in(value, line_of(node, key), f"{path}.{key}" if path else str(key), node, key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            item_line = node.item_lines[i] if isinstance(node, LineList) else line
            yield from _strings_in(value, item_line, f"{path}[{i}]", node, i)


def _strings_in(value, line, path, parent, key):
    if isinstance(value, str):
        yield value, line, path, parent, key
    elif isinstance(value, (dict, list)):
        yield from strings(value, line, path)


def expressions(text, key):
    """Yields (expression, offset) of the `${{ }}` expressions in `text`; an
    `if:` without `${{ }}` is one expression as a whole."""
    found = False
    for m in EXPRESSION.finditer(text):
        found = True
        yield m.group(1), m.start()
    if not found and key == "if":
        yield text, 0


def strip_literals(expression):
    return STRING_LITERAL.sub("''", expression)


def check_no_expression_in_run(file, step, where):
    run = step.get("run")
    if not isinstance(run, str):
        return
    for m in EXPRESSION.finditer(run):
        line = line_of(step, "run") + run[: m.start()].count("\n")
        report(file, line, f"{where}: run: contains the expression '{m.group(0).strip()}'; "
               "pass it to the shell through env: instead")


def step_name(step, index):
    if isinstance(step, dict) and step.get("id"):
        return f"step '{step['id']}'"
    if isinstance(step, dict) and step.get("name"):
        return f"step {index + 1} ('{step['name']}')"
    return f"step {index + 1}"


# ---------------------------------------------------------------------------
# What a step provides as outputs.


def run_step_outputs(step, action_dir):
    """Outputs a run: step writes: `NAME=` echoed into $GITHUB_OUTPUT in its
    text or in a script it calls through $GITHUB_ACTION_PATH, plus the keys of
    `refbench run --github`. Returns (outputs, missing scripts)."""
    text = step.get("run", "")
    texts = [text]
    missing = []
    if action_dir is not None:
        for rel in ACTION_SCRIPT.findall(text):
            script = (action_dir / rel).resolve()
            if script.is_file():
                texts.append(script.read_text(encoding="utf-8", errors="replace"))
            else:
                missing.append(rel)
    outputs = set()
    for t in texts:
        for line in t.splitlines():
            if "GITHUB_OUTPUT" in line:
                outputs.update(OUTPUT_WRITE.findall(line))
    if "--github" in text:
        outputs |= RUN_GITHUB_OUTPUTS
    return outputs, missing


def local_action(uses):
    """The file of this repository's action that `uses` names, '' for another
    action of this repository that does not exist, None for a foreign one."""
    if uses in (".", "./", "./action.yml"):
        return "action.yml"
    if uses.startswith("./"):
        name = uses.rstrip("/")
        return LOCAL_ACTIONS.get(name, "")
    target = uses.split("@", 1)[0]
    if target in LOCAL_ACTIONS:
        return LOCAL_ACTIONS[target]
    if target.lower().startswith("refbench/refbench/"):
        return ""
    return None


class Action:
    def __init__(self, doc):
        inputs = doc.get("inputs") or {}
        outputs = doc.get("outputs") or {}
        self.inputs = set(inputs) if isinstance(inputs, dict) else set()
        self.required = {
            name for name, spec in (inputs.items() if isinstance(inputs, dict) else [])
            if isinstance(spec, dict) and spec.get("required") is True and "default" not in spec
        }
        self.outputs = set(outputs) if isinstance(outputs, dict) else set()


def step_outputs(step, action_dir, actions):
    """Known outputs of `step`, or None when they cannot be known (a foreign action)."""
    if "run" in step:
        return run_step_outputs(step, action_dir)[0]
    uses = step.get("uses")
    if isinstance(uses, str):
        target = local_action(uses)
        if target and target in actions:
            return actions[target].outputs
    return None


def check_step_refs(file, text, line, where, steps, before, action_dir, actions):
    """Checks the `steps.ID[.outputs.Y]` references of expression `text`;
    `before` is how many steps precede the referring one (None: all)."""
    ids = {s.get("id"): i for i, s in enumerate(steps) if isinstance(s, dict) and s.get("id")}
    for step_id, kind, name in STEP_REF.findall(strip_literals(text)):
        if step_id not in ids:
            report(file, line, f"{where}: 'steps.{step_id}' names no step (no step has id '{step_id}')")
            continue
        index = ids[step_id]
        if before is not None and index >= before:
            report(file, line, f"{where}: 'steps.{step_id}' is not an earlier step")
            continue
        if kind == "outputs" and name:
            known = step_outputs(steps[index], action_dir, actions)
            if known is not None and name not in known:
                listed = ", ".join(sorted(known)) or "none"
                report(file, line, f"{where}: step '{step_id}' has no output '{name}' (it has: {listed})")


def check_uses(file, step, where, actions):
    uses = step.get("uses")
    if not isinstance(uses, str):
        return
    line = line_of(step, "uses")
    if not uses.startswith(("./", "docker://")) and uses != "." and "@" not in uses:
        report(file, line, f"{where}: uses: '{uses}' has no @ref")
    target = local_action(uses)
    if target is None:
        return
    if target == "" or target not in actions:
        report(file, line, f"{where}: uses: '{uses}' names no action of this repository")
        return
    action = actions[target]
    given = step.get("with") or {}
    if not isinstance(given, dict):
        report(file, line, f"{where}: with: is not a mapping")
        return
    for key in given:
        if key not in action.inputs:
            report(file, line_of(given, key),
                   f"{where}: with: '{key}' is not an input of {target} (inputs: {', '.join(sorted(action.inputs))})")
    for key in sorted(action.required - set(given)):
        report(file, line, f"{where}: with: lacks '{key}', a required input of {target}")


# ---------------------------------------------------------------------------
# Actions


def check_action(root, rel, actions):
    doc = load(root / rel, rel)
    if doc is None:
        return
    action_dir = (root / rel).parent
    action = Action(doc)
    actions[rel] = action
    for key in ("name", "description", "runs"):
        if key not in doc:
            report(rel, 1, f"missing top-level '{key}'")
    runs = doc.get("runs") or {}
    if not isinstance(runs, dict) or runs.get("using") != "composite":
        report(rel, line_of(doc, "runs"), "runs.using must be 'composite'")
        return
    steps = runs.get("steps")
    if not isinstance(steps, list) or not steps:
        report(rel, line_of(runs, "steps"), "runs.steps must be a non-empty list")
        return
    for name, spec in (doc.get("inputs") or {}).items():
        if not isinstance(spec, dict) or not spec.get("description"):
            report(rel, line_of(doc["inputs"], name), f"input '{name}' has no description")
    for name, spec in (doc.get("outputs") or {}).items():
        if not isinstance(spec, dict) or "value" not in spec:
            report(rel, line_of(doc["outputs"], name), f"output '{name}' has no value (a composite action needs one)")
    if rel == "action.yml" and action.outputs != ACTION_OUTPUTS:
        report(rel, line_of(doc, "outputs"),
               f"outputs are {sorted(action.outputs)}, expected exactly {sorted(ACTION_OUTPUTS)}")

    used_inputs = set()
    for text, line, path, parent, key in strings(doc, 1, ""):
        for expr, offset in expressions(text, key):
            expr_line = line + text[:offset].count("\n")
            plain = strip_literals(expr)
            for name in INPUT_REF.findall(plain):
                used_inputs.add(name)
                if name not in action.inputs:
                    report(rel, expr_line, f"{path}: 'inputs.{name}' is not a declared input")
            if path.startswith("outputs."):
                check_step_refs(rel, expr, expr_line, path, steps, None, action_dir, actions)
    for name in sorted(action.inputs - used_inputs):
        report(rel, line_of(doc.get("inputs"), name), f"input '{name}' is declared but never used")

    seen_ids = set()
    for i, step in enumerate(steps):
        where = step_name(step, i)
        if not isinstance(step, dict):
            report(rel, steps.item_lines[i], f"{where} is not a mapping")
            continue
        if step.get("id") is not None and step["id"] in seen_ids:
            report(rel, line_of(step, "id"), f"{where}: id is used twice")
        seen_ids.add(step.get("id"))
        if ("run" in step) == ("uses" in step):
            report(rel, step.line, f"{where}: needs exactly one of run: and uses:")
        if "run" in step and "shell" not in step:
            report(rel, line_of(step, "run"), f"{where}: run: without shell: (composite steps need one)")
        check_no_expression_in_run(rel, step, where)
        if "run" in step:
            for script in run_step_outputs(step, action_dir)[1]:
                report(rel, line_of(step, "run"), f"{where}: calls $GITHUB_ACTION_PATH/{script}, which does not exist")
        check_uses(rel, step, where, actions)
        check_run_step_of_action(rel, step, where)
        for text, line, path, parent, key in strings(step, step.line, ""):
            for expr, offset in expressions(text, key):
                check_step_refs(rel, expr, line + text[:offset].count("\n"), f"{where}: {path}",
                                steps, i, action_dir, actions)


# ---------------------------------------------------------------------------
# Trust boundaries: where the token may be


TOKEN_VARIABLES = {"GITHUB_TOKEN", "GH_TOKEN"}
TOKEN_EXPRESSION = re.compile(r"\$\{\{[^}]*\b(github\.token|secrets\.\w+)", re.S)
PINNED = re.compile(r"^\$\{\{\s*needs\.(" + NAME + r")\.outputs\.(" + NAME + r")\s*\}\}$")


def token_in(mapping, where):
    """(line, message) for each token a step's env: or with: mapping hands over."""
    found = []
    if not isinstance(mapping, dict):
        return found
    for key, value in mapping.items():
        if str(key).upper() in TOKEN_VARIABLES:
            found.append((line_of(mapping, key), f"{where} '{key}' hands the token to it"))
        elif isinstance(value, str) and TOKEN_EXPRESSION.search(value):
            found.append((line_of(mapping, key), f"{where} '{key}' hands it '{TOKEN_EXPRESSION.search(value).group(1)}'"))
        elif isinstance(value, str) and "inputs.github-token" in value:
            found.append((line_of(mapping, key), f"{where} '{key}' hands it the github-token input"))
    return found


def is_checkout(step):
    uses = step.get("uses") if isinstance(step, dict) else None
    return isinstance(uses, str) and uses.split("@", 1)[0].lower() == "actions/checkout"


def is_run_action(step):
    uses = step.get("uses") if isinstance(step, dict) else None
    return isinstance(uses, str) and local_action(uses) == "action.yml"


def runs_checked_out_code(steps):
    """True when the job uses this repository's action, or checks out and then runs something."""
    checked_out = False
    for step in steps:
        if not isinstance(step, dict):
            continue
        if is_run_action(step):
            return True
        if is_checkout(step):
            checked_out = True
        elif checked_out and "run" in step:
            return True
    return False


def check_code_job(file, doc, job_id, job, steps, on):
    """The rules for a job that builds or runs the checked-out code."""
    permissions = job["permissions"] if "permissions" in job else doc.get("permissions")
    where = f"job '{job_id}' builds or runs the checked-out code"
    if permissions is None:
        report(file, job.line, f"{where} but sets no permissions: (the token gets the repository's defaults)")
    for scope in writes(permissions):
        line = line_of(job, "permissions") if "permissions" in job else line_of(doc, "permissions")
        report(file, line, f"{where} with '{scope}: write'; give it read-only permissions and post from another job")
    for name, env in (("workflow env:", doc.get("env")), ("job env:", job.get("env"))):
        for line, message in token_in(env, f"{where}: its {name}"):
            report(file, line, message)
    comment = "issue_comment" in on
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        step_where = f"job '{job_id}' {step_name(step, i)}"
        for line, message in token_in(step.get("env"), f"{step_where}: env:") + token_in(step.get("with"), f"{step_where}: with:"):
            report(file, line, message + " in a job that runs the checked-out code")
        given = step.get("with") if isinstance(step.get("with"), dict) else {}
        if is_run_action(step) and "github-token" in given:
            report(file, line_of(given, "github-token"),
                   f"{step_where}: with: 'github-token' hands the token to the step that builds and runs the code")
        if is_checkout(step):
            if given.get("persist-credentials") is not False:
                report(file, line_of(step, "uses"),
                       f"{step_where}: checks out without 'persist-credentials: false' (the token stays in .git/config)")
            if comment and not (isinstance(given.get("ref"), str) and PINNED.match(given["ref"].strip())):
                report(file, line_of(step, "uses"),
                       f"{step_where}: a /refbench job must check out the commit the accepting job pinned "
                       "(ref: ${{ needs.JOB.outputs.X }}), not a moving ref")
        if comment and is_run_action(step):
            for key in ("baseline-ref", "candidate-ref"):
                value = given.get(key)
                if not (isinstance(value, str) and PINNED.match(value.strip())):
                    report(file, line_of(step, "uses"),
                           f"{step_where}: a /refbench job must pass '{key}' pinned by the accepting job "
                           "(${{ needs.JOB.outputs.X }})")
        if comment and isinstance(step.get("run"), str) and "refs/pull/" in step["run"]:
            report(file, line_of(step, "run"),
                   f"{step_where}: fetches a refs/pull/ branch, which moves; measure the commit the accepting job pinned")


def check_run_step_of_action(rel, step, where):
    """The action's steps that run `refbench run` or `refbench bisect` (both
    build and run the code) get no token."""
    text = step.get("run")
    if not isinstance(text, str) or not re.search(r"\((run|bisect)\b|\b(run|bisect) --github\b", text):
        return
    for line, message in token_in(step.get("env"), f"{where}: env:"):
        report(rel, line, message + " (the step that builds and runs the code)")


# ---------------------------------------------------------------------------
# Workflows


def triggers(doc):
    on = doc.get("on", doc.get(True))
    if isinstance(on, str):
        return {on: {}}
    if isinstance(on, list):
        return {event: {} for event in on}
    if isinstance(on, dict):
        return {event: (spec or {}) for event, spec in on.items()}
    return None


def writes(permissions):
    if permissions == "write-all":
        return ["write-all"]
    if isinstance(permissions, dict):
        return [scope for scope, level in permissions.items() if level == "write"]
    return []


def check_workflow(root, rel, actions, names):
    doc = load(root / rel, rel)
    if doc is None:
        return
    on = triggers(doc)
    if not on:
        report(rel, 1, "no triggers (top-level 'on:')")
        on = {}
    if "permissions" not in doc:
        report(rel, 1, "no top-level permissions: (the token would get the repository's defaults)")
    declared_inputs = set()
    for event in ("workflow_dispatch", "workflow_call"):
        spec = on.get(event) or {}
        if isinstance(spec, dict) and isinstance(spec.get("inputs"), dict):
            declared_inputs |= set(spec["inputs"])
    untrusted = {"workflow_run", "pull_request_target"} & set(on)
    if "workflow_run" in on:
        for name in (on["workflow_run"] or {}).get("workflows") or []:
            known = names.get(Path(rel).parent, set())
            if known is not None and name not in known:
                report(rel, line_of(doc, "on" if "on" in doc else True),
                       f"workflow_run names '{name}', which is no workflow's name in {Path(rel).parent}/")
    if "pull_request" in on:
        for scope in writes(doc.get("permissions")):
            report(rel, line_of(doc, "permissions"), f"a pull_request workflow asks for '{scope}: write'")

    for text, line, path, parent, key in strings(doc, 1, ""):
        for expr, offset in expressions(text, key):
            expr_line = line + text[:offset].count("\n")
            plain = strip_literals(expr)
            for name in INPUT_REF.findall(plain) + EVENT_INPUT_REF.findall(plain):
                if name not in declared_inputs:
                    report(rel, expr_line, f"{path}: 'inputs.{name}' is not a declared workflow_dispatch/workflow_call input")

    jobs = doc.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        report(rel, line_of(doc, "jobs"), "no jobs")
        return
    for job_id, job in jobs.items():
        if not isinstance(job, dict):
            report(rel, line_of(jobs, job_id), f"job '{job_id}' is not a mapping")
            continue
        if "uses" in job:  # a reusable workflow: its own file sets the limits
            continue
        if "timeout-minutes" not in job:
            report(rel, job.line, f"job '{job_id}' has no timeout-minutes")
        if "pull_request" in on:
            for scope in writes(job.get("permissions")):
                report(rel, line_of(job, "permissions"), f"job '{job_id}' of a pull_request workflow asks for '{scope}: write'")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps:
            report(rel, line_of(job, "steps") if "steps" in job else job.line, f"job '{job_id}' has no steps")
            continue
        if runs_checked_out_code(steps):
            check_code_job(rel, doc, job_id, job, steps, on)
        seen_ids = set()
        for i, step in enumerate(steps):
            where = f"job '{job_id}' {step_name(step, i)}"
            if not isinstance(step, dict):
                report(rel, steps.item_lines[i], f"{where} is not a mapping")
                continue
            if step.get("id") is not None and step["id"] in seen_ids:
                report(rel, line_of(step, "id"), f"{where}: id is used twice")
            seen_ids.add(step.get("id"))
            if ("run" in step) == ("uses" in step):
                report(rel, step.line, f"{where}: needs exactly one of run: and uses:")
            check_no_expression_in_run(rel, step, where)
            check_uses(rel, step, where, actions)
            uses = step.get("uses")
            if untrusted and isinstance(uses, str) and uses.split("@", 1)[0].lower() == "actions/checkout":
                report(rel, line_of(step, "uses"),
                       f"{where}: a {'/'.join(sorted(untrusted))} workflow must not check out code")
            for text, line, path, parent, key in strings(step, step.line, ""):
                for expr, offset in expressions(text, key):
                    check_step_refs(rel, expr, line + text[:offset].count("\n"), f"{where}: {path}",
                                    steps, i, None, actions)


def workflow_names(root, workflows):
    """The `name:` of each workflow, per folder; None for a folder holding a
    file that does not parse (its names are unknown)."""
    names = {}
    for rel in workflows:
        folder = Path(rel).parent
        try:
            doc = yaml.safe_load((root / rel).read_text(encoding="utf-8"))
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            names[folder] = None  # check_workflow reports it
            continue
        known = names.setdefault(folder, set())
        if known is not None and isinstance(doc, dict) and isinstance(doc.get("name"), str):
            known.add(doc["name"])
    return names


def main(argv):
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: check_actions.py ROOT", file=sys.stderr)
        return 2
    root = Path(argv[1])
    actions = {}
    for rel in ("action.yml", "comment/action.yml", "history/action.yml"):
        if (root / rel).is_file():
            check_action(root, rel, actions)
        else:
            report(rel, 0, "missing")
    workflows = sorted(
        p.relative_to(root).as_posix()
        for folder in (".github/workflows", "examples/workflows")
        for p in (root / folder).glob("*.y*ml")
    )
    if not workflows:
        report(".github/workflows", 0, "no workflow files found")
    names = workflow_names(root, workflows)
    for rel in workflows:
        check_workflow(root, rel, actions, names)
    for line in violations:
        print(line)
    if violations:
        print(f"check_actions: {len(violations)} violation(s)")
        return 1
    print(f"check_actions: {2 + len(workflows)} files ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
