"""Operating it for years (issue 26): `outpost backup` while devices sync, `outpost restore`
into a new folder, and what a device that synced after the backup is told."""
import json
import os
import sqlite3
import subprocess
import threading
import urllib.parse
import urllib.request
import uuid

import pytest

from conftest import BACKEND, BINARY, running_server
from test_import_gdal import post

pytestmark = pytest.mark.skipif(BACKEND == "postgres", reason="a PostgreSQL database is backed up with its own tools (docs/operations.md, test_postgres_restore.py)")

CORNER = "13.2,52.4,13.26,52.46"


def new_id():
    return "{" + str(uuid.uuid4()).upper() + "}"


def create(service, name):
    answer = post(f"{service}/createReplica", {
        "f": "json", "layers": "2", "replicaName": name, "syncModel": "perLayer", "transportType": "esriTransportTypeEmbedded",
        "geometry": CORNER, "geometryType": "esriGeometryEnvelope", "inSR": "4326", "returnAttachments": "false"})
    return answer["replicaID"], answer["layerServerGens"][0]["serverGen"]


def sync(service, replica, generation, adds=()):
    edits = [{"id": 2, "features": {"adds": [
        {"attributes": {"GlobalID": gid, "species": "backup test"}, "geometry": {"x": 13.21, "y": 52.41}} for gid in adds]}}]
    return post(f"{service}/synchronizeReplica", {
        "f": "json", "replicaID": replica, "transportType": "esriTransportTypeEmbedded", "rollbackOnFailure": "true",
        "syncLayers": json.dumps([{"id": 2, "serverGen": generation, "syncDirection": "bidirectional"}]), "edits": json.dumps(edits)})


def has(service, global_id):
    query = urllib.parse.urlencode({"where": f"GlobalID = '{global_id}'", "returnCountOnly": "true", "f": "json"})
    with urllib.request.urlopen(f"{service}/2/query?{query}", timeout=30) as response:
        return json.loads(response.read())["count"] == 1


def test_a_backup_taken_while_devices_sync_restores_and_a_device_that_synced_later_is_told(tmp_path):
    data, backups, restored = str(tmp_path / "data"), str(tmp_path / "backups"), str(tmp_path / "restored")
    os.makedirs(data)
    with running_server(data) as root:
        service = f"{root}/rest/services/Demo/FeatureServer"
        early, early_gen = create(service, "early")
        before = new_id()
        early_gen = sync(service, early, early_gen, [before])["layerServerGens"][0]["serverGen"]

        # A second device syncs an add after another while the backup runs.
        busy, busy_gen = create(service, "busy")
        acknowledged, stop = [], threading.Event()

        def keep_syncing():
            generation = busy_gen
            while not stop.is_set():
                gid = new_id()
                answer = sync(service, busy, generation, [gid])
                assert answer["edits"][0]["addResults"][0]["success"], answer
                generation = answer["layerServerGens"][0]["serverGen"]
                acknowledged.append(gid)

        syncing = threading.Thread(target=keep_syncing)
        syncing.start()
        while len(acknowledged) < 5:
            stop.wait(0.05)
        acknowledged_before = list(acknowledged)
        printed = subprocess.run([BINARY, "backup", backups, "--data", data, "--keep", "3"], capture_output=True, text=True, timeout=300)
        stop.set()
        syncing.join(timeout=60)
        assert printed.returncode == 0, printed.stderr
        # The first device syncs once more, after the backup.
        after = new_id()
        late_gen = sync(service, early, early_gen, [after])["layerServerGens"][0]["serverGen"]

    folder = printed.stdout.split(":")[0]
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    assert manifest["generation"] > 0 and any(f["path"] == "outpost.sqlite" for f in manifest["files"])
    done = subprocess.run([BINARY, "restore", folder, "--data", restored], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "epoch 1" in done.stdout
    with sqlite3.connect(os.path.join(restored, "outpost.sqlite")) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    # The restore ran this build's migrations: nothing is left for `outpost migrate`.
    pending = subprocess.run([BINARY, "migrate", "--dry-run", "--data", restored], capture_output=True, text=True, timeout=120)
    assert pending.returncode == 0 and "up to date" in pending.stdout, pending.stdout + pending.stderr
    # Restoring over the folder just made is refused.
    again = subprocess.run([BINARY, "restore", folder, "--data", restored], capture_output=True, text=True, timeout=300)
    assert again.returncode != 0 and "already holds data" in again.stderr

    with running_server(restored) as root:
        service = f"{root}/rest/services/Demo/FeatureServer"
        assert has(service, before), "an edit acknowledged before the backup began is in it"
        assert all(has(service, gid) for gid in acknowledged_before)
        assert not has(service, after)
        # The device that synced after the backup holds a generation the restored server never
        # gave it: it is told so, and nothing is applied.
        refused = sync(service, early, late_gen, [new_id()])
        assert refused["error"]["code"] == 409 and refused["error"]["message"] == "Replica is ahead of the server.", refused
        assert "restored from a backup" in refused["error"]["details"][0]
        # From the generation the server remembers giving it, it syncs.
        assert "error" not in sync(service, early, early_gen)


def test_administration_commands_find_the_store_as_serve_does(tmp_path):
    """Left out, --data comes from OUTPOST_DATA or the OUTPOST_CONFIG file, as for `serve`: a
    command run in the server's container acts on the server's store (docs/configuration.md)."""
    data = str(tmp_path / "data")
    os.mkdir(data)
    with running_server(data):
        pass
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    config = tmp_path / "outpost.json"
    config.write_text(json.dumps({"data": data}))

    def backup(into, environment, *arguments):
        env = {key: value for key, value in os.environ.items() if not key.startswith("OUTPOST_")}
        return subprocess.run([BINARY, "backup", str(tmp_path / into), *arguments], capture_output=True, text=True, timeout=120,
                              cwd=elsewhere, env=dict(env, **environment))

    assert "holds no Outpost data" in backup("none", {}).stderr, "without a setting: ./outpost-data, which is empty here"
    assert backup("from-environment", {"OUTPOST_DATA": data}).returncode == 0
    assert backup("from-file", {"OUTPOST_CONFIG": str(config)}).returncode == 0
    # The command line beats both.
    refused = backup("overridden", {"OUTPOST_DATA": data}, "--data", str(elsewhere))
    assert refused.returncode != 0 and "holds no Outpost data" in refused.stderr
    # The database a server's environment names is the one the command would use.
    postgres = backup("postgres", {"OUTPOST_DATA": data, "OUTPOST_DATABASE": "postgres://outpost@127.0.0.1/outpost"})
    assert postgres.returncode != 0 and "pg_basebackup" in postgres.stderr
