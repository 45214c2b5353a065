#!/usr/bin/env python3
"""Taking a web map offline (issue 22's goal: at most 1.2x the requests made directly): a map of
a 100,000-point layer and a 10,000-tile raster set (level 7, 16 KiB tiles, bench/export_tiles.py),
taken offline for the whole world with `outpost map take-offline` (the client library's
OfflineMapTask: portal reads, one createReplica and one exportTiles job, each polled and
downloaded in ranges, map.json, package.json and the QGIS project written), against the same
createReplica and exportTiles made directly over HTTP and their files downloaded, in the same
run, rounds alternating which goes first, medians. Client memory: the CLI's peak RSS for this
map (about 190 MB of files) against a map of 10,000 points and no tiles (about 2 MB) and, once
per run, a map ten times the size (1,000,000 points and the same 10,000 tiles at 160 KiB each,
about 1.9 GB of files): flat in the package size means the last no larger than the first.
Usage: python3 bench/offline_map.py [--binary PATH] [--rounds 3]. Writes bench/out/offline_map.json.
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
LEVEL_7_SCALE = 4622324.434309


def download(connection, url, path):
    """The file streamed to disk, as a client would."""
    connection.request("GET", url[url.index("/arcgis"):])
    response = connection.getresponse()
    with open(path, "wb") as out:
        while chunk := response.read(1 << 20):
            out.write(chunk)


def directly(connection, folder):
    """createReplica (async, polled) and its file, then exportTiles (a job, polled) and its package."""
    started = time.perf_counter()
    answer = post(connection, "/arcgis/rest/services/Big/FeatureServer/createReplica", {
        "f": "json", "layers": "0", "dataFormat": "sqlite", "geometry": WORLD, "geometryType": "esriGeometryEnvelope", "inSR": 4326,
        "syncModel": "perLayer", "syncDirection": "bidirectional", "returnAttachments": "false", "attachmentsSyncDirection": "none",
        "transportType": "esriTransportTypeUrl", "async": "true", "replicaName": f"direct-{time.time_ns()}"})
    status_url = answer["statusUrl"]
    while True:
        status = get_json(connection, status_url[status_url.index("/arcgis"):] + "?f=json")
        if status["status"] in ("Completed", "Failed"):
            assert status["status"] == "Completed", status
            break
        time.sleep(0.02)
    download(connection, status["resultUrl"], os.path.join(folder, "replica.gpkg"))
    job = post(connection, "/arcgis/rest/services/Bench/MapServer/exportTiles",
               {"f": "json", "levels": "7", "exportBy": "LevelID", "tilePackage": "true", "storageFormat": "MBTiles"})["jobId"]
    while True:
        status = get_json(connection, f"/arcgis/rest/services/Bench/MapServer/exportTiles/jobs/{job}?f=json")
        if status["jobStatus"] in ("esriJobSucceeded", "esriJobFailed"):
            assert status["jobStatus"] == "esriJobSucceeded", status
            break
        time.sleep(0.02)
    output = get_json(connection, f"/arcgis/rest/services/Bench/MapServer/exportTiles/jobs/{job}/results/out_service_url?f=json")["value"]
    listing = get_json(connection, output[output.index("/arcgis"):] + "?f=json")
    download(connection, listing["files"][0]["url"], os.path.join(folder, "tiles.mbtiles"))
    return time.perf_counter() - started


def taken_offline(binary, port, map_id, folder, *extra):
    """`outpost map take-offline`: seconds and the process's peak RSS (MiB)."""
    started = time.perf_counter()
    process = subprocess.Popen([binary, "map", "take-offline", map_id, "--server", f"http://127.0.0.1:{port}/arcgis", "--area=-180,-85,180,85",
                                "--out", folder, *extra], stdout=subprocess.DEVNULL)
    _, code, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    assert code == 0, code
    return elapsed, usage.ru_maxrss / 1024


def add_map(binary, data, title, layers, basemap):
    """A web map of `layers` (feature services) over the tile service `basemap` (or none)."""
    path = os.path.join(tempfile.mkdtemp(), "map.json")
    with open(path, "w") as f:
        json.dump({"operationalLayers": [{"id": name, "url": f"/arcgis/rest/services/{name}/FeatureServer/0"} for name in layers],
                   "baseMap": {"baseMapLayers": [{"id": basemap, "url": f"/arcgis/rest/services/{basemap}/MapServer"}] if basemap else [],
                               "title": basemap or "none"}}, f)
    item = subprocess.run([binary, "webmap", "add", path, "--title", title, "--offline", "--data", data],
                          check=True, capture_output=True, text=True).stdout.strip()
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    return item


def main():
    args = arguments()
    tiles = os.path.join(OUT, "export-bench.mbtiles")
    generate_tiles(tiles)
    heavy_tiles = os.path.join(OUT, "export-bench-160k.mbtiles")
    generate_tiles(heavy_tiles, tile_bytes=160 * 1024)
    data = imported_data(args.binary, "offline-map-data", [("Big", 100_000), ("Small", 10_000), ("Huge", 1_000_000)])
    subprocess.run([args.binary, "import", tiles, "--service", "Bench", "--data", data], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([args.binary, "import", heavy_tiles, "--service", "Heavy", "--data", data], check=True, stdout=subprocess.DEVNULL)
    big = add_map(args.binary, data, "Big map", ["Big"], basemap="Bench")
    small = add_map(args.binary, data, "Small map", ["Small"], basemap=None)
    huge = add_map(args.binary, data, "Huge map", ["Huge"], basemap="Heavy")
    server, port, connection = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    scratch = tempfile.mkdtemp(prefix="outpost-offline-bench-")
    times = {"directly": [], "offline_map": []}
    memory = {"big": [], "small": [], "huge": []}
    try:
        for index in range(args.rounds):
            order = ["directly", "offline_map"] if index % 2 == 0 else ["offline_map", "directly"]
            for which in order:
                folder = os.path.join(scratch, f"{which}-{index}")
                if which == "directly":
                    os.makedirs(folder)
                    elapsed = directly(connection, folder)
                else:
                    elapsed, rss = taken_offline(args.binary, port, big, folder, "--min-scale", str(LEVEL_7_SCALE))
                    memory["big"].append(round(rss, 1))
                times[which].append(round(elapsed, 3))
                shutil.rmtree(folder, ignore_errors=True)
                print(f"round {index + 1} {which}: {elapsed:.2f} s", flush=True)
            _, rss = taken_offline(args.binary, port, small, os.path.join(scratch, f"small-{index}"))
            memory["small"].append(round(rss, 1))
        folder = os.path.join(scratch, "huge")
        elapsed, rss = taken_offline(args.binary, port, huge, folder, "--min-scale", str(LEVEL_7_SCALE))
        size = sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(folder) for name in names)
        memory["huge"].append(round(rss, 1))
        print(f"huge map: {size / 1e9:.2f} GB in {elapsed:.1f} s, peak RSS {rss:.0f} MiB", flush=True)
        shutil.rmtree(folder, ignore_errors=True)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    direct, offline = statistics.median(times["directly"]), statistics.median(times["offline_map"])
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds, "points": 100_000, "tiles": 10_000,
              "directly_seconds_median": direct, "offline_map_seconds_median": offline, "ratio": round(offline / direct, 3),
              "peak_rss_mib_median": {k: statistics.median(v) for k, v in memory.items()}, "huge_map_bytes": size,
              "times": times, "memory": memory}
    with open(os.path.join(OUT, "offline_map.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k not in ("times", "memory")}, indent=2))


if __name__ == "__main__":
    main()
