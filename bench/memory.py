#!/usr/bin/env python3
"""Memory in the row count (issue 24): `outpost import` of N generated points (default 5M),
the process's peak RSS and its time per row; then, on the imported data, a GeoPackage
replica of the whole layer in a freshly started server, and that server's peak RSS (VmHWM).
With `--baseline BIN`, another build runs beside the current one in the same run, the order
rotated each round (the machine is shared and noisy); medians of `--rounds`.
Usage: python3 bench/memory.py [--binary PATH] [--baseline PATH] [--points N] [--rounds N].
Writes bench/out/memory.json.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import time
import urllib.parse

from harness import OUT, ROOT, machine, start_server
from run import generate


def run_import(binary, source, data):
    """(seconds, peak RSS in MiB) of one `outpost import` into a fresh folder."""
    shutil.rmtree(data, ignore_errors=True)
    started = time.perf_counter()
    process = subprocess.Popen([binary, "import", source, "--service", "Points", "--data", data], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    assert os.waitstatus_to_exitcode(status) == 0, f"import failed: {status}"
    return elapsed, usage.ru_maxrss / 1024


def run_replica(binary, data, points):
    """(seconds, the server's peak RSS in MiB) of one GeoPackage replica of the whole layer."""
    server, _, connection = start_server(binary, data, "--no-demo", cwd=ROOT)
    try:
        started = time.perf_counter()
        connection.request("POST", "/arcgis/rest/services/Points/FeatureServer/createReplica", body=urllib.parse.urlencode({
            "f": "json", "layers": "0", "dataFormat": "sqlite", "replicaName": "memory", "syncModel": "perLayer"}),
            headers={"Content-Type": "application/x-www-form-urlencoded"})
        answer = json.loads(connection.getresponse().read())
        elapsed = time.perf_counter() - started
        assert "URL" in answer, answer
        with open(f"/proc/{server.pid}/status") as f:
            peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
        file = os.path.join(data, "replicafiles", answer["URL"].rsplit("/", 1)[1])
        import sqlite3
        with sqlite3.connect(file) as check:
            table = check.execute("SELECT table_name FROM outpost_sync_layers").fetchone()[0]
            count = check.execute(f'SELECT count(*) FROM "rtree_{table}_shape"').fetchone()[0]
            assert count == points, count
            assert check.execute(f"SELECT rtreecheck('rtree_{table}_shape')").fetchone()[0] == "ok"
        os.remove(file)
        return elapsed, peak
    finally:
        server.terminate()
        server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--baseline")
    parser.add_argument("--points", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    source = os.path.join(OUT, f"points-{args.points}.geojson")
    if not os.path.exists(source):
        generate(source, args.points)
    builds = [("current", args.binary)] + ([("baseline", args.baseline)] if args.baseline else [])
    figures = {name: {"import_seconds": [], "import_rss_mib": [], "replica_seconds": [], "replica_rss_mib": []} for name, _ in builds}
    for round in range(args.rounds):
        order = builds if round % 2 == 0 else list(reversed(builds))
        for name, binary in order:
            data = os.path.join(OUT, f"memory-data-{name}")
            seconds, rss = run_import(binary, source, data)
            figures[name]["import_seconds"].append(round_to(seconds))
            figures[name]["import_rss_mib"].append(round_to(rss, 1))
            print(f"{name} import round {round + 1}: {seconds:.1f} s, peak {rss:.0f} MiB", flush=True)
            seconds, rss = run_replica(binary, data, args.points)
            figures[name]["replica_seconds"].append(round_to(seconds))
            figures[name]["replica_rss_mib"].append(round_to(rss, 1))
            print(f"{name} replica round {round + 1}: {seconds:.1f} s, server peak {rss:.0f} MiB", flush=True)
            shutil.rmtree(data, ignore_errors=True)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "points": args.points}
    for name, values in figures.items():
        results[name] = {key: {"median": statistics.median(runs), "runs": runs} for key, runs in values.items()}
        results[name]["import_microseconds_per_row"] = round_to(statistics.median(values["import_seconds"]) / args.points * 1e6)
    if args.baseline:
        results["import_time_ratio"] = round_to(
            statistics.median(figures["current"]["import_seconds"]) / statistics.median(figures["baseline"]["import_seconds"]))
    with open(os.path.join(OUT, "memory.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


def round_to(value, digits=2):
    return round(value, digits)


if __name__ == "__main__":
    main()
