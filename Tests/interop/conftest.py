"""Real Outpost servers on loopback for the interop tests (seeded demo data)."""
import contextlib
import os
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("OUTPOST_BIN", os.path.join(ROOT, ".build", "debug", "outpost"))

UNVERIFIED = ssl.create_default_context()
UNVERIFIED.check_hostname = False
UNVERIFIED.verify_mode = ssl.CERT_NONE


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(data=None, *extra, tls=False):
    """Starts `outpost serve` on a free port, waits until it answers, yields `<scheme>://host:port/arcgis`."""
    data = data or tempfile.mkdtemp(prefix="outpost-interop-")
    port = free_port()
    arguments = [BINARY, "serve", "--data", data, "--port", str(port), "--testdata", os.path.join(ROOT, "testdata"), *extra]
    if tls:
        arguments.append("--self-signed")
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}/arcgis"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/rest/info?f=json", timeout=2, context=UNVERIFIED if tls else None).read()
                break
            except OSError:
                if process.poll() is not None or time.time() > deadline:
                    output = process.stdout.read().decode() if process.stdout and process.poll() is not None else ""
                    raise RuntimeError(f"outpost did not start:\n{output}")
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def server():
    with running_server() as base:
        yield f"{base}/rest"


@pytest.fixture(scope="session")
def tls_server():
    """HTTPS with a self-signed certificate: the ArcGIS API for Python talks HTTPS only."""
    with running_server(tls=True) as base:
        yield base
