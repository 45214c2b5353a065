"""Admin commands against a running server's data folder (docs/operations.md):
`outpost replicas list|unregister --idle-days N` and `outpost compact`."""
import json
import re
import tempfile
import urllib.parse
import urllib.request

from conftest import outpost, running_server

CORNER = "13.2,52.4,13.26,52.46"


def call(base, path, **fields):
    body = urllib.parse.urlencode({"f": "json", **fields}).encode()
    return json.loads(urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer{path}", data=body, timeout=60).read())


def create(base, name):
    return call(base, "/createReplica", replicaName=name, layers="2", geometry=CORNER, geometryType="esriGeometryEnvelope", inSR="4326",
                transportType="esriTransportTypeEmbedded", syncModel="perLayer")


def test_idle_replicas_are_listed_and_unregistered_and_compact_keeps_what_replicas_need():
    data = tempfile.mkdtemp(prefix="outpost-admin-")
    with running_server(data) as base:
        kept = create(base, "kept")
        other = create(base, "other")
        # Deletes in the corner, after both replicas were made: tombstones they need.
        ids = call(base, "/2/query", where="1=1", geometry=CORNER, geometryType="esriGeometryEnvelope", inSR="4326",
                   returnIdsOnly="true")["objectIds"][:3]
        assert len(ids) == 3
        assert all(r["success"] for r in call(base, "/2/deleteFeatures", objectIds=",".join(map(str, ids)))["deleteResults"])

        listed = outpost("replicas", "list", "--data", data).stdout
        assert kept["replicaID"] in listed and other["replicaID"] in listed
        assert outpost("replicas", "unregister", "--data", data, "--idle-days", "1").stdout.strip().endswith("0 replica(s) unregistered")
        assert "--idle-days" in outpost("replicas", "unregister", "--data", data, check=False).stderr

        # Compact now: both replicas still need the tombstones.
        assert "removed 0 tombstone(s)" in outpost("compact", "--data", data).stdout
        answer = call(base, "/synchronizeReplica", replicaID=kept["replicaID"], transportType="esriTransportTypeEmbedded",
                      syncLayers=json.dumps([{"id": 2, "serverGen": kept["layerServerGens"][0]["serverGen"], "syncDirection": "download"}]))
        assert len(answer["edits"][0]["features"]["deleteIds"]) == 3

        # Everything idle for "0 days" (older than now) goes; a dry run first changes nothing.
        dry = outpost("replicas", "unregister", "--data", data, "--idle-days", "0", "--dry-run").stdout
        assert dry.strip().endswith("2 replica(s) would be unregistered")
        assert len(call(base, "/replicas")) == 2
        assert outpost("replicas", "unregister", "--data", data, "--idle-days", "0").stdout.strip().endswith("2 replica(s) unregistered")
        assert call(base, "/replicas") == []

        # No replica needs the tombstones any more.
        removed = int(re.search(r"removed (\d+) tombstone", outpost("compact", "--data", data).stdout).group(1))
        assert removed >= 3
        # The server goes on: a new replica syncs.
        fresh = create(base, "fresh")
        answer = call(base, "/synchronizeReplica", replicaID=fresh["replicaID"], transportType="esriTransportTypeEmbedded",
                      syncLayers=json.dumps([{"id": 2, "serverGen": fresh["layerServerGens"][0]["serverGen"]}]))
        assert "error" not in answer


def start(arguments, env, data):
    """Starts `outpost serve` and returns (process, log path) once it logged its configuration."""
    import os
    import subprocess
    import time
    from conftest import BINARY
    log = os.path.join(data, "serve.log")
    process = subprocess.Popen([BINARY, "serve", *arguments], stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                               env={**os.environ, **env})
    deadline = time.time() + 60
    while time.time() < deadline:
        if "Outpost serving" in open(log, errors="replace").read() or process.poll() is not None:
            break
        time.sleep(0.1)
    return process, log


def test_settings_come_from_the_command_line_then_the_environment_then_the_file():
    import os
    from conftest import ROOT, free_port
    data = tempfile.mkdtemp(prefix="outpost-config-")
    env_port, file_port = free_port(), free_port()
    config = os.path.join(data, "outpost.json")
    with open(config, "w") as f:
        json.dump({"port": file_port, "max-jobs": 3, "tls-key": "/secret/key.pem", "tls-cert": "/secret/cert.pem", "log-level": "error",
                   "testdata": os.path.join(ROOT, "testdata"), "data": data}, f)
    # The environment beats the file (port, max-jobs); the command line beats both (log-level).
    process, log = start(["--config", config, "--log-level", "info"], {"OUTPOST_PORT": str(env_port), "OUTPOST_MAX_JOBS": "4", "OUTPOST_LOG_LEVEL": "warning"}, data)
    try:
        text = open(log).read()
        assert f"port={env_port} (environment)" in text, text
        assert "max-jobs=4 (environment)" in text and "log-level=info (command line)" in text
        assert "tls-key=<redacted> (file)" in text and "/secret/key.pem" not in text
        assert "tls-cert=/secret/cert.pem (file)" in text
    finally:
        process.kill()
        process.wait()
    # A bad value names its key and layer and stops the start.
    process, log = start(["--data", data], {"OUTPOST_PORT": "eighty"}, data)
    process.wait(timeout=30)
    assert process.returncode != 0 and "port must be a whole number, got 'eighty' (environment)" in open(log).read()
    # An unknown key in the file is refused too.
    with open(config, "w") as f:
        json.dump({"prot": 1}, f)
    process, log = start(["--config", config], {}, data)
    process.wait(timeout=30)
    assert process.returncode != 0 and "unknown key 'prot'" in open(log).read()


def test_json_logs_give_one_object_per_request_with_its_id_operation_replica_and_counts():
    import os
    from conftest import ROOT, free_port
    data = tempfile.mkdtemp(prefix="outpost-logs-")
    port = free_port()
    process, log = start(["--data", data, "--port", str(port), "--testdata", os.path.join(ROOT, "testdata")],
                         {"OUTPOST_LOG_FORMAT": "json"}, data)
    try:
        base = f"http://127.0.0.1:{port}/arcgis"
        import time
        for _ in range(200):  # "Outpost serving" is logged just before the port is bound
            try:
                urllib.request.urlopen(f"{base}/rest/info?f=json", timeout=2).read()
                break
            except OSError:
                time.sleep(0.05)
        replica = create(base, "logged")
        request = urllib.request.Request(f"{base}/rest/services/Demo/FeatureServer/synchronizeReplica", headers={"X-Request-Id": "field-7"},
                                         data=urllib.parse.urlencode({
                                             "f": "json", "replicaID": replica["replicaID"], "transportType": "esriTransportTypeEmbedded",
                                             "syncLayers": json.dumps([{"id": 2, "serverGen": replica["layerServerGens"][0]["serverGen"]}]),
                                             "edits": json.dumps([{"id": 2, "features": {"adds": [
                                                 {"attributes": {"species": "logged"}, "geometry": {"x": 13.22, "y": 52.42}}]}}])}).encode())
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.headers["X-Request-Id"] == "field-7"
        lines = [json.loads(line) for line in open(log) if line.startswith("{")]
        assert lines and all({"time", "level", "label", "message"} <= set(line) for line in lines)
        assert any(line["message"].startswith("Configuration: ") and "log-format=json (environment)" in line["message"] for line in lines)
        sync = [line for line in lines if line.get("request_id") == "field-7"]
        assert len(sync) == 1, sync
        entry = sync[0]
        assert entry["message"] == "request" and entry["operation"] == "synchronizeReplica" and entry["status"] == "200"
        assert entry["replica_id"] == replica["replicaID"] and entry["edits"] == "1" and float(entry["duration_ms"]) > 0
    finally:
        process.kill()
        process.wait()
