"""The test target's front door with the real binary (docs/testing-your-app.md): off unless
`serve --test-target`; when on, a loud warning in the log, and `--port 0 --ready-file F` writes
the address once the server answers."""
import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from conftest import BINARY, ROOT, on_backend, running_server


def status_of(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_without_test_target_the_control_api_is_not_there():
    with running_server() as base:
        root = base.rsplit("/arcgis", 1)[0]
        for path in ["/_outpost/clock", "/_outpost/", "/_outpost/page.js", "/_outpost/faults", "/_outpost/journal"]:
            status, _ = status_of(root + path + "?f=json")
            assert status == 404, path
        request = urllib.request.Request(root + "/_outpost/clock/advance", data=b"hours=25&f=json", method="POST")
        assert status_of(request)[0] == 404
        # The server itself answers as usual.
        assert status_of(base + "/rest/info?f=json")[0] == 200


def test_test_target_warns_and_writes_the_ready_file_once_it_answers():
    data = tempfile.mkdtemp(prefix="outpost-door-")
    ready = os.path.join(data, "ready", "url")
    os.makedirs(os.path.dirname(ready))
    arguments = on_backend([BINARY, "serve", "--data", data, "--testdata", os.path.join(ROOT, "testdata"),
                            "--port", "0", "--test-target", "--ready-file", ready])
    log_path = os.path.join(data, "server.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.time() + 60
            while not os.path.exists(ready):
                assert process.poll() is None, open(log_path, errors="replace").read()
                assert time.time() < deadline, "no ready file: " + open(log_path, errors="replace").read()
                time.sleep(0.05)
            url = open(ready).read().strip()
            assert url.startswith("http://127.0.0.1:") and int(url.rsplit(":", 1)[1]) > 0, url
            # Asked at once, with no retry: the file was written after the server answered.
            status, body = status_of(url + "/_outpost/clock?f=json")
            assert status == 200, body
            clock = json.loads(body)
            assert clock["offset"] == 0 and abs(clock["now"] - time.time() * 1000) < 10_000
            assert status_of(url + "/arcgis/rest/info?f=json")[0] == 200
            warnings = [line for line in open(log_path, errors="replace") if "TEST TARGET" in line]
            assert warnings and "/_outpost" in warnings[0] and "warning" in warnings[0].lower(), open(log_path, errors="replace").read()
        finally:
            process.terminate()
            process.wait(timeout=10)
