#!/usr/bin/env python3
"""exportTiles of 10,000 tiles against copying the same tile bytes into a zip, in the same run
(issue 20's goal: at most 2x). A generated raster set of 10,000 incompressible 16 KiB tiles
(level 7, a 100 x 100 block) is imported; each round times (a) `exportTiles` from submission
to `esriJobSucceeded`, polled every 10 ms, and (b) Python reading the same tiles from the
MBTiles and writing them as stored zip entries (`zipfile`, ZIP_STORED), alternating which goes
first. Figures are medians of the rounds.
Usage: python3 bench/export_tiles.py [--binary PATH] [--rounds 5]. Writes bench/out/export_tiles.json.
"""
import argparse
import json
import math
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
import zipfile

from harness import OUT, ROOT, machine, start_server

LEVEL, SIDE, TILE_BYTES = 7, 100, 16 * 1024


def tile_bounds(level, row, column):
    """West, south, east, north (degrees) of a tile."""
    n = 1 << level

    def latitude(y):
        return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / n))))

    return column / n * 360 - 180, latitude(row + 1), (column + 1) / n * 360 - 180, latitude(row)


def generate(path, tile_bytes=TILE_BYTES):
    """A raster MBTiles whose bounds are exactly its 100 x 100 block of level-7 tiles, each
    `tile_bytes` of incompressible bytes."""
    if os.path.exists(path):
        return
    first = 14
    west, _, _, north = tile_bounds(LEVEL, first, first)
    _, south, east, _ = tile_bounds(LEVEL, first + SIDE - 1, first + SIDE - 1)
    # Inside the block by a hair, so the edges' neighbours are not taken.
    inset = 1e-6
    rng = random.Random(20)
    with sqlite3.connect(path + ".partial") as db:
        db.executescript("CREATE TABLE metadata (name TEXT, value TEXT);"
                         "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);"
                         "CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);")
        metadata = {"name": "Bench", "format": "png", "minzoom": str(LEVEL), "maxzoom": str(LEVEL),
                    "bounds": f"{west + inset},{south + inset},{east - inset},{north - inset}"}
        db.executemany("INSERT INTO metadata VALUES (?, ?)", metadata.items())
        last = (1 << LEVEL) - 1
        db.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)",
                       ((LEVEL, column, last - row, rng.randbytes(tile_bytes))
                        for row in range(first, first + SIDE) for column in range(first, first + SIDE)))
    os.rename(path + ".partial", path)


def zip_baseline(mbtiles, target):
    """The same tiles read from the MBTiles and copied into a zip as stored entries."""
    started = time.perf_counter()
    with sqlite3.connect(mbtiles) as db, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for z, x, y, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
            archive.writestr(f"{z}/{x}/{y}.png", data)
    elapsed = time.perf_counter() - started
    os.remove(target)
    return elapsed


def export(connection, port):
    """Submits an export of level 7 and polls its status until it ends; returns (seconds, tiles)."""
    import http.client
    started = time.perf_counter()
    connection.request("GET", f"/arcgis/rest/services/Bench/MapServer/exportTiles?f=json&levels={LEVEL}")
    job = json.loads(connection.getresponse().read())["jobId"]
    while True:
        connection.request("GET", f"/arcgis/rest/services/Bench/MapServer/exportTiles/jobs/{job}?f=json")
        status = json.loads(connection.getresponse().read())
        if status["jobStatus"] in ("esriJobSucceeded", "esriJobFailed"):
            break
        time.sleep(0.01)
    elapsed = time.perf_counter() - started
    assert status["jobStatus"] == "esriJobSucceeded", status
    written = next(m["description"] for m in status["messages"] if m["description"].endswith("tiles written."))
    return elapsed, int(written.split()[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    source = os.path.join(OUT, "export-bench.mbtiles")
    generate(source)
    data = os.path.join(OUT, "export-data")
    shutil.rmtree(data, ignore_errors=True)
    subprocess.run([args.binary, "import", source, "--service", "Bench", "--data", data], check=True,
                   stdout=subprocess.DEVNULL)
    server, port, connection = start_server(args.binary, data, "--no-demo", "--result-file-idle-minutes", "1")
    work = tempfile.mkdtemp(prefix="outpost-export-bench-", dir=OUT)
    times = {"export": [], "zip": []}
    tiles = 0
    try:
        for index in range(args.rounds):
            order = ["export", "zip"] if index % 2 == 0 else ["zip", "export"]
            for which in order:
                if which == "export":
                    elapsed, tiles = export(connection, port)
                else:
                    elapsed = zip_baseline(source, os.path.join(work, "baseline.zip"))
                times[which].append(round(elapsed, 4))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    export_median, zip_median = statistics.median(times["export"]), statistics.median(times["zip"])
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds, "tiles": tiles,
              "tile_bytes": TILE_BYTES, "export_seconds_median": export_median, "zip_seconds_median": zip_median,
              "ratio_to_zip": round(export_median / zip_median, 3), "times": times}
    with open(os.path.join(OUT, "export_tiles.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != "times"}, indent=2))


if __name__ == "__main__":
    main()
