#!/usr/bin/env python3
"""Outpost replica benchmarks over HTTP on loopback (release build):
  1. createReplica dataFormat=sqlite of a 1,000,000-point layer (GeoPackage with R-tree),
     synchronous, until the answer names the file; the server's peak RSS meanwhile;
  2. the same rows copied into a plain SQLite file (CREATE TABLE AS SELECT, no index) in the
     same run, as the baseline of the ratio; and the floor of SQLite's own work for any
     GeoPackage of them: the rows copied into the table's shape (INTEGER PRIMARY KEY, the
     geometry copied as it is, no conversion) and the unique GlobalID index built; the three
     alternating with the order rotated;
  3. createReplica of a 100,000-point layer as embedded JSON (request to last byte).
Usage: python3 bench/replicas.py [--binary PATH] [--runs N]. Writes bench/out/replicas.json.
"""
import argparse
import http.client
import json
import os
import sqlite3
import statistics
import threading
import time
import urllib.parse

from harness import OUT, ROOT, imported_data, machine, start_server



def post(connection, path, fields):
    connection.request("POST", path, body=urllib.parse.urlencode(fields), headers={"Content-Type": "application/x-www-form-urlencoded"})
    return connection.getresponse().read()


def rss_kib(pid, key="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = imported_data(args.binary, "replica-data", [("Million", 1_000_000), ("Hundred", 100_000)])

    server, port, c = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d")}
    try:
        # 1. GeoPackage replica of a million points, with the server's memory sampled.
        baseline_rss = rss_kib(server.pid)
        peak = [baseline_rss]
        sampling = [True]

        def sample():
            while sampling[0] and server.poll() is None:
                peak[0] = max(peak[0], rss_kib(server.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        table = sqlite3.connect(os.path.join(data, "outpost.sqlite")).execute(
            "SELECT table_name FROM outpost_layers WHERE service = 'Million'").fetchone()[0]

        def replica(run):
            started = time.perf_counter()
            answer = json.loads(post(c, "/arcgis/rest/services/Million/FeatureServer/createReplica", {
                "f": "json", "layers": "0", "dataFormat": "sqlite", "replicaName": f"bench{run}", "syncModel": "perLayer"}))
            sqlite_times.append(time.perf_counter() - started)
            assert "URL" in answer, answer
            file = os.path.join(data, "replicafiles", answer["URL"].rsplit("/", 1)[1])
            sizes.append(os.path.getsize(file))
            with sqlite3.connect(file) as check:
                table = check.execute("SELECT table_name FROM outpost_sync_layers").fetchone()[0]
                assert check.execute(f'SELECT count(*) FROM "rtree_{table}_shape"').fetchone()[0] == 1_000_000
            os.remove(file)
            print(f"sqlite replica run {run + 1}: {sqlite_times[-1]:.2f} s, {sizes[-1] / 2**20:.0f} MiB", flush=True)

        def copy(run):
            # 2. Baseline: the same rows copied into a plain SQLite file, no index, no triggers.
            target = os.path.join(OUT, "plain-copy.sqlite")
            if os.path.exists(target):
                os.remove(target)
            connection = sqlite3.connect(os.path.join(data, "outpost.sqlite"))
            started = time.perf_counter()
            connection.execute("ATTACH ? AS copy", (target,))
            connection.execute(f"CREATE TABLE copy.rows AS SELECT OBJECTID, GlobalID, name, species, value, shape FROM {table}")
            connection.commit()
            connection.close()
            copy_times.append(time.perf_counter() - started)
            print(f"plain SQLite copy run {run + 1}: {copy_times[-1]:.2f} s", flush=True)

        def floor(run):
            # The floor: SQLite filling a GeoPackage-shaped table and its unique GlobalID index,
            # with no geometry conversion, no R-tree and no trigger.
            target = os.path.join(OUT, "floor.sqlite")
            if os.path.exists(target):
                os.remove(target)
            connection = sqlite3.connect(os.path.join(data, "outpost.sqlite"))
            connection.execute("ATTACH ? AS copy", (target,))
            connection.execute("PRAGMA copy.journal_mode = OFF")
            connection.execute("PRAGMA copy.synchronous = OFF")
            connection.execute("CREATE TABLE copy.rows (OBJECTID INTEGER PRIMARY KEY AUTOINCREMENT, GlobalID TEXT(38), name TEXT, "
                               "species TEXT, value INTEGER, shape POINT)")
            connection.commit()
            started = time.perf_counter()
            connection.execute(f"INSERT INTO copy.rows SELECT OBJECTID, GlobalID, name, species, value, shape FROM {table} ORDER BY OBJECTID")
            connection.execute("CREATE UNIQUE INDEX copy.rows_globalid ON rows(GlobalID)")
            connection.commit()
            floor_times.append(time.perf_counter() - started)
            connection.close()
            os.remove(target)
            print(f"SQLite floor run {run + 1}: {floor_times[-1]:.2f} s", flush=True)

        # The three alternate, each run rotating which goes first (the machine is shared and noisy).
        sqlite_times, sizes, copy_times, floor_times = [], [], [], []
        steps = [replica, copy, floor]
        for run in range(args.runs):
            for step in steps[run % 3:] + steps[:run % 3]:
                step(run)
        sampling[0] = False
        sampler.join()
        peak_hwm = rss_kib(server.pid, "VmHWM")

        # 3. Embedded JSON replica of 100,000 points.
        json_times = []
        for run in range(max(5, args.runs)):
            started = time.perf_counter()
            body = post(c, "/arcgis/rest/services/Hundred/FeatureServer/createReplica", {
                "f": "json", "layers": "0", "transportType": "esriTransportTypeEmbedded", "replicaName": f"json{run}"})
            json_times.append(time.perf_counter() - started)
            document = json.loads(body)
            assert len(document["layers"][0]["features"]) == 100_000
            print(f"embedded JSON replica run {run + 1}: {json_times[-1]:.3f} s, {len(body) / 2**20:.1f} MiB", flush=True)

        sqlite_median = statistics.median(sqlite_times)
        copy_median = statistics.median(copy_times)
        results.update({
            "sqlite_replica_1m_seconds_median": round(sqlite_median, 2),
            "sqlite_replica_1m_seconds_runs": [round(t, 2) for t in sqlite_times],
            "sqlite_replica_1m_file_mib": round(statistics.median(sizes) / 2**20, 1),
            "plain_sqlite_copy_seconds_median": round(copy_median, 2),
            "ratio_to_plain_copy": round(sqlite_median / copy_median, 2),
            "sqlite_floor_seconds_median": round(statistics.median(floor_times), 2),
            "floor_ratio_to_plain_copy": round(statistics.median(floor_times) / copy_median, 2),
            "server_rss_mib_before": round(baseline_rss / 1024, 1),
            "server_rss_mib_peak_sampled": round(peak[0] / 1024, 1),
            "server_rss_mib_peak_hwm": round(peak_hwm / 1024, 1),
            "json_replica_100k_seconds_median": round(statistics.median(json_times), 3),
            "json_replica_100k_seconds_runs": [round(t, 3) for t in json_times],
        })
    finally:
        server.terminate()
        server.wait()
    with open(os.path.join(OUT, "replicas.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
