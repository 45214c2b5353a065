"""A real Outpost server on loopback for the interop tests (seeded demo data)."""
import os
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    binary = os.environ.get("OUTPOST_BIN", os.path.join(ROOT, ".build", "debug", "outpost"))
    data = tempfile.mkdtemp(prefix="outpost-interop-")
    port = free_port()
    process = subprocess.Popen(
        [binary, "serve", "--data", data, "--port", str(port), "--testdata", os.path.join(ROOT, "testdata")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/arcgis/rest"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"{base}/info?f=json", timeout=2).read()
            break
        except OSError:
            if process.poll() is not None or time.time() > deadline:
                output = process.stdout.read().decode() if process.stdout else ""
                process.kill()
                raise RuntimeError(f"outpost did not start:\n{output}")
            time.sleep(0.2)
    yield base
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def tls_server():
    """A server on HTTPS with a self-signed certificate: the ArcGIS API for Python talks HTTPS only."""
    binary = os.environ.get("OUTPOST_BIN", os.path.join(ROOT, ".build", "debug", "outpost"))
    data = tempfile.mkdtemp(prefix="outpost-tls-")
    port = free_port()
    process = subprocess.Popen(
        [binary, "serve", "--data", data, "--port", str(port), "--self-signed", "--testdata", os.path.join(ROOT, "testdata")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    import ssl
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    base = f"https://127.0.0.1:{port}/arcgis"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"{base}/rest/info?f=json", timeout=2, context=context).read()
            break
        except OSError:
            if process.poll() is not None or time.time() > deadline:
                output = process.stdout.read().decode() if process.stdout else ""
                process.kill()
                raise RuntimeError(f"outpost (TLS) did not start:\n{output}")
            time.sleep(0.2)
    yield base
    process.terminate()
    process.wait(timeout=10)
