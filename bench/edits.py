#!/usr/bin/env python3
"""Outpost edit benchmarks over HTTP on loopback (release build):
  1. one layer applyEdits with 10,000 point adds (median of 5 requests);
  2. 1,000 single-feature applyEdits requests from 8 concurrent keep-alive connections.
Usage: python3 bench/edits.py [--binary PATH]. Writes bench/out/edits.json.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import threading
import time
import urllib.parse

from harness import machine, post, start_server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
LAYER = "/arcgis/rest/services/Demo/FeatureServer/2"



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    data = os.path.join(OUT, "edits-data")
    shutil.rmtree(data, ignore_errors=True)
    server, port, c = start_server(args.binary, data, cwd=ROOT)
    try:
        rng = random.Random(5)
        bulk_times = []
        for run in range(5):
            adds = [{"attributes": {"species": "bench", "height_m": rng.uniform(2, 30), "healthy": 1},
                     "geometry": {"x": 13.2 + rng.random() * 0.4, "y": 52.4 + rng.random() * 0.2}} for _ in range(10_000)]
            fields = {"f": "json", "adds": json.dumps(adds), "rollbackOnFailure": "true"}
            started = time.perf_counter()
            result = post(c, f"{LAYER}/applyEdits", fields)
            bulk_times.append(time.perf_counter() - started)
            assert len(result["addResults"]) == 10_000 and all(r["success"] for r in result["addResults"]), result.get("error")

        total, workers = 1000, 8
        latencies = []
        lock = threading.Lock()

        def worker(count, seed):
            local = random.Random(seed)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            mine = []
            for _ in range(count):
                add = [{"attributes": {"species": "single", "height_m": local.uniform(2, 30)},
                        "geometry": {"x": 13.2 + local.random() * 0.4, "y": 52.4 + local.random() * 0.2}}]
                t0 = time.perf_counter()
                result = post(conn, f"{LAYER}/applyEdits", {"f": "json", "adds": json.dumps(add)})
                mine.append(time.perf_counter() - t0)
                assert result["addResults"][0]["success"]
            with lock:
                latencies.extend(mine)

        threads = [threading.Thread(target=worker, args=(total // workers, i)) for i in range(workers)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=10)

    results = {
        "machine": machine(),
        "bulk_10000_adds_seconds_median": round(statistics.median(bulk_times), 3),
        "bulk_10000_adds_seconds_runs": [round(t, 3) for t in bulk_times],
        "single_edit_requests": total,
        "single_edit_connections": workers,
        "single_edit_requests_per_second": round(total / elapsed, 1),
        "single_edit_latency_ms_median": round(statistics.median(latencies) * 1000, 2),
        "single_edit_latency_ms_p95": round(sorted(latencies)[int(len(latencies) * 0.95) - 1] * 1000, 2),
    }
    with open(os.path.join(OUT, "edits.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
