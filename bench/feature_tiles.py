#!/usr/bin/env python3
"""Feature tiles as the Maps SDK for JavaScript asks for them (issue 44), against the plain
query of the same envelope in the same run: 1,000,000 uniform points on the embedded
SpatiaLite store, one keep-alive HTTP connection on loopback, request to last byte; rounds
rotate which goes first; medians.
  1. `tile`: one Web Mercator tile per request, `resultType=tile`, `maxRecordCountFactor=3`,
     `returnExceededLimitFeatures=false`, view-mode `quantizationParameters` at the zoom's
     resolution, `outSR=102100`, `f=json`, `outFields=OBJECTID`;
  2. `plain` (the peer): the same envelope and fields without the tile parameters;
at zoom 6 (a few hundred points a tile), and at zoom 2, where every tile is over the limit:
the tile query answers nothing (the client splits it) where the plain one sends a full page.
Figures: latency and bytes of `tile` over `plain` at each zoom.
Usage: python3 bench/feature_tiles.py [--binary PATH] [--rounds N] [--tiles N]. Writes bench/out/feature_tiles.json.
"""
import argparse
import json
import math
import os
import random
import statistics
import time
import urllib.parse

from harness import OUT, ROOT, imported_data, machine, start_server

POINTS = 1_000_000
HALF = 20037508.342789244  # half the Web Mercator world, metres


def tile_envelope(zoom, row, column):
    size = 2 * HALF / 2**zoom
    xmin = -HALF + column * size
    ymax = HALF - row * size
    return xmin, ymax - size, xmin + size, ymax


def query(zoom, row, column, tiled):
    xmin, ymin, xmax, ymax = tile_envelope(zoom, row, column)
    fields = {"f": "json", "where": "1=1", "outFields": "OBJECTID", "returnGeometry": "true", "outSR": "102100", "inSR": "102100",
              "geometry": json.dumps({"xmin": xmin, "ymin": ymin, "xmax": xmax, "ymax": ymax}),
              "geometryType": "esriGeometryEnvelope", "spatialRel": "esriSpatialRelIntersects"}
    if tiled:
        resolution = (xmax - xmin) / 512
        fields.update({
            "resultType": "tile", "maxRecordCountFactor": "3", "returnExceededLimitFeatures": "false",
            "quantizationParameters": json.dumps({"mode": "view", "originPosition": "upperLeft", "tolerance": resolution,
                                                  "extent": {"xmin": xmin, "ymin": ymin, "xmax": xmax, "ymax": ymax,
                                                             "spatialReference": {"wkid": 102100}}})})
    return "/arcgis/rest/services/Points/FeatureServer/0/query?" + urllib.parse.urlencode(fields)


def latencies(connection, paths):
    """Milliseconds and bytes of each request (after a warm-up pass)."""
    for path in paths[:10]:
        connection.request("GET", path)
        connection.getresponse().read()
    times, sizes = [], []
    for path in paths:
        started = time.perf_counter()
        connection.request("GET", path)
        body = connection.getresponse().read()
        times.append((time.perf_counter() - started) * 1000)
        sizes.append(len(body))
    return times, sizes


def tiles_inside(zoom, count, seed):
    """`count` random tiles of `zoom` inside the points' latitudes (±85°)."""
    rng = random.Random(seed)
    limit = int(2**zoom * (1 - math.log(math.tan(math.radians(85)) + 1 / math.cos(math.radians(85))) / math.pi) / 2) + 1
    return [(rng.randrange(limit, 2**zoom - limit), rng.randrange(2**zoom)) for _ in range(count)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tiles", type=int, default=100)
    args = parser.parse_args()
    data = imported_data(args.binary, "feature-tiles-data", [("Points", POINTS)])
    server, _, connection = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "points": POINTS, "tiles": args.tiles}
    try:
        for zoom in (6, 2):
            tiles = tiles_inside(zoom, args.tiles if zoom > 2 else 16, zoom)
            paths = {kind: [query(zoom, row, column, kind == "tile") for row, column in tiles] for kind in ("tile", "plain")}
            medians = {"tile": [], "plain": []}
            sizes = {}
            for run in range(args.rounds):
                order = ["tile", "plain"] if run % 2 == 0 else ["plain", "tile"]
                for kind in order:
                    times, sizes[kind] = latencies(connection, paths[kind])
                    medians[kind].append(statistics.median(times))
                    print(f"zoom {zoom} round {run + 1} {kind}: median {medians[kind][-1]:.2f} ms, {statistics.median(sizes[kind]):.0f} bytes",
                          flush=True)
            tile, plain = statistics.median(medians["tile"]), statistics.median(medians["plain"])
            results[f"zoom{zoom}"] = {
                "tile_ms": round(tile, 2), "plain_ms": round(plain, 2), "ratio_tile_to_plain": round(tile / plain, 3),
                "tile_bytes_median": statistics.median(sizes["tile"]), "plain_bytes_median": statistics.median(sizes["plain"]),
                "ratio_bytes": round(statistics.median(sizes["tile"]) / statistics.median(sizes["plain"]), 3),
            }
    finally:
        server.terminate()
        server.wait()
    with open(os.path.join(OUT, "feature_tiles.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
