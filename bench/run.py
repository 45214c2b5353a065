#!/usr/bin/env python3
"""Outpost benchmark: import a generated 1,000,000-point layer, then time envelope queries
returning about 1,000 features over HTTP on loopback.

Usage: python3 bench/run.py [--points N] [--queries N] [--binary PATH]
Needs a release build (`swift build -c release --product outpost`). Prints the figures and
writes bench/out/results.json. Figures are medians over repeated runs, not single timings.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import time
import urllib.parse

from harness import machine, start_server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def generate(path, count, seed=1):
    """Uniform points over the world with a few attributes, written as GeoJSON."""
    rng = random.Random(seed)
    species = ["oak", "lime", "maple", "birch", "plane", "ash"]
    with open(path, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i in range(count):
            x = rng.uniform(-180, 180)
            y = rng.uniform(-85, 85)
            sep = "," if i else ""
            f.write(f'{sep}{{"type":"Feature","properties":{{"name":"p{i}","species":"{species[i % 6]}","value":{i % 1000}}},'
                    f'"geometry":{{"type":"Point","coordinates":[{x:.6f},{y:.6f}]}}}}\n')
        f.write("]}\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--imports", type=int, default=3, help="import runs (the median is reported)")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    source = os.path.join(OUT, f"points-{args.points}.geojson")
    if not os.path.exists(source):
        print(f"generating {args.points} points ...", flush=True)
        generate(source, args.points)

    import_times = []
    data = os.path.join(OUT, "data")
    for run in range(args.imports):
        shutil.rmtree(data, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run([args.binary, "import", source, "--service", "Bench", "--data", data, "--max-record-count", "2000"],
                       check=True, capture_output=True)
        import_times.append(time.perf_counter() - started)
        print(f"import run {run + 1}: {import_times[-1]:.2f} s", flush=True)

    server, _, connection = start_server(args.binary, data, "--no-demo")
    try:
        # Boxes sized to hold about 1,000 of the uniform points: 1,000/N of the 360 x 170 world.
        side = (360 * 170 * 1000 / args.points) ** 0.5
        rng = random.Random(7)
        latencies, counts = [], []
        for i in range(args.queries + 20):
            x = rng.uniform(-180, 180 - side)
            y = rng.uniform(-85, 85 - side)
            query = urllib.parse.urlencode({"geometry": f"{x},{y},{x + side},{y + side}", "geometryType": "esriGeometryEnvelope",
                                            "spatialRel": "esriSpatialRelIntersects", "outFields": "*", "f": "json",
                                            "resultRecordCount": 2000})
            started = time.perf_counter()
            connection.request("GET", f"/arcgis/rest/services/Bench/FeatureServer/0/query?{query}")
            body = connection.getresponse().read()
            elapsed = time.perf_counter() - started
            if i >= 20:  # warm-up excluded
                latencies.append(elapsed * 1000)
                counts.append(len(json.loads(body)["features"]))
    finally:
        server.terminate()
        server.wait(timeout=10)

    results = {
        "machine": machine(),
        "points": args.points,
        "import_seconds_median": round(statistics.median(import_times), 2),
        "import_seconds_runs": [round(t, 2) for t in import_times],
        "query_ms_median": round(statistics.median(latencies), 2),
        "query_ms_p95": round(sorted(latencies)[int(len(latencies) * 0.95) - 1], 2),
        "query_features_median": statistics.median(counts),
        "queries": len(latencies),
    }
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
