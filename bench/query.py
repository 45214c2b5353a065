#!/usr/bin/env python3
"""The envelope query against PostGIS (issue 24): about 1,000 of 1,000,000 uniform points as
GeoJSON, three ways in one run, rounds rotating which goes first, medians:
  1. Outpost on its embedded SpatiaLite store, `f=geojson&outFields=*` over one keep-alive
     HTTP connection on loopback, request to last byte (what a client sees);
  2. Outpost on PostgreSQL + PostGIS, the same requests;
  3. PostGIS alone, with no HTTP: the same points in Outpost's own table of them (GiST index)
     and one prepared statement building the whole FeatureCollection in the database,
     `string_agg` of `ST_AsGeoJSON(row)`, run by pgbench (one session, loopback TCP, each
     transaction's latency logged), the boxes drawn the same way.
A throwaway PostgreSQL cluster is started on loopback (scripts/postgres.sh) and removed.
Usage: python3 bench/query.py [--binary PATH] [--queries N] [--rounds N]. Writes bench/out/query.json.
"""
import argparse
import glob
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.parse

from harness import OUT, ROOT, imported_data, machine, start_server

POINTS = 1_000_000
SIDE = (360 * 170 * 1000 / POINTS) ** 0.5  # a box of about 1,000 uniform points


def http_latencies(connection, service, queries, seed):
    """Milliseconds of `queries` envelope queries (after 20 warm-up ones) and their feature counts."""
    rng = random.Random(seed)
    latencies, counts = [], []
    for i in range(queries + 20):
        x = rng.uniform(-180, 180 - SIDE)
        y = rng.uniform(-85, 85 - SIDE)
        query = urllib.parse.urlencode({"geometry": f"{x},{y},{x + SIDE},{y + SIDE}", "geometryType": "esriGeometryEnvelope",
                                        "spatialRel": "esriSpatialRelIntersects", "inSR": "4326", "outFields": "*", "f": "geojson",
                                        "resultRecordCount": 2000})
        started = time.perf_counter()
        connection.request("GET", f"/arcgis/rest/services/{service}/FeatureServer/0/query?{query}")
        body = connection.getresponse().read()
        elapsed = time.perf_counter() - started
        if i >= 20:
            latencies.append(elapsed * 1000)
            counts.append(len(json.loads(body)["features"]))
    return latencies, counts


POSTGIS_SCRIPT = """\\set x random(-180000000, {xmax}) / 1000000.0
\\set y random(-85000000, {ymax}) / 1000000.0
SELECT '{{"type":"FeatureCollection","features":[' || coalesce(string_agg(ST_AsGeoJSON(f.*), ','), '') || ']}}'
FROM (SELECT "OBJECTID", "GlobalID", name, species, value, shape FROM {table}
      WHERE shape && ST_MakeEnvelope(:x, :y, :x + {side}, :y + {side}, 4326)) f;
"""


def postgis_latencies(bin_dir, url, table, queries, work):
    """Milliseconds of `queries` runs of the in-database statement (after 20 warm-up ones)."""
    script = os.path.join(work, "query.sql")
    with open(script, "w") as out:
        out.write(POSTGIS_SCRIPT.format(xmax=int((180 - SIDE) * 1e6), ymax=int((85 - SIDE) * 1e6), side=SIDE, table=table))
    pgbench = os.path.join(bin_dir, "pgbench")
    subprocess.run([pgbench, "-n", "-M", "prepared", "-t", "20", "-f", script, url], check=True, capture_output=True)
    for log in glob.glob(os.path.join(work, "pgbench_log*")):
        os.remove(log)
    subprocess.run([pgbench, "-n", "-M", "prepared", "-t", str(queries), "-l", "--log-prefix", os.path.join(work, "pgbench_log"),
                    "-f", script, url], check=True, capture_output=True, cwd=work)
    latencies = []
    for log in glob.glob(os.path.join(work, "pgbench_log*")):
        with open(log) as f:
            latencies += [int(line.split()[2]) / 1000 for line in f if line.strip()]
    return latencies


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=55498)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="outpost-query-bench-")
    os.chmod(work, 0o755)
    cluster = os.path.join(work, "cluster")
    script = os.path.join(ROOT, "scripts", "postgres.sh")
    bin_dir = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[4]))[-1]
    url = subprocess.run([script, "start", cluster, str(args.port)], check=True, capture_output=True, text=True).stdout.strip()
    servers = []
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "points": POINTS, "queries": args.queries}
    try:
        data = imported_data(args.binary, "query-data", [("Points", POINTS)])
        pg_data = os.path.join(work, "pg-data")
        subprocess.run([args.binary, "import", os.path.join(OUT, f"points-{POINTS}.geojson"), "--service", "Points",
                        "--database", url, "--data", pg_data], check=True, stdout=subprocess.DEVNULL)
        table = subprocess.run([os.path.join(bin_dir, "psql"), "-tA", url, "-c", "SELECT table_name FROM outpost_layers WHERE service = 'Points'"],
                               check=True, capture_output=True, text=True).stdout.strip()
        subprocess.run([os.path.join(bin_dir, "psql"), "-q", url, "-c", f'VACUUM ANALYZE "{table}"'], check=True)
        lite, _, lite_connection = start_server(args.binary, data, "--no-demo", cwd=ROOT)
        servers.append(lite)
        pg, _, pg_connection = start_server(args.binary, pg_data, "--no-demo", "--database", url, cwd=ROOT)
        servers.append(pg)
        figures = {"outpost_spatialite_http": [], "outpost_postgres_http": [], "postgis_in_database": []}
        counts = []
        steps = [
            ("outpost_spatialite_http", lambda r: http_latencies(lite_connection, "Points", args.queries, 7 + r)),
            ("outpost_postgres_http", lambda r: http_latencies(pg_connection, "Points", args.queries, 7 + r)),
            ("postgis_in_database", lambda r: (postgis_latencies(bin_dir, url, f'"{table}"', args.queries, work), None)),
        ]
        for run in range(args.rounds):
            for name, step in steps[run % 3:] + steps[:run % 3]:
                latencies, found = step(run)
                figures[name].append(statistics.median(latencies))
                if found:
                    counts += found
                print(f"round {run + 1} {name}: median {figures[name][-1]:.2f} ms", flush=True)
        for name, medians in figures.items():
            results[name + "_ms"] = {"median": round_to(statistics.median(medians)), "rounds": [round_to(m) for m in medians]}
        results["features_median"] = statistics.median(counts)
        base = statistics.median(figures["postgis_in_database"])
        results["ratio_spatialite_http_to_postgis"] = round_to(statistics.median(figures["outpost_spatialite_http"]) / base)
        results["ratio_postgres_http_to_postgis"] = round_to(statistics.median(figures["outpost_postgres_http"]) / base)
    finally:
        for server in servers:
            server.terminate()
            server.wait()
        subprocess.run([script, "stop", cluster], check=False)
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(OUT, "query.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


def round_to(value):
    return round(value, 2)


if __name__ == "__main__":
    main()
