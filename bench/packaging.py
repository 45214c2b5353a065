#!/usr/bin/env python3
"""Packaging overhead (issue 21's goal: at most 20 %): SetupMapArea of an area holding a
1,000,000-point layer and 10,000 tiles, against the same createReplica (GeoPackage) and
exportTiles done by hand over HTTP in the same run, rounds alternating which goes first,
medians. The map area covers the world, so the replica holds every point and the package
every tile of the generated set (level 7, 100 x 100 tiles of 16 KiB, bench/export_tiles.py).
Usage: python3 bench/packaging.py [--binary PATH] [--rounds 3]. Writes bench/out/packaging.json.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from export_tiles import generate as generate_tiles
from harness import OUT, ROOT, imported_data, machine, post, start_server

WORLD = '{"xmin":-180,"ymin":-85,"xmax":180,"ymax":85,"spatialReference":{"wkid":4326}}'
GP = "/arcgis/rest/services/System/OfflinePackaging/GPServer"


def get(connection, path):
    connection.request("GET", path)
    return json.loads(connection.getresponse().read())


def wait(connection, path):
    while True:
        status = get(connection, path)
        state = status.get("jobStatus") or status.get("status")
        if state in ("esriJobSucceeded", "esriJobFailed", "Completed", "Failed"):
            assert state in ("esriJobSucceeded", "Completed"), status
            return status
        time.sleep(0.02)


def by_hand(connection):
    """The packager's two requests, made by a client: createReplica, then exportTiles."""
    started = time.perf_counter()
    answer = post(connection, "/arcgis/rest/services/Million/FeatureServer/createReplica", {
        "f": "json", "layers": "0", "dataFormat": "sqlite", "geometry": WORLD, "geometryType": "esriGeometryEnvelope", "inSR": 4326,
        "syncModel": "perLayer", "syncDirection": "bidirectional", "returnAttachments": "false", "attachmentsSyncDirection": "none",
        "transportType": "esriTransportTypeUrl", "async": "false", "replicaName": f"hand-{time.time_ns()}"})
    assert "URL" in answer, answer
    job = get(connection, "/arcgis/rest/services/Bench/MapServer/exportTiles?f=json&levels=7")["jobId"]
    wait(connection, f"/arcgis/rest/services/Bench/MapServer/exportTiles/jobs/{job}?f=json")
    return time.perf_counter() - started


def packaged(connection, area):
    """SetupMapArea of the area: the same two exports, made into items."""
    started = time.perf_counter()
    job = post(connection, f"{GP}/SetupMapArea/submitJob", {"f": "json", "mapAreaItemId": area})["jobId"]
    status = wait(connection, f"{GP}/SetupMapArea/jobs/{job}?f=json")
    elapsed = time.perf_counter() - started
    packages = get(connection, f"{GP}/SetupMapArea/jobs/{job}/results/packages?f=json")["value"]
    assert [p["state"] for p in packages] == ["new", "new"], (packages, status)
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tiles = os.path.join(OUT, "export-bench.mbtiles")
    generate_tiles(tiles)
    data = imported_data(args.binary, "packaging-data", [("Million", 1_000_000)])
    subprocess.run([args.binary, "import", tiles, "--service", "Bench", "--data", data], check=True, stdout=subprocess.DEVNULL)
    web_map = os.path.join(tempfile.mkdtemp(), "map.json")
    with open(web_map, "w") as f:
        json.dump({"operationalLayers": [{"url": "/arcgis/rest/services/Million/FeatureServer/0"}],
                   "baseMap": {"baseMapLayers": [{"url": "/arcgis/rest/services/Bench/MapServer"}], "title": "Bench"}}, f)
    map_id = subprocess.run([args.binary, "webmap", "add", web_map, "--title", "Bench map", "--offline", "--data", data],
                            check=True, capture_output=True, text=True).stdout.strip()
    server, port, connection = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    times = {"by_hand": [], "packaged": []}
    try:
        job = post(connection, f"{GP}/CreateMapArea/submitJob", {"f": "json", "mapItemId": map_id, "areaType": "ENVELOPE", "area": WORLD,
                                                               "outputName": '{"title":"World"}'})["jobId"]
        wait(connection, f"{GP}/CreateMapArea/jobs/{job}?f=json")
        area = get(connection, f"{GP}/CreateMapArea/jobs/{job}/results/mapAreaItemId?f=json")["value"]
        for index in range(args.rounds):
            order = ["by_hand", "packaged"] if index % 2 == 0 else ["packaged", "by_hand"]
            for which in order:
                elapsed = by_hand(connection) if which == "by_hand" else packaged(connection, area)
                times[which].append(round(elapsed, 3))
                print(f"round {index + 1} {which}: {elapsed:.2f} s", flush=True)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(os.path.dirname(web_map), ignore_errors=True)
    hand, pack = statistics.median(times["by_hand"]), statistics.median(times["packaged"])
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds, "points": 1_000_000, "tiles": 10_000,
              "by_hand_seconds_median": hand, "packaged_seconds_median": pack, "overhead": round(pack / hand - 1, 3), "times": times}
    with open(os.path.join(OUT, "packaging.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != "times"}, indent=2))


if __name__ == "__main__":
    main()
