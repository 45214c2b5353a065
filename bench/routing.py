#!/usr/bin/env python3
"""Routing (issue 49's figures): a generated street grid of about 100,000 edges around Berlin
(seeded speeds, one street in seven one-way) is imported, built into a network
(`outpost network create`, timed) and solved over HTTP on loopback between seeded random
junctions (median and p95 of a solve by Length, directions off, and with directions). The peer
in the same run: pgRouting's `pgr_dijkstra` inside PostgreSQL over the same edges with the same
costs (metres), one persistent psql session, `\\timing` per query. Every pair's lengths must
agree (Outpost's Total_Length against pgr_dijkstra's agg_cost) within a millimetre per
kilometre: the benchmark is also a cross-check of the engine.

Needs Debian's postgresql-15-pgrouting (apt-get install postgresql-15-pgrouting) and the
release build (`swift build -c release --product outpost`).
Usage: python3 bench/routing.py [--binary PATH] [--side 224] [--solves 60]. Writes
bench/out/routing.json.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.parse

from harness import OUT, ROOT, machine, start_server

STEP = 0.001
ORIGIN = (13.2, 52.4)
RADIUS = 6378137.0


def mercator(lon, lat):
    return lon * math.pi / 180 * RADIUS, math.log(math.tan(math.pi / 4 + lat * math.pi / 360)) * RADIUS


def metres(a, b):
    """Outpost's length of a segment: Web Mercator distance scaled at its middle."""
    (ax, ay), (bx, by) = mercator(*a), mercator(*b)
    middle_lat = (2 * math.atan(math.exp((ay + by) / 2 / RADIUS)) - math.pi / 2)
    return math.hypot(bx - ax, by - ay) * max(math.cos(middle_lat), 0.01)


def grid(side, seed=49):
    """Junctions on a side × side grid; edges between neighbours: (id, a, b, oneway, kmh)."""
    rng = random.Random(seed)
    point = lambda i, j: (round(ORIGIN[0] + i * STEP, 7), round(ORIGIN[1] + j * STEP, 7))
    edges = []
    for j in range(side):
        for i in range(side - 1):
            edges.append((len(edges) + 1, (i, j), (i + 1, j), "FT" if j % 7 == 3 else "", rng.choice([30, 50, 50, 70])))
    for i in range(side):
        for j in range(side - 1):
            edges.append((len(edges) + 1, (i, j), (i, j + 1), "", rng.choice([30, 50, 50, 70])))
    return point, edges


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--side", type=int, default=224)
    parser.add_argument("--solves", type=int, default=60)
    parser.add_argument("--port", type=int, default=55497)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="outpost-routing-bench-")
    os.chmod(work, 0o755)
    point, edges = grid(args.side)
    geojson = os.path.join(work, "streets.geojson")
    with open(geojson, "w") as out:
        json.dump({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"NAME": f"Street {a[1]}" if a[1] == b[1] else f"Avenue {a[0]}", "ONEWAY": oneway, "KMH": kmh},
             "geometry": {"type": "LineString", "coordinates": [point(*a), point(*b)]}} for _, a, b, oneway, kmh in edges]}, out)
    data = os.path.join(work, "data")
    os.makedirs(data)
    subprocess.run([args.binary, "import", geojson, "--service", "Streets", "--data", data], check=True, capture_output=True)
    began = time.perf_counter()
    subprocess.run([args.binary, "network", "create", "--name", "Grid", "--service", "Streets", "--layer", "0", "--field", "name=NAME",
                    "--field", "oneway=ONEWAY", "--field", "speed=KMH", "--data", data], check=True, capture_output=True)
    build_seconds = time.perf_counter() - began

    rng = random.Random(7)
    pairs = [((rng.randrange(args.side), rng.randrange(args.side)), (rng.randrange(args.side), rng.randrange(args.side))) for _ in range(args.solves)]
    outpost = solve_outpost(args.binary, data, point, pairs)
    cluster = os.path.join(work, "cluster")
    script = os.path.join(ROOT, "scripts", "postgres.sh")
    url = subprocess.run([script, "start", cluster, str(args.port)], check=True, capture_output=True, text=True).stdout.strip()
    try:
        peer = solve_pgrouting(url, work, args.side, point, edges, pairs)
    finally:
        subprocess.run([script, "stop", cluster], check=False, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)

    disagreements = [(p, o, g) for p, o, g in zip(pairs, outpost["lengths"], peer["lengths"]) if abs(o - g) > max(g, 1) * 1e-6]
    result = {"machine": machine(), "edges": len(edges), "junctions": args.side ** 2, "solves": args.solves, "build_s": build_seconds}
    for name, times in (("outpost_length", outpost["plain"]), ("outpost_directions", outpost["directions"]), ("pgr_dijkstra", peer["times"])):
        ordered = sorted(times)
        result[name] = {"median_ms": statistics.median(times) * 1000, "p95_ms": ordered[int(len(ordered) * 0.95) - 1] * 1000}
    result["ratio_median"] = result["outpost_length"]["median_ms"] / result["pgr_dijkstra"]["median_ms"]
    result["disagreements"] = len(disagreements)
    print(f"{len(edges)} edges: network built in {build_seconds:.2f} s")
    for name in ("outpost_length", "outpost_directions", "pgr_dijkstra"):
        print(f"{name:20} median {result[name]['median_ms']:8.2f} ms   p95 {result[name]['p95_ms']:8.2f} ms")
    print(f"Outpost over HTTP / pgr_dijkstra in the database (medians): {result['ratio_median']:.2f}x; {len(disagreements)} length disagreements")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "routing.json"), "w") as out:
        json.dump(result, out, indent=1)
    if disagreements:
        raise SystemExit(f"lengths disagree: {disagreements[:5]}")


def solve_outpost(binary, data, point, pairs):
    process, port, connection = start_server(binary, data, "--no-demo")
    try:
        path = "/arcgis/rest/services/Grid/NAServer/Route/solve"
        lengths, plain, directions = [], [], []
        for a, b in pairs[:3]:  # warm-up: the first solve loads the network
            connection.request("GET", f"{path}?{urllib.parse.urlencode(query(point, a, b, False))}")
            connection.getresponse().read()
        for a, b in pairs:
            for with_directions, times in ((False, plain), (True, directions)):
                began = time.perf_counter()
                connection.request("GET", f"{path}?{urllib.parse.urlencode(query(point, a, b, with_directions))}")
                answer = json.loads(connection.getresponse().read())
                times.append(time.perf_counter() - began)
            length = answer.get("routes", {}).get("features", [{}])[0].get("attributes", {}).get("Total_Length")
            lengths.append(length if length is not None else -1.0)
        return {"lengths": lengths, "plain": plain, "directions": directions}
    finally:
        process.terminate()
        process.wait()


def query(point, a, b, directions):
    (ax, ay), (bx, by) = point(*a), point(*b)
    return {"f": "json", "stops": f"{ax},{ay};{bx},{by}", "impedanceAttributeName": "Length",
            "returnDirections": "true" if directions else "false"}


def solve_pgrouting(url, work, side, point, edges, pairs):
    """The same edges and costs in a table, then pgr_dijkstra per pair in one psql session."""
    node = lambda i, j: j * side + i + 1
    rows = os.path.join(work, "edges.csv")
    with open(rows, "w") as out:
        for identifier, a, b, oneway, _ in edges:
            cost = metres(point(*a), point(*b))
            out.write(f"{identifier},{node(*a)},{node(*b)},{cost!r},{-1 if oneway == 'FT' else cost!r}\n")
    setup = (f"CREATE EXTENSION IF NOT EXISTS pgrouting CASCADE;\nCREATE TABLE edges (id bigint PRIMARY KEY, source bigint, target bigint, cost float8, reverse_cost float8);\n"
             f"\\copy edges FROM '{rows}' WITH (FORMAT csv)\nANALYZE edges;\n")
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q"], input=setup, text=True, check=True, capture_output=True)
    script = "\\timing on\n" + "".join(
        f"SELECT coalesce(max(agg_cost + cost), 0) FROM pgr_dijkstra('SELECT id, source, target, cost, reverse_cost FROM edges', {node(*a)}, {node(*b)}, true);\n"
        for a, b in pairs[:3] + pairs)
    output = subprocess.run(["psql", url, "-A", "-t", "-v", "ON_ERROR_STOP=1"], input=script, text=True, check=True, capture_output=True).stdout
    values = [float(line) for line in output.splitlines() if re.fullmatch(r"-?[0-9.e+]+", line.strip())]
    times = [float(t) / 1000 for t in re.findall(r"Time: ([0-9.]+) ms", output)]
    return {"lengths": values[3:], "times": times[3:]}


if __name__ == "__main__":
    main()
