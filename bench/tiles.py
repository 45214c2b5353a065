#!/usr/bin/env python3
"""Tile requests per second from Outpost's MapServer and VectorTileServer against nginx
serving the same tiles as static files, in the same run (issue 20's goal: at least 0.5×
nginx). Load: `wrk`, 2 threads, 8 keep-alive connections, 10 s, each request a random tile
of levels 0-5. Rounds alternate which server goes first; figures are medians of the rounds.
Needs `wrk` and `nginx` (apt: wrk nginx-light) and a release build.
Usage: python3 bench/tiles.py [--binary PATH] [--rounds 3]. Writes bench/out/tiles.json.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
import urllib.request

from harness import free_port, machine, start_server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
SETS = [("raster", "demo-raster.mbtiles", "DemoBasemap/MapServer", "png"),
        ("vector", "demo-vector.mbtiles", "DemoVectorBasemap/VectorTileServer", "pbf")]


def export_static(mbtiles, folder, extension):
    """Every tile of the file as `{z}/{y}/{x}.<extension>` (rows from the top), and the addresses."""
    addresses = []
    with sqlite3.connect(mbtiles) as db:
        for z, x, tms, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
            y = (1 << z) - 1 - tms
            if not (0 <= x < (1 << z) and 0 <= y < (1 << z)):
                continue
            os.makedirs(os.path.join(folder, str(z), str(y)), exist_ok=True)
            with open(os.path.join(folder, str(z), str(y), f"{x}.{extension}"), "wb") as f:
                f.write(data)
            addresses.append((z, y, x))
    return addresses


def wrk_script(path, urls):
    with open(path, "w") as f:
        f.write("local paths = {" + ",".join(f'"{u}"' for u in urls) + "}\n")
        f.write("math.randomseed(7)\nrequest = function() return wrk.format('GET', paths[math.random(#paths)]) end\n")


def run_wrk(port, script):
    output = subprocess.run(["wrk", "-t2", "-c8", "-d10s", "-s", script, f"http://127.0.0.1:{port}"],
                            capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    assert errors is None, output
    return rate


def start_nginx(root, port, work):
    config = os.path.join(work, "nginx.conf")
    with open(config, "w") as f:
        f.write(f"""worker_processes auto; daemon off; pid {work}/nginx.pid; error_log {work}/error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; keepalive_requests 100000;
  types {{ image/png png; application/x-protobuf pbf; }}
  server {{ listen 127.0.0.1:{port}; root {root}; location ~ \\.pbf$ {{ add_header Content-Encoding gzip; }} }} }}
""")
    process = subprocess.Popen(["nginx", "-c", config, "-p", work])
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        except urllib.error.HTTPError:
            return process
        except OSError:
            time.sleep(0.1)
    return process


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="outpost-tiles-bench-")
    os.chmod(work, 0o755)  # nginx's workers run as another user
    static = os.path.join(work, "static")
    scripts = {}
    for kind, file, service, extension in SETS:
        addresses = export_static(os.path.join(ROOT, "testdata", file), os.path.join(static, kind), extension)
        suffix = ".pbf" if extension == "pbf" else ""
        scripts[(kind, "outpost")] = os.path.join(work, f"{kind}-outpost.lua")
        wrk_script(scripts[(kind, "outpost")], [f"/arcgis/rest/services/{service}/tile/{z}/{y}/{x}{suffix}" for z, y, x in addresses])
        scripts[(kind, "nginx")] = os.path.join(work, f"{kind}-nginx.lua")
        wrk_script(scripts[(kind, "nginx")], [f"/{kind}/{z}/{y}/{x}.{extension}" for z, y, x in addresses])

    data = os.path.join(OUT, "tiles-data")
    shutil.rmtree(data, ignore_errors=True)
    server, port, connection = start_server(args.binary, data, cwd=ROOT)
    connection.close()
    nginx_port = free_port()
    nginx = start_nginx(static, nginx_port, work)
    rates = {key: [] for key in scripts}
    try:
        for index in range(args.rounds):
            order = ["outpost", "nginx"] if index % 2 == 0 else ["nginx", "outpost"]
            for kind, _, _, _ in SETS:
                for who in order:
                    rates[(kind, who)].append(run_wrk(port if who == "outpost" else nginx_port, scripts[(kind, who)]))
    finally:
        server.terminate()
        nginx.terminate()
        server.wait()
        nginx.wait()
        shutil.rmtree(work, ignore_errors=True)
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds}
    for kind, _, _, _ in SETS:
        outpost, static_rate = statistics.median(rates[(kind, "outpost")]), statistics.median(rates[(kind, "nginx")])
        result[f"{kind}_outpost_requests_per_second"] = round(outpost)
        result[f"{kind}_nginx_requests_per_second"] = round(static_rate)
        result[f"{kind}_ratio_to_nginx"] = round(outpost / static_rate, 3)
        result[f"{kind}_rounds"] = {"outpost": rates[(kind, "outpost")], "nginx": rates[(kind, "nginx")]}
    with open(os.path.join(OUT, "tiles.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if not k.endswith("_rounds")}, indent=2))


if __name__ == "__main__":
    main()
