#!/usr/bin/env python3
"""PostgreSQL beside SpatiaLite (issue 23's figures), at store level: the same operations on both
backends in one run, rounds alternating which backend goes first, medians and ratios.
  import of N points (one transaction), the envelope query (~1,000 features at 1M, median of 30
  queries), a replica of every point as a GeoPackage, single online edits from 1 writer and from 3
  (PostgreSQL: three backends with their own connections, as three server processes; SpatiaLite:
  three threads on its one writer), a sync upload of 20,000 edits (10k adds, 8k updates, 2k
  deletes), the download of 20,000 online changes, and 50 devices syncing at once.
A throwaway PostgreSQL 15 cluster is started on loopback (scripts/postgres.sh) and removed.
Usage: python3 bench/postgres.py [--binary .build/release/outpost-store-bench] [--points 1000000]
[--rounds 3]. Writes bench/out/postgres.json.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

from harness import OUT, ROOT, machine


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost-store-bench"))
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=55499)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="outpost-pg-bench-")
    os.chmod(work, 0o755)  # the cluster runs as the postgres user when this runs as root
    cluster = os.path.join(work, "cluster")
    script = os.path.join(ROOT, "scripts", "postgres.sh")
    url = subprocess.run([script, "start", cluster, str(args.port)], check=True, capture_output=True, text=True).stdout.strip()
    try:
        run = subprocess.run([args.binary, url, work, str(args.points), str(args.rounds)], check=True, capture_output=True, text=True)
    finally:
        subprocess.run([script, "stop", cluster], check=False)
        shutil.rmtree(work, ignore_errors=True)
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    measures = []
    for row in rows:
        if row["measure"] not in measures:
            measures.append(row["measure"])
    table = []
    for measure in measures:
        times = {b: [r["seconds"] for r in rows if r["measure"] == measure and r["backend"] == b] for b in ("SpatiaLite", "PostgreSQL")}
        lite, pg = statistics.median(times["SpatiaLite"]), statistics.median(times["PostgreSQL"])
        table.append({"measure": measure, "spatialite_s": lite, "postgres_s": pg, "ratio": pg / lite, "runs": times})
        print(f"{measure:32} SpatiaLite {lite:9.4f} s   PostgreSQL {pg:9.4f} s   {pg / lite:5.2f}x")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "postgres.json"), "w") as out:
        json.dump({"machine": machine(), "points": args.points, "rounds": args.rounds, "results": table, "raw": rows}, out, indent=1)


if __name__ == "__main__":
    main()
