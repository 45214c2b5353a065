#!/usr/bin/env python3
"""Test target snapshots (issue 47): `POST /_outpost/snapshots/start/restore` of the demo data
while the server serves, on SpatiaLite and PostgreSQL, median of --rounds (5), goal < 1 s.
Each round first writes 20 features (so there is something to take back), then times the
restore from the client (request to answer) while another connection queries in a loop (its
errors are counted: there must be none), against a floor measured in the same round, rounds
rotating which goes first:
  SpatiaLite: `cp` of the live database file — one read and one write of every page, what
  SQLite's backup API must do at least to put a saved copy in place;
  PostgreSQL: `pg_dump --data-only` of the live database to /dev/null — reading every row of
  every table once over a connection, what a restore that copies the saved rows back must
  at least do (a `SELECT 1` round trip would say nothing of the data's size).
A throwaway PostgreSQL 15 cluster is started on loopback (scripts/postgres.sh) unless
--postgres URL names a database to use. Usage: python3 bench/snapshots.py [--binary PATH]
[--rounds N] [--postgres URL]. Writes bench/out/snapshots.json.
"""
import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse

from harness import OUT, ROOT, free_port, machine, post

LAYER = "/arcgis/rest/services/Demo/FeatureServer/0"


def serve(binary, data, extra):
    port = free_port()
    process = subprocess.Popen(
        [binary, "serve", "--data", data, "--port", str(port), "--log-level", "error", "--test-target", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/_outpost/snapshots?f=json")
            answer = json.loads(connection.getresponse().read())
            if any(s["name"] == "start" for s in answer.get("snapshots", [])):
                return process, port, connection
        except (OSError, ValueError):
            pass
        if time.time() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError("outpost did not start")
        time.sleep(0.3)


class QueryLoop:
    """Queries the layer's count in a loop on its own connection; counts answers and errors."""

    def __init__(self, port):
        self.port, self.answers, self.errors = port, 0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        while not self.stop.is_set():
            connection.request("GET", f"{LAYER}/query?where=1%3D1&returnCountOnly=true&f=json")
            answer = json.loads(connection.getresponse().read())
            if "count" in answer:
                self.answers += 1
            else:
                self.errors.append(answer)

    def finish(self):
        self.stop.set()
        self.thread.join()


def measure(name, binary, data, extra, floor, rounds):
    process, port, connection = serve(binary, data, extra)
    try:
        loop = QueryLoop(port)
        restores, server_ms, floors = [], [], []
        for round_index in range(rounds):
            adds = [{"attributes": {"name": f"bench {i}"}, "geometry": {"x": i, "y": 1}} for i in range(20)]
            added = post(connection, f"{LAYER}/addFeatures", {"f": "json", "features": json.dumps(adds)})
            assert all(r["success"] for r in added["addResults"]), added

            def restore():
                started = time.perf_counter()
                answer = post(connection, "/_outpost/snapshots/start/restore", {"f": "json"})
                restores.append(time.perf_counter() - started)
                assert answer.get("restored") == "start", answer
                server_ms.append(answer["milliseconds"])

            def timed_floor():
                started = time.perf_counter()
                floor()
                floors.append(time.perf_counter() - started)

            for step in ([restore, timed_floor] if round_index % 2 == 0 else [timed_floor, restore]):
                step()
        loop.finish()
        count = json.loads(urllib_get(connection, f"{LAYER}/query?where=1%3D1&returnCountOnly=true&f=json"))["count"]
        result = {
            "restore_s": statistics.median(restores), "restore_server_ms": statistics.median(server_ms),
            "floor_s": statistics.median(floors), "ratio": statistics.median(restores) / statistics.median(floors),
            "queries_during": loop.answers, "query_errors": len(loop.errors), "count_after": count,
            "under_1s": statistics.median(restores) < 1.0,
        }
        print(f"{name}: restore {result['restore_s'] * 1000:.0f} ms (server {result['restore_server_ms']:.0f} ms), "
              f"floor {result['floor_s'] * 1000:.0f} ms, {result['ratio']:.1f}x; {loop.answers} queries meanwhile, "
              f"{len(loop.errors)} errors; {'PASS' if result['under_1s'] and not loop.errors else 'FAIL'} (< 1 s, no errors)")
        return result
    finally:
        process.terminate()
        process.wait()


def urllib_get(connection, path):
    connection.request("GET", path)
    return connection.getresponse().read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres", help="a database URL to use (its contents are replaced)")
    parser.add_argument("--port", type=int, default=55498)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="outpost-snapshot-bench-")
    os.chmod(work, 0o755)
    cluster = None
    results = {"machine": machine(), "binary": args.binary, "rounds": args.rounds}
    try:
        data = os.path.join(work, "spatialite")
        scratch = os.path.join(work, "copy.sqlite")
        results["spatialite"] = measure(
            "SpatiaLite", args.binary, data, [],
            lambda: subprocess.run(["cp", os.path.join(data, "outpost.sqlite"), scratch], check=True), args.rounds)
        url = args.postgres
        if not url:
            cluster = os.path.join(work, "cluster")
            url = subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "start", cluster, str(args.port)],
                                 check=True, capture_output=True, text=True).stdout.strip()
        pg_dump = sorted(p for p in (os.path.join(d, "pg_dump") for d in
                                     [os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")])
                         if os.path.exists(p))[-1]
        results["postgres"] = measure(
            "PostgreSQL", args.binary, os.path.join(work, "postgres"), ["--database", url],
            lambda: subprocess.run([pg_dump, "--data-only", "--dbname", url, "--file", "/dev/null"], check=True), args.rounds)
    finally:
        if cluster:
            subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "stop", cluster], check=False)
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(OUT, "snapshots.json"), "w") as f:
        json.dump(results, f, indent=2)
    ok = all(results[k]["under_1s"] and results[k]["query_errors"] == 0 for k in ("spatialite", "postgres"))
    print("snapshots:", "PASS" if ok else "FAIL")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
