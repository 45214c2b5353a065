#!/usr/bin/env python3
"""Packaging overhead (issue 21's goal: at most 20 %), rounds alternating which goes first, medians:
  1. SetupMapArea of an area holding a 1,000,000-point layer and 10,000 tiles, against the same
     createReplica (GeoPackage) and exportTiles done by hand over HTTP. The map area covers the
     world, so the replica holds every point and the package every tile of the generated set
     (level 7, 100 x 100 tiles of 16 KiB, bench/export_tiles.py). Each round packages a new area.
  2. RefreshMapAreaPackage of that 1,000,000-point package after 20,000 features changed, with
     a scheduled-update delta kept, against a device's copy of the same layer brought up to date
     by hand (`outpost replica sync --direction download`: synchronizeReplica, the download, the
     delta applied to the file). Both take the same 20,000 changes each round.
Usage: python3 bench/packaging.py [--binary PATH] [--rounds 3]. Writes bench/out/packaging.json.
"""
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from export_tiles import generate as generate_tiles
from harness import OUT, ROOT, arguments, get_json, imported_data, machine, post, start_server

WORLD = '{"xmin":-180,"ymin":-85,"xmax":180,"ymax":85,"spatialReference":{"wkid":4326}}'
GP = "/arcgis/rest/services/System/OfflinePackaging/GPServer"


def wait(connection, path):
    while True:
        status = get_json(connection, path)
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
    job = get_json(connection, "/arcgis/rest/services/Bench/MapServer/exportTiles?f=json&levels=7")["jobId"]
    wait(connection, f"/arcgis/rest/services/Bench/MapServer/exportTiles/jobs/{job}?f=json")
    return time.perf_counter() - started


def new_area(connection, map_id):
    job = post(connection, f"{GP}/CreateMapArea/submitJob", {"f": "json", "mapItemId": map_id, "areaType": "ENVELOPE", "area": WORLD,
                                                           "outputName": '{"title":"World"}'})["jobId"]
    wait(connection, f"{GP}/CreateMapArea/jobs/{job}?f=json")
    return get_json(connection, f"{GP}/CreateMapArea/jobs/{job}/results/mapAreaItemId?f=json")["value"]


def setup(connection, area, **extra):
    job = post(connection, f"{GP}/SetupMapArea/submitJob", {"f": "json", "mapAreaItemId": area, **extra})["jobId"]
    status = wait(connection, f"{GP}/SetupMapArea/jobs/{job}?f=json")
    packages = get_json(connection, f"{GP}/SetupMapArea/jobs/{job}/results/packages?f=json")["value"]
    assert [p["state"] for p in packages] == ["new", "new"], (packages, status)
    return packages


def packaged(connection, map_id):
    """SetupMapArea of a new area: the same two exports, made into items; the area is then
    deleted with its packages (an area packaged again would keep them: `unchanged`)."""
    area = new_area(connection, map_id)
    started = time.perf_counter()
    setup(connection, area)
    elapsed = time.perf_counter() - started
    assert post(connection, f"/arcgis/sharing/rest/content/users/outpost/items/{area}/delete", {"f": "json"})["success"]
    return elapsed


def change(connection, round_index):
    """20,000 features moved and revalued, a different 20,000 each round."""
    first = 100_001 + round_index * 20_000
    for start in range(first, first + 20_000, 10_000):
        updates = [{"attributes": {"OBJECTID": oid, "value": 700 + round_index}, "geometry": {"x": -179.5 + (oid % 359), "y": 1.5}}
                   for oid in range(start, start + 10_000)]
        answer = post(connection, "/arcgis/rest/services/Million/FeatureServer/0/applyEdits",
                      {"f": "json", "updates": json.dumps(updates), "rollbackOnFailure": "true"})
        assert all(r["success"] for r in answer["updateResults"]), answer.get("error")


def refreshed(connection, package):
    started = time.perf_counter()
    job = post(connection, f"{GP}/RefreshMapAreaPackage/submitJob", {"f": "json", "packages": json.dumps([{"itemId": package}])})["jobId"]
    wait(connection, f"{GP}/RefreshMapAreaPackage/jobs/{job}?f=json")
    elapsed = time.perf_counter() - started
    result = get_json(connection, f"{GP}/RefreshMapAreaPackage/jobs/{job}/results/result?f=json")["value"]
    assert [r["state"] for r in result] == ["updated"], result
    return elapsed


def synced_by_hand(binary, copy):
    started = time.perf_counter()
    subprocess.run([binary, "replica", "sync", copy, "--direction", "download"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def alternate(rounds, runs, times, before=None):
    for index in range(rounds):
        if before:
            before(index)
        order = list(runs) if index % 2 == 0 else list(reversed(runs))
        for which in order:
            elapsed = runs[which]()
            times[which].append(round(elapsed, 3))
            print(f"round {index + 1} {which}: {elapsed:.2f} s", flush=True)


def main():
    args = arguments()
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
    times = {"by_hand": [], "packaged": [], "refresh_by_hand": [], "refreshed": []}
    copy = os.path.join(OUT, "packaging-device.gpkg")
    try:
        alternate(args.rounds, {"by_hand": lambda: by_hand(connection), "packaged": lambda: packaged(connection, map_id)}, times)

        area = new_area(connection, map_id)
        packages = setup(connection, area, featureServices=json.dumps([{"url": f"http://127.0.0.1:{port}/arcgis/rest/services/Million/FeatureServer",
                                                                      "createPkgDeltas": {"maxDeltaAge": 5}}]))
        package = packages[0]["itemId"]
        if os.path.exists(copy):
            os.remove(copy)
        subprocess.run([args.binary, "replica", "create", f"http://127.0.0.1:{port}/arcgis/rest/services/Million/FeatureServer", "--out", copy,
                        "--layers", "0", "--no-attachments"], check=True, stdout=subprocess.DEVNULL)
        alternate(args.rounds, {"refresh_by_hand": lambda: synced_by_hand(args.binary, copy), "refreshed": lambda: refreshed(connection, package)},
                  {k: times[k] for k in ("refresh_by_hand", "refreshed")}, before=lambda index: change(connection, index))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(os.path.dirname(web_map), ignore_errors=True)
    hand, pack = statistics.median(times["by_hand"]), statistics.median(times["packaged"])
    hand_refresh, refresh = statistics.median(times["refresh_by_hand"]), statistics.median(times["refreshed"])
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds, "points": 1_000_000, "tiles": 10_000,
              "by_hand_seconds_median": hand, "packaged_seconds_median": pack, "overhead": round(pack / hand - 1, 3),
              "changed_features": 20_000, "refresh_by_hand_seconds_median": hand_refresh, "refreshed_seconds_median": refresh,
              "refresh_overhead": round(refresh / hand_refresh - 1, 3), "times": times}
    with open(os.path.join(OUT, "packaging.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != "times"}, indent=2))


if __name__ == "__main__":
    main()
