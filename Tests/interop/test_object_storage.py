"""Object storage (docs/postgres.md, "Object storage"): processes on one PostgreSQL database,
each with a data folder of its own, share attachments, uploads and result files through one
S3-compatible bucket (`rclone serve s3`, which checks every request's signature, on loopback).
What one process writes another serves; no process's folder holds a shared file; an old
object no row names is swept by the one process that starts; a SpatiaLite data folder moves
into PostgreSQL with its files put in the bucket."""
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import BACKEND, BINARY, DATABASES_LOCK, DEMO_AREA_PACKAGES, DEMO_FEATURE_SERVICES, ROOT, free_port, made_database, outpost, \
    running_server

pytestmark = pytest.mark.skipif(BACKEND != "postgres", reason="object storage goes with PostgreSQL: runs in the PostgreSQL pass")

RCLONE = os.path.join(ROOT, ".venv", "bin", "rclone")
KEY, SECRET = "outpost-access", "outpost-secret"


@contextlib.contextmanager
def bucket(folder):
    """`rclone serve s3` over `folder` (bucket `outpost`); yields the `--object-store` URL."""
    os.makedirs(os.path.join(folder, "outpost"), exist_ok=True)
    port = free_port()
    process = subprocess.Popen([RCLONE if os.path.exists(RCLONE) else "rclone", "serve", "s3", folder, "--auth-key", f"{KEY},{SECRET}",
                                "--addr", f"127.0.0.1:{port}", "--config", "/dev/null"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except urllib.error.HTTPError:
                break  # answered (an unsigned request is refused): it is up
            except OSError:
                assert time.time() < deadline, "rclone serve s3 did not start"
                time.sleep(0.1)
        yield f"http://{KEY}:{SECRET}@127.0.0.1:{port}/outpost"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def database(tag):
    with DATABASES_LOCK:
        return made_database(f"object-storage-{tag}-{time.time_ns()}")


def multipart(url, fields, files):
    boundary = "----outpost-object-storage"
    body = b""
    for name, value in fields.items():
        body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
    for name, (filename, data) in files.items():
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n"
                 "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    return json.loads(urllib.request.urlopen(request, timeout=60).read())


def post(url, fields):
    return json.loads(urllib.request.urlopen(url, data=urllib.parse.urlencode(fields).encode(), timeout=60).read())


def get(url):
    return urllib.request.urlopen(url, timeout=60).read()


def on(base, url):
    """`url` asked of the server at `base` instead (the other process)."""
    path = urllib.parse.urlsplit(url)
    return base.split("/arcgis")[0] + path.path + (f"?{path.query}" if path.query else "")


def shared_files(folder):
    """Files of the kinds processes share that a data folder holds."""
    found = []
    for kind in ("attachments", "uploads", "replicafiles"):
        for parent, _, names in os.walk(os.path.join(folder, kind)):
            found += [os.path.join(parent, name) for name in names if not name.startswith(".")]
    return found


def test_processes_with_folders_of_their_own_share_files_through_the_bucket(tmp_path):
    folders = {name: str(tmp_path / name) for name in ("a", "b", "c", "s3")}
    for folder in folders.values():
        os.makedirs(folder, exist_ok=True)
    url = database("shared")
    with bucket(folders["s3"]) as store:
        shared = ["--database", url, "--object-store", store]
        with running_server(folders["a"], *shared) as a, running_server(folders["b"], *shared, "--no-demo") as b:
            layer = "/rest/services/Demo/FeatureServer/0"
            photo = os.urandom(150_000)
            added = multipart(f"{a}{layer}/10/addAttachment", {"f": "json"}, {"attachment": ("photo.jpg", photo)})
            attachment = added["addAttachmentResult"]["objectId"]
            assert get(f"{b}{layer}/10/attachments/{attachment}") == photo, "served by the other process"

            # An upload in two parts sent to different processes, committed by one, taken by the other.
            item = post(f"{a}/rest/services/Demo/FeatureServer/uploads/register", {"f": "json", "itemName": "scan.bin"})["item"]["itemID"]
            halves = os.urandom(70_000), os.urandom(30_000)
            multipart(f"{a}/rest/services/Demo/FeatureServer/uploads/{item}/uploadPart", {"f": "json", "partId": "1"}, {"file": ("1", halves[0])})
            multipart(f"{b}/rest/services/Demo/FeatureServer/uploads/{item}/uploadPart", {"f": "json", "partId": "2"}, {"file": ("2", halves[1])})
            committed = post(f"{b}/rest/services/Demo/FeatureServer/uploads/{item}/commit", {"f": "json"})
            assert committed["item"]["committed"] is True, committed
            taken = post(f"{a}{layer}/11/addAttachment", {"f": "json", "uploadId": item})
            scan = taken["addAttachmentResult"]["objectId"]
            assert get(f"{b}{layer}/11/attachments/{scan}") == halves[0] + halves[1]

            # A replica made by a job of either process, its file served by the other.
            created = post(f"{a}/rest/services/Demo/FeatureServer/createReplica", {
                "f": "json", "layers": "0", "replicaName": "bucket", "transportType": "esriTransportTypeUrl", "async": "true",
                "dataFormat": "sqlite", "returnAttachments": "true", "syncModel": "perLayer",
                "layerQueries": json.dumps({"0": {"where": "OBJECTID IN (10, 11)", "queryOption": "useFilter"}})})
            deadline = time.time() + 120
            while True:
                status = json.loads(get(on(b, created["statusUrl"] + "?f=json")))
                if status["status"] in ("Completed", "Failed") or time.time() > deadline:
                    break
                time.sleep(0.2)
            assert status["status"] == "Completed", status
            replica = tmp_path / "replica.gpkg"
            replica.write_bytes(get(on(b, status["resultUrl"])))
            blobs = set()
            with sqlite3.connect(replica) as db:
                tables = [row[0] for row in db.execute("SELECT table_name FROM gpkg_contents")]
                for table in tables:
                    for (column, kind) in [(r[1], r[2]) for r in db.execute(f'PRAGMA table_info("{table}")')]:
                        if kind.upper() == "BLOB":
                            blobs |= {row[0] for row in db.execute(f'SELECT "{column}" FROM "{table}"') if isinstance(row[0], bytes)}
            assert photo in blobs and halves[0] + halves[1] in blobs, "the replica carries both attachments"

            assert shared_files(folders["a"]) == [] and shared_files(folders["b"]) == []
            objects = os.listdir(os.path.join(folders["s3"], "outpost"))
            assert {"attachments", "replicafiles"} <= set(objects), objects

    # An object no row names, an hour and more old, goes when a process starts; named ones stay.
    # (Put in the bucket's folder while no rclone runs: rclone lists what it started with.)
    orphan = os.path.join(folders["s3"], "outpost", "attachments", "orphan.bin")
    with open(orphan, "wb") as file:
        file.write(b"left by an edit that never committed")
    os.utime(orphan, (time.time() - 7200, time.time() - 7200))
    named = len(os.listdir(os.path.join(folders["s3"], "outpost", "attachments"))) - 1
    with bucket(folders["s3"]) as store, running_server(folders["c"], "--database", url, "--object-store", store, "--no-demo") as c:
        assert get(f"{c}{layer}/10/attachments/{attachment}") == photo
    assert not os.path.exists(orphan)
    assert len(os.listdir(os.path.join(folders["s3"], "outpost", "attachments"))) == named


def test_a_map_area_packaged_through_the_bucket_is_downloaded_from_another_process(tmp_path):
    """The packager's GeoPackages are result files (in the bucket) that it then takes into the
    package items; `items/` and `tiles/` are the one folder processes share (as
    docs/operations.md sets them up: a link in each data folder)."""
    folders = {name: str(tmp_path / name) for name in ("a", "b", "s3", "items", "tiles")}
    for folder in folders.values():
        os.makedirs(folder, exist_ok=True)
    for own in ("a", "b"):
        for kind in ("items", "tiles"):
            os.symlink(folders[kind], os.path.join(folders[own], kind))
    url = database("areas")
    with bucket(folders["s3"]) as store:
        shared = ["--database", url, "--object-store", store]
        with running_server(folders["a"], *shared) as a, running_server(folders["b"], *shared, "--no-demo") as b:
            created = outpost("areas", "create", "de3000000000000000000000000000a1", "--extent", "5,45,20,56", "--title", "Bucket",
                              "--server", a).stdout.splitlines()
            assert sorted(line.split("\t")[0] for line in created[1:]) == ["new"] * DEMO_AREA_PACKAGES, created
            device = tmp_path / "device"
            listed = outpost("areas", "download", created[0], "--to", str(device), "--server", b).stdout.splitlines()
            assert sorted(line.split("\t")[1] for line in listed) == ["Compact Tile Package"] + ["GeoPackage"] * len(DEMO_FEATURE_SERVICES)
            for name in os.listdir(device):
                if name.endswith(".gpkg"):
                    with sqlite3.connect(device / name) as db:
                        assert db.execute("SELECT count(*) FROM gpkg_contents").fetchone()[0] > 0, name
            assert shared_files(folders["a"]) == [] and shared_files(folders["b"]) == []
            left = os.path.join(folders["s3"], "outpost", "replicafiles")
            assert not os.path.exists(left) or os.listdir(left) == [], "each packaged file was taken out of the bucket"


def test_a_data_folder_moves_into_postgresql_with_its_files_in_the_bucket(tmp_path):
    folder, served = str(tmp_path / "spatialite"), str(tmp_path / "served")
    os.makedirs(served)
    subprocess.run([BINARY, "import",
                    os.path.join(ROOT, "testdata", "naturalearth_cities.geojson"), "--service", "Cities", "--attachments", "--data", folder],
                   check=True, capture_output=True)
    photo = os.urandom(40_000)
    # The attachment is added on SpatiaLite (the server started without the pass's --database).
    port = free_port()
    server = subprocess.Popen([BINARY, "serve", "--data", folder, "--port", str(port), "--no-demo"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}/arcgis"
        deadline = time.time() + 60
        while True:
            try:
                get(f"{base}/rest/info?f=json")
                break
            except OSError:
                assert time.time() < deadline
                time.sleep(0.2)
        added = multipart(f"{base}/rest/services/Cities/FeatureServer/0/5/addAttachment", {"f": "json"}, {"attachment": ("p.jpg", photo)})
        attachment = added["addAttachmentResult"]["objectId"]
    finally:
        server.terminate()
        server.wait(timeout=10)
    url = database("moved")
    with bucket(str(tmp_path / "s3")) as store:
        moved = subprocess.run([BINARY, "migrate-to-postgres", folder, url, "--object-store", store], capture_output=True, text=True)
        assert moved.returncode == 0, moved.stdout + moved.stderr
        assert "put 1 attachment and upload files" in moved.stdout and SECRET not in moved.stdout, moved.stdout
        shutil.rmtree(folder)  # the folder's copies are not what is served
        with running_server(served, "--database", url, "--object-store", store, "--no-demo") as base:
            assert get(f"{base}/rest/services/Cities/FeatureServer/0/5/attachments/{attachment}") == photo
