#!/usr/bin/env python3
"""Outpost client-library benchmarks (release build, loopback):
  1. generate + download of a 100,000-feature replica end to end through the client library
     (createReplica async GeoPackage, status polling, ranged download, opening the file),
     timed in the client from the first request to the open file (median of --runs);
  2. local edits in one transaction: 20,000 adds (one addAll), then 20,000 updates (one call
     each), on that replica file; features per second (median of --runs).
Usage: python3 bench/client.py [--binary PATH] [--bench PATH] [--runs N]. Writes bench/out/client.json.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import time

from harness import OUT, ROOT, imported_data, machine, start_server



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build", "release", "outpost-bench"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = imported_data(args.binary, "client-data", [("Hundred", 100_000)])
    work = os.path.join(OUT, "client-files")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    server, port, _ = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    url = f"http://127.0.0.1:{port}/arcgis/rest/services/Hundred/FeatureServer"
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d")}
    try:
        generated, edits = [], []
        for run in range(args.runs):
            path = os.path.join(work, f"replica-{run}.gpkg")
            out = subprocess.run([args.bench, "generate", url, path], check=True, capture_output=True, text=True).stdout
            generated.append(json.loads(out))
            assert generated[-1]["features"] == 100_000, generated[-1]
            out = subprocess.run([args.bench, "local-edits", path, "0", "20000"], check=True, capture_output=True, text=True).stdout
            edits.append(json.loads(out))
            assert edits[-1]["pending_changes"] == 20_000, edits[-1]
        seconds = [g["seconds"] for g in generated]
        adds = [e["adds"] / e["add_seconds"] for e in edits]
        updates = [e["updates"] / e["update_seconds"] for e in edits]
        results["generate_download_100000_s"] = {"median": statistics.median(seconds), "runs": seconds, "bytes": generated[0]["bytes"]}
        results["local_adds_per_s"] = {"median": statistics.median(adds), "runs": adds}
        results["local_updates_per_s"] = {"median": statistics.median(updates), "runs": updates}
        print(f"generate + download of 100,000 features: median {statistics.median(seconds):.2f} s "
              f"{['%.2f' % s for s in seconds]} ({generated[0]['bytes'] / 1e6:.1f} MB)")
        print(f"local adds in one transaction: median {statistics.median(adds):,.0f} features/s")
        print(f"local updates in one transaction: median {statistics.median(updates):,.0f} features/s")
    finally:
        server.terminate()
        server.wait()
    with open(os.path.join(OUT, "client.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
