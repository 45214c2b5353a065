#!/usr/bin/env python3
"""Before and after in one run: the benches of `run.py` (1M-point import and envelope
queries), `edits.py` (single edits, 10k adds), `sync.py` (upload and download) and
`replicas.py` (the 1M-point replica), each run against a baseline build and the current
build in turn, for several rounds on the same machine. The machine is shared and noisy, so
each figure is the median of the rounds and is compared as a ratio (current / baseline).

Usage: python3 bench/compare.py --baseline PATH [--binary PATH] [--rounds 3]
Both need release builds (`swift build -c release --product outpost`; for the baseline, in a
`git worktree` of the older commit). Writes bench/out/compare.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from harness import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
BENCHES = [
    ("run.py", "results.json", ["--imports", "1", "--queries", "300"]),
    ("edits.py", "edits.json", []),
    ("sync.py", "sync.json", ["--runs", "1"]),
    ("replicas.py", "replicas.json", ["--runs", "1"]),
]


def figures(document, prefix=""):
    """Every timing or rate in a bench's JSON, flattened: numbers, or a dict's `median`."""
    found = {}
    for key, value in document.items():
        if key in ("machine", "date", "points", "runs", "queries"):
            continue
        name = f"{prefix}{key}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            found[name] = float(value)
        elif isinstance(value, dict):
            if isinstance(value.get("median"), (int, float)):
                found[name] = float(value["median"])
            else:
                found.update(figures(value, f"{name}."))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    builds = {"baseline": os.path.abspath(args.baseline), "current": os.path.abspath(args.binary)}
    samples = {label: {} for label in builds}
    for round_ in range(args.rounds):
        # Alternate which build goes first, so neither always meets a warmer machine.
        order = list(builds.items()) if round_ % 2 == 0 else list(reversed(builds.items()))
        for script, output, extra in BENCHES:
            for label, binary in order:
                started = time.time()
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", script), "--binary", binary, *extra], check=True,
                               stdout=subprocess.DEVNULL, cwd=ROOT)
                with open(os.path.join(OUT, output)) as f:
                    for name, value in figures(json.load(f), f"{script[:-3]}.").items():
                        samples[label].setdefault(name, []).append(value)
                print(f"round {round_ + 1}: {script} {label} in {time.time() - started:.0f} s", flush=True)
    report = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds, "figures": {}}
    for name in sorted(samples["current"]):
        if name not in samples["baseline"]:
            continue
        base, current = statistics.median(samples["baseline"][name]), statistics.median(samples["current"][name])
        report["figures"][name] = {"baseline": base, "current": current, "ratio": current / base if base else None}
    with open(os.path.join(OUT, "compare.json"), "w") as f:
        json.dump(report, f, indent=2)
    width = max(len(n) for n in report["figures"])
    for name, entry in report["figures"].items():
        ratio = f"{entry['ratio']:.2f}" if entry["ratio"] is not None else "-"
        print(f"{name:<{width}}  {entry['baseline']:>12.4g}  {entry['current']:>12.4g}  {ratio}")


if __name__ == "__main__":
    main()
