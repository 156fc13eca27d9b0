#!/usr/bin/python3
"""Writes a chained nightly history.jsonl as `refbench run --history` would:
NIGHTS runs, each chained to the one before (its baseline the previous
night's candidate), SERIES cells of one gated `wall` metric each. Every link
is a true ratio of 1.00 measured on 20 pairs with an honest interval: the
estimate's log error is normal with standard error SE, its 95 % interval
±t(0.975, 19)·SE around it. The first STEPPED cells get one link of 1.08 at
a night drawn per cell; the nights are printed as "cell index sha", one a line.

Usage: history_gen.py OUT_DIR NIGHTS SERIES STEPPED SEED [SE]
"""

import json
import math
import pathlib
import random
import sys

T19 = 2.093024054408263  # t(0.975, 19)


def sha(night):
    return f"{night:040x}"


def main():
    out, nights, series, stepped, seed = sys.argv[1], *map(int, sys.argv[2:6])
    se = float(sys.argv[6]) if len(sys.argv) > 6 else 0.01 / T19
    rng = random.Random(seed)
    steps = {cell: rng.randrange(nights) for cell in range(stepped)}
    directory = pathlib.Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "history.jsonl", "w", encoding="utf-8") as history:
        for night in range(nights):
            run_id = f"{night:016x}"
            for cell in range(series):
                truth = math.log(1.08) if steps.get(cell) == night else 0.0
                estimate = truth + rng.gauss(0.0, se)
                ratio = math.exp(estimate)
                line = {
                    "schema_version": 1,
                    "time": f"2026-01-01T00:00:{night % 60:02d}Z",
                    "run_id": run_id,
                    "repository": "0" * 40,
                    "baseline": {"ref": "history-last", "sha": sha(night)},
                    "candidate": {"ref": "main", "sha": sha(night + 1)},
                    "cell": f"cell{cell:03d}",
                    "metric": "wall",
                    "gated": True,
                    "better": "lower",
                    "unit": "seconds",
                    "ratio": ratio,
                    "ci_low": math.exp(estimate - T19 * se),
                    "ci_high": math.exp(estimate + T19 * se),
                    "verdict": "PASS",
                    "baseline_median": 0.1,
                    "candidate_median": 0.1 * ratio,
                    "n": 20,
                    "machine": {"cpu_model": "generated", "cpus": 2, "kernel": "6.1"},
                }
                history.write(json.dumps(line) + "\n")
    for cell, night in sorted(steps.items()):
        print(f"cell{cell:03d} {night} {sha(night + 1)}")


if __name__ == "__main__":
    main()
