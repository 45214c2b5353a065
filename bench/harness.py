"""What the benchmark scripts share: a free port, a fresh data folder of generated points, a
server that is ready, and the machine."""
import http.client
import json
import urllib.parse
import os
import platform
import shutil
import socket
import subprocess
import time


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
# A fresh clone has no bench/out (it is git-ignored): every benchmark writes there.
os.makedirs(OUT, exist_ok=True)


def imported_data(binary, folder, services):
    """A fresh data folder `bench/out/<folder>` with `services` imported: (name, point count,
    extra `outpost import` arguments) each, from generated GeoJSON kept between runs."""
    from run import generate  # run.py imports this module

    os.makedirs(OUT, exist_ok=True)
    data = os.path.join(OUT, folder)
    shutil.rmtree(data, ignore_errors=True)
    for name, count, *extra in services:
        source = os.path.join(OUT, f"points-{count}.geojson")
        if not os.path.exists(source):
            generate(source, count)
        subprocess.run([binary, "import", source, "--service", name, "--data", data, *extra], check=True, stdout=subprocess.DEVNULL)
    return data


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary, data, *extra, cwd=None):
    """Starts `outpost serve` and returns (process, port, keep-alive connection) once it answers."""
    port = free_port()
    process = subprocess.Popen([binary, "serve", "--data", data, "--port", str(port), "--log-level", "warning", *extra], cwd=cwd)
    deadline = time.time() + 60
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", "/arcgis/rest/info?f=json")
            connection.getresponse().read()
            return process, port, connection
        except OSError:
            if time.time() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("outpost did not start")
            time.sleep(0.2)


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, {platform.platform()}"


def post(connection, path, fields):
    """POSTs a form on a keep-alive connection and returns the JSON answer."""
    return json.loads(post_encoded(connection, path, urllib.parse.urlencode(fields)))


def post_encoded(connection, path, body):
    """POSTs an already encoded form and returns the answer's bytes: what a timed request
    measures (request to last byte), without the client's own encoding and decoding."""
    connection.request("POST", path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    return connection.getresponse().read()


def arguments(rounds=3):
    """`--binary` (the release build by default) and `--rounds`."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=rounds)
    return parser.parse_args()


def get_json(connection, path):
    """GET on a keep-alive connection, the answer as JSON."""
    connection.request("GET", path)
    return json.loads(connection.getresponse().read())
