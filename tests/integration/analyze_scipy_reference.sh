#!/usr/bin/env bash
# analyze agrees with independent references (docs/manual/statistics.md): on seeded
# paired CSVs (exact and approximate paths, RSS-like ties, zero differences,
# differences equal to ln(T)) the ratio is exp(Hodges–Lehmann), the interval
# is the signed-rank order statistics of the Walsh averages (critical value
# from a Python DP of the exact null distribution, or the normal formula),
# and p agrees with scipy.stats.wilcoxon; on hyperfine exports (unpaired) the
# ratio is exp(median shift) and p agrees with scipy.stats.mannwhitneyu.
# --threshold changes p and the verdicts but not ratio/interval, and BH over
# several files matches an independent Benjamini–Hochberg.
source "$(dirname "$0")/lib.sh"
DATA="$WORK/data"
OUT="$WORK/results"
mkdir -p "$DATA" "$OUT"

# 1. seeded datasets: one CSV (paired) or hyperfine export (unpaired) each
"$PY" - "$DATA" "$WORK/manifest.json" <<'PY' || fail "cannot generate the datasets"
import json, math, os, sys
import numpy as np

data, manifest_path = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20240611)
manifest = []


def paired(name, baseline, candidate, note):
    with open(os.path.join(data, name + ".csv"), "w") as f:
        f.write("round,baseline,candidate\n")
        for i, (b, c) in enumerate(zip(baseline, candidate)):
            # repr: the shortest text that parses back to the same double
            f.write(f"{i},{b!r},{c!r}\n")
    manifest.append({"name": name, "file": name + ".csv", "kind": "paired", "note": note})


def unpaired(name, baseline, candidate, note):
    doc = {"results": [{"command": "./old", "times": list(baseline)},
                       {"command": "./new", "times": list(candidate)}]}
    with open(os.path.join(data, name + ".json"), "w") as f:
        json.dump(doc, f)
    manifest.append({"name": name, "file": name + ".json", "kind": "unpaired", "note": note})


def lognormal_pairs(n, ratio, sigma):
    b = 0.05 * np.exp(rng.normal(0.0, 0.1, n))
    c = b * ratio * np.exp(rng.normal(0.0, sigma, n))
    return [float(v) for v in b], [float(v) for v in c]


sigmas = [0.02, 0.05, 0.1]
k = 0
# exact path: n <= 50, continuous data (no ties, no zeros)
for n in [6, 8, 12, 20, 35, 50]:
    for ratio in [1.0, 1.15, 1.3]:
        sigma = sigmas[k % 3]
        k += 1
        paired(f"exact_n{n}_r{round(ratio * 100)}_s{round(sigma * 100)}", *lognormal_pairs(n, ratio, sigma),
               f"n={n} ratio={ratio} sigma={sigma}")
# approximate path: n > 50
for n in [51, 80, 200]:
    for ratio in [1.0, 1.15, 1.3]:
        sigma = sigmas[k % 3]
        k += 1
        paired(f"approx_n{n}_r{round(ratio * 100)}_s{round(sigma * 100)}", *lognormal_pairs(n, ratio, sigma),
               f"n={n} ratio={ratio} sigma={sigma}")
# RSS readings in whole 4 KiB pages: many tied |d|, zeros at ratio 1, and at
# ratio 1.15 rows with candidate/baseline == 1.15 exactly (d == ln T)
for n, ratio, jitter in [(12, 1.0, 1), (30, 1.15, 2), (50, 1.3, 2), (40, 1.12, 3), (120, 1.0, 4), (90, 1.15, 3)]:
    pages = 2000
    b = 4096 * (pages + rng.integers(-jitter, jitter + 1, n))
    c = 4096 * (round(pages * ratio) + rng.integers(-jitter, jitter + 1, n))
    paired(f"rss_n{n}_r{round(ratio * 100)}_j{jitter}", [float(v) for v in b], [float(v) for v in c],
           f"RSS pages n={n} ratio={ratio} jitter={jitter}")
# candidate == baseline in several rows: d = 0 (ties at zero in the interval)
for n, ratio, sigma, equal in [(20, 1.0, 0.05, 6), (40, 1.3, 0.05, 8), (60, 1.15, 0.1, 10)]:
    b, c = lognormal_pairs(n, ratio, sigma)
    for i in rng.choice(n, equal, replace=False):
        c[i] = b[i]
    paired(f"zeros_n{n}_r{round(ratio * 100)}_e{equal}", b, c, f"n={n} ratio={ratio} with {equal} rows d=0")
# rows with candidate/baseline == 1.15 exactly (power-of-two baselines): d - ln T == 0, dropped from p
b, c = lognormal_pairs(25, 1.15, 0.05)
for i, e in enumerate([-4, -5, -3, -6, -4]):
    b[i] = 2.0 ** e
    c[i] = b[i] * 1.15
    assert math.log(c[i] / b[i]) - math.log(1.15) == 0.0
paired("atT_n25_r115", b, c, "n=25 ratio=1.15 with 5 rows d == ln(1.15)")
# improvements, clear (past 1/T) and small (between 1/T and 1): the better side's p and verdict
for n, ratio, sigma in [(12, 0.6, 0.1), (30, 0.8, 0.05), (60, 0.5, 0.2), (20, 0.9, 0.02), (8, 0.85, 0.05)]:
    paired(f"better_n{n}_r{round(ratio * 100)}_s{round(sigma * 100)}", *lognormal_pairs(n, ratio, sigma),
           f"n={n} ratio={ratio} sigma={sigma}")

# unpaired hyperfine exports (sizes: baseline runs, candidate runs)
for nb, nc, ratio, sigma, rounding in [(5, 7, 1.3, 0.05, None), (8, 30, 1.15, 0.05, None), (30, 8, 1.0, 0.05, None),
                                       (6, 6, 1.0, 0.08, None), (20, 25, 1.15, 0.05, None), (9, 9, 1.3, 0.1, None),
                                       (40, 40, 1.2, 0.05, None), (12, 15, 1.1, 0.05, 0.001),
                                       (5, 7, 1.3, 0.02, 0.001), (10, 12, 0.6, 0.05, None),
                                       (7, 6, 0.8, 0.05, None)]:
    bt = 0.05 * np.exp(rng.normal(0.0, sigma, nb))
    ct = 0.05 * ratio * np.exp(rng.normal(0.0, sigma, nc))
    if rounding:
        bt = np.round(bt / rounding) * rounding
        ct = np.round(ct / rounding) * rounding
    tag = "_ties" if rounding else ""
    unpaired(f"hyperfine_{nb}v{nc}_r{round(ratio * 100)}{tag}", [float(v) for v in bt], [float(v) for v in ct],
             f"unpaired {nb} vs {nc} ratio={ratio} sigma={sigma}" + (" rounded to 1 ms" if rounding else ""))

json.dump(manifest, open(manifest_path, "w"), indent=1)
print(f"generated {sum(m['kind'] == 'paired' for m in manifest)} paired and "
      f"{sum(m['kind'] == 'unpaired' for m in manifest)} unpaired datasets")
PY

# 2. refbench on each file alone (default threshold 1.15) ...
for f in "$DATA"/*; do
  stem="$(basename "${f%.*}")"
  run_refbench analyze "$f" --format json
  [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "analyze $f: exit $RC; stderr: $(cat "$WORK/err")"
  cp "$WORK/out" "$OUT/$stem.json"
  echo "$RC" >"$OUT/$stem.rc"
done
# ... and on all files together with --threshold 1.10 (one BH family)
run_refbench analyze "$DATA"/* --threshold 1.10 --format json
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "analyze --threshold 1.10: exit $RC; stderr: $(cat "$WORK/err")"
cp "$WORK/out" "$WORK/all_t110.json"
echo "$RC" >"$WORK/all_t110.rc"

# 3. independent reference values
"$PY" - "$DATA" "$WORK/manifest.json" "$OUT" "$WORK/all_t110.json" "$WORK/all_t110.rc" <<'PY' \
  || fail "refbench analyze disagrees with the reference values (mismatches above)"
import csv, json, math, sys, warnings
import numpy as np
from scipy import stats

data, manifest_path, out, all_path, all_rc_path = sys.argv[1:6]
manifest = json.load(open(manifest_path))
Z = stats.norm.ppf(0.975)  # 1.959964...
ALPHA = 0.05
checked = 0
failures = []
paths = {"wilcoxon exact": 0, "wilcoxon approx": 0, "interval exact": 0, "interval approx": 0,
         "mwu exact": 0, "mwu asymptotic": 0, "wilcoxon d == ln(T) dropped": 0, "interval with d == 0": 0}
warnings.simplefilter("ignore")  # scipy's small-sample warnings


def check(where, what, got, want, rel=None, tol=None):
    global checked
    checked += 1
    ok = got is not None and want is not None and math.isfinite(got) and math.isfinite(want)
    if ok and rel is not None:
        ok = math.isclose(got, want, rel_tol=rel, abs_tol=0.0)
    elif ok:
        ok = abs(got - want) <= tol
    if not ok:
        failures.append(f"{where}: {what}: refbench {got!r}, reference {want!r}"
                        f" ({'rel tol %g' % rel if rel is not None else 'abs tol %g' % tol})")


def check_eq(where, what, got, want):
    global checked
    checked += 1
    if got != want:
        failures.append(f"{where}: {what}: refbench {got!r}, reference {want!r}")


def signed_rank_counts(n):
    """Number of sign assignments of ranks 1..n with W+ = w (exact integers)."""
    counts = [1]
    for r in range(1, n + 1):
        grown = counts + [0] * r
        for w, c in enumerate(counts):
            grown[w + r] += c
        counts = grown
    return counts


def lower_critical(counts, total):
    """Largest c with P(stat <= c) <= 0.025 (exactly, in integers); -1 if none."""
    c, cumulative = -1, 0
    for w, k in enumerate(counts):
        cumulative += k
        if cumulative * 40 > total:  # cumulative / total > 1/40
            break
        c = w
    return c


def mann_whitney_counts(m, n):
    """Number of orderings of m x's and n y's with U = u, via the classic recursion
    N(m, n, u) = N(m-1, n, u-n) + N(m, n-1, u)."""
    table = {}
    for i in range(m + 1):
        for j in range(n + 1):
            if i == 0 or j == 0:
                table[i, j] = [1] + [0] * (i * j)
                continue
            dist = [0] * (i * j + 1)
            for u, k in enumerate(table[i - 1, j]):
                dist[u + j] += k
            for u, k in enumerate(table[i, j - 1]):
                dist[u] += k
            table[i, j] = dist
    return table[m, n]


def tie_sizes(values):
    _, counts = np.unique(np.asarray(values), return_counts=True)
    return [int(t) for t in counts if t > 1]


def has_ties(values):
    return len(set(values)) != len(values)


def round_half_away(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def verdict(lo, hi, p_bh, p_improved_bh, p_better_bh, n, reaches, threshold):
    # docs/manual/statistics.md, verdicts without a control cell (no noise floor); min_rounds = 2 for CSV/hyperfine
    if lo > threshold and p_bh < ALPHA:
        return "REGRESSION"
    if hi < 1 / threshold and p_improved_bh < ALPHA:
        return "IMPROVED"
    enough = n >= 2 and reaches
    if enough and hi < 1.0 and p_better_bh < ALPHA:  # a small improvement: its test against no change
        return "IMPROVED"
    if enough and hi < threshold:
        return "PASS"
    return "INCONCLUSIVE"


def reference(entry, threshold):
    """Independent ratio, interval, p (and which path) for one dataset."""
    path = f"{data}/{entry['file']}"
    shift = math.log(threshold)
    ref = {}
    if entry["kind"] == "paired":
        rows = list(csv.DictReader(open(path)))
        b = [float(r["baseline"]) for r in rows]
        c = [float(r["candidate"]) for r in rows]
        d = [math.log(ci / bi) for bi, ci in zip(b, c)]
        n = len(d)
        walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
        m = len(walsh)
        ref["ratio"] = math.exp(float(np.median(walsh)))
        mags = [abs(v) for v in d]
        if n <= 50 and 0.0 not in d and not has_ties(mags):
            crit = lower_critical(signed_rank_counts(n), 2 ** n)
            ref["interval path"] = "interval exact"
        else:
            var = n * (n + 1) * (2 * n + 1) / 24 - sum(t ** 3 - t for t in tie_sizes(mags)) / 48
            crit = round_half_away(m / 2 - Z * math.sqrt(var)) - 1
            ref["interval path"] = "interval approx"
        cut = min(max(crit, 0), (m - 1) // 2)
        ref["ci_low"], ref["ci_high"] = math.exp(walsh[cut]), math.exp(walsh[m - 1 - cut])
        ref["reaches"] = crit >= 0
        s = [v - shift for v in d]
        exact = n <= 50 and 0.0 not in s and not has_ties([abs(v) for v in s])
        ref["p"] = float(stats.wilcoxon(s, alternative="greater", method="exact" if exact else "approx").pvalue)
        s_better = [v + shift for v in d]  # the mirror: d below -ln(T)
        exact_better = n <= 50 and 0.0 not in s_better and not has_ties([abs(v) for v in s_better])
        ref["p_improved"] = float(stats.wilcoxon(s_better, alternative="less",
                                                 method="exact" if exact_better else "approx").pvalue)
        ref["p_improved tol"] = 1e-6 if exact_better else 1e-4
        exact_zero = n <= 50 and 0.0 not in d and not has_ties(mags)  # d below no change
        ref["p_better"] = float(stats.wilcoxon(d, alternative="less", method="exact" if exact_zero else "approx").pvalue)
        ref["p_better tol"] = 1e-6 if exact_zero else 1e-4
        ref["p path"] = "wilcoxon exact" if exact else "wilcoxon approx"
        ref["p tol"] = 1e-6 if exact else 1e-4
        ref["extra paths"] = [k for k, hit in [("wilcoxon d == ln(T) dropped", 0.0 in s),
                                               ("interval with d == 0", 0.0 in d)] if hit]
        ref["n"] = n
        ref["paired"] = True
    else:
        doc = json.load(open(path))
        x = [math.log(v) for v in doc["results"][0]["times"]]
        y = [math.log(v) for v in doc["results"][1]["times"]]
        diffs = sorted(yj - xi for yj in y for xi in x)
        total = len(diffs)
        ref["ratio"] = math.exp(float(np.median(diffs)))
        exact_ci = min(len(x), len(y)) <= 8 and not has_ties(x + y)
        if exact_ci:
            crit = lower_critical(mann_whitney_counts(len(x), len(y)), math.comb(len(x) + len(y), len(x)))
            cut = min(max(crit, 0), (total - 1) // 2)
            ref["ci_low"], ref["ci_high"] = math.exp(diffs[cut]), math.exp(diffs[total - 1 - cut])
            ref["reaches"] = crit >= 0
        else:
            ref["reaches"] = True  # checked below only through the verdict's inputs
        first = [v - shift for v in y]
        exact = min(len(x), len(y)) <= 8 and not has_ties(first + x)
        ref["p"] = float(stats.mannwhitneyu(first, x, alternative="greater").pvalue)  # scipy's default method
        better = [v + shift for v in y]
        ref["p_improved"] = float(stats.mannwhitneyu(better, x, alternative="less").pvalue)
        ref["p_improved tol"] = 1e-6 if min(len(x), len(y)) <= 8 and not has_ties(better + x) else 1e-4
        ref["p_better"] = float(stats.mannwhitneyu(y, x, alternative="less").pvalue)
        ref["p_better tol"] = 1e-6 if min(len(x), len(y)) <= 8 and not has_ties(y + x) else 1e-4
        ref["p path"] = "mwu exact" if exact else "mwu asymptotic"
        ref["p tol"] = 1e-6 if exact else 1e-4
        ref["n"] = min(len(x), len(y))
        ref["paired"] = False
    return ref


def compare_row(where, row, ref, threshold, p_bh_ref, p_improved_bh_ref, p_better_bh_ref, count_paths):
    check_eq(where, "n", row["n"], ref["n"])
    check_eq(where, "paired", row["paired"], ref["paired"])
    check_eq(where, "threshold", row["threshold"], threshold)
    check(where, "ratio", row["ratio"], ref["ratio"], rel=1e-9)
    if "ci_low" in ref:
        check(where, "ci_low", row["ci_low"], ref["ci_low"], rel=1e-9)
        check(where, "ci_high", row["ci_high"], ref["ci_high"], rel=1e-9)
        if count_paths and "interval path" in ref:
            paths[ref["interval path"]] += 1
    else:  # unpaired asymptotic interval: only its shape
        checked_ok = row["ci_low"] <= row["ratio"] <= row["ci_high"]
        check_eq(where, "ci_low <= ratio <= ci_high", checked_ok, True)
    check(where, f"p ({ref['p path']})", row["p"], ref["p"], tol=ref["p tol"])
    check(where, "p_bh", row["p_bh"], p_bh_ref, tol=ref["p tol"])
    check(where, "p_improved", row["p_improved"], ref["p_improved"], tol=ref["p_improved tol"])
    check(where, "p_improved_bh", row["p_improved_bh"], p_improved_bh_ref, tol=ref["p_improved tol"])
    check(where, "p_better", row["p_better"], ref["p_better"], tol=ref["p_better tol"])
    check(where, "p_better_bh", row["p_better_bh"], p_better_bh_ref, tol=ref["p_better tol"])
    if count_paths:
        paths[ref["p path"]] += 1
        for extra in ref.get("extra paths", []):
            paths[extra] += 1
    want = verdict(row["ci_low"], row["ci_high"], row["p_bh"], row["p_improved_bh"], row["p_better_bh"], row["n"],
                   ref["reaches"], threshold)
    check_eq(where, "verdict", row["verdict"], want)


# the reference critical values against the published two-sided 5 % tables
for n, c in {5: -1, 6: 0, 7: 2, 8: 3, 10: 8, 12: 13, 15: 25, 20: 52, 25: 89, 30: 137, 50: 434}.items():
    assert lower_critical(signed_rank_counts(n), 2 ** n) == c, f"signed-rank table n={n}"
for (m, n), c in {(5, 5): 2, (5, 7): 5, (6, 6): 5, (7, 7): 8, (8, 8): 13}.items():
    assert lower_critical(mann_whitney_counts(m, n), math.comb(m + n, m)) == c, f"Mann-Whitney table {m},{n}"

# each file alone, threshold 1.15: one cell, so p_bh == p
refs = {}
for entry in manifest:
    name = entry["name"]
    where = f"{entry['file']} ({entry['note']}, T=1.15)"
    doc = json.load(open(f"{out}/{name}.json"))
    rc = int(open(f"{out}/{name}.rc").read())
    ref = refs[name] = reference(entry, 1.15)
    rows = doc["analysis"]
    check_eq(where, "cells × metrics", [(r["cell"], r["metric"]) for r in rows],
             [(name, "value" if entry["kind"] == "paired" else "wall")])
    if len(rows) != 1:
        continue
    row = rows[0]
    check_eq(where, "p_bh == p", row["p_bh"], row["p"])
    compare_row(where, row, ref, 1.15, ref["p"], ref["p_improved"], ref["p_better"], True)
    check_eq(where, "exit code", rc, 1 if row["verdict"] == "REGRESSION" else 0)
    check_eq(where, "overall verdict", doc["verdict"], "regression" if row["verdict"] == "REGRESSION"
             else "inconclusive" if row["verdict"] == "INCONCLUSIVE" else "pass")

# all files together, threshold 1.10: p against scipy with ln(1.10), BH over all cells
doc = json.load(open(all_path))
check_eq("--threshold 1.10", "settings.threshold", doc["settings"]["threshold"], 1.1)
rows = {r["cell"]: r for r in doc["analysis"]}
check_eq("--threshold 1.10", "cells", sorted(rows), sorted(e["name"] for e in manifest))
refs110 = {e["name"]: reference(e, 1.10) for e in manifest}
names = sorted(refs110)


def benjamini_hochberg(p):
    order = np.argsort(p, kind="stable")
    bh = np.empty_like(p)
    running = 1.0
    for rank in range(len(p), 0, -1):  # Benjamini–Hochberg step-up
        i = order[rank - 1]
        running = min(running, p[i] * len(p) / rank)
        bh[i] = min(running, 1.0)
    return bh


bh = benjamini_hochberg(np.array([refs110[k]["p"] for k in names]))
bh_improved = benjamini_hochberg(np.array([refs110[k]["p_improved"] for k in names]))  # one family per test
bh_better = benjamini_hochberg(np.array([refs110[k]["p_better"] for k in names]))
changed = 0
for k, name in enumerate(names):
    entry = next(e for e in manifest if e["name"] == name)
    where = f"{entry['file']} ({entry['note']}, T=1.10, {len(names)} files)"
    compare_row(where, rows[name], refs110[name], 1.1, float(bh[k]), float(bh_improved[k]), float(bh_better[k]), False)
    alone = json.load(open(f"{out}/{name}.json"))["analysis"][0]
    for key in ["ratio", "ci_low", "ci_high"]:  # the threshold moves p, never the estimate
        check_eq(where, f"{key} same as with T=1.15", rows[name][key], alone[key])
    changed += abs(rows[name]["p"] - alone["p"]) > 1e-3 or abs(rows[name]["p_improved"] - alone["p_improved"]) > 1e-3
rc = int(open(all_rc_path).read())
check_eq("--threshold 1.10", "exit code", rc, 1 if doc["verdict"] == "regression" else 0)
if changed < len(names) // 2:
    failures.append(f"--threshold 1.10 changed p of only {changed} of {len(names)} datasets")
verdicts = {name: json.load(open(f"{out}/{name}.json"))["analysis"][0]["verdict"] for name in names}
moved = sum(verdicts[n] != rows[n]["verdict"] for n in names)
if moved == 0:
    failures.append("--threshold 1.10 changed no verdict")

improved = [n for n in names if verdicts[n] == "IMPROVED" and rows[n]["ci_high"] < 1 / 1.1]
if not improved:
    failures.append("no dataset was a clear improvement past 1/T")
for path, count in paths.items():
    if count == 0:
        failures.append(f"no dataset exercised the {path} path")
print("paths: " + ", ".join(f"{k} {v}" for k, v in paths.items()))
print(f"checked {checked} comparisons over {len(manifest)} datasets "
      f"({sum(e['kind'] == 'paired' for e in manifest)} paired, {sum(e['kind'] == 'unpaired' for e in manifest)} unpaired); "
      f"--threshold 1.10 changed {changed} p-values and {moved} verdicts")
if failures:
    print(f"{len(failures)} mismatches:", file=sys.stderr)
    for f in failures:
        print("  " + f, file=sys.stderr)
    sys.exit(1)
PY
echo "ok: analyze matches scipy and independent Hodges–Lehmann/signed-rank references"
