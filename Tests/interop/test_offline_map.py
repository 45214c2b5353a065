"""`outpost map capabilities|take-offline` against a running server: the demo web map taken
offline into a folder that GDAL opens without Outpost (docs/offline-map-format.md)."""
import json
import os
import sqlite3
import subprocess
import urllib.parse
import urllib.error
import urllib.request

from conftest import DEMO_AREA_PACKAGES, DEMO_FEATURE_SERVICES, DEMO_OFFLINE_FILES, outpost, running_server

DEMO_MAP = "de3000000000000000000000000000a1"


def test_the_demo_map_goes_offline_into_a_folder_gdal_opens(tmp_path):
    with running_server() as base:
        where = ["--server", base, "--area", "5,45,20,56"]
        capabilities = outpost("map", "capabilities", DEMO_MAP, *where).stdout.splitlines()
        assert capabilities and all(line.split("\t")[1] == "offline" for line in capabilities), capabilities
        folder = tmp_path / "demo-offline"
        taken = outpost("map", "take-offline", DEMO_MAP, *where, "--max-scale", "36978595.47", "--out", str(folder))
        assert taken.stdout.strip().endswith(str(folder)) and "map: 100%" in taken.stdout, taken.stdout
        assert "not taken" not in taken.stdout

    manifest = json.loads((folder / "package.json").read_text())
    assert manifest["format"] == "outpost-offline-map" and manifest["errors"] == []
    files = {entry["file"] for entry in manifest["files"]}
    assert files == DEMO_OFFLINE_FILES, files
    web_map = json.loads((folder / "map.json").read_text())
    for layer in web_map["operationalLayers"] + web_map["tables"] + web_map["baseMap"]["baseMapLayers"]:
        assert (folder / layer["url"]).exists(), layer
        assert layer["x-outpost-source"].startswith("http"), layer

    # GDAL reads every file: the GeoPackages' layers, the tile package's levels.
    for name in DEMO_FEATURE_SERVICES:
        listing = subprocess.run(["ogrinfo", "-ro", "-q", str(folder / "data" / f"{name}.gpkg")], capture_output=True, text=True, check=True)
        assert listing.stdout.strip(), listing.stdout
    import rasterio
    with rasterio.open(folder / "tiles" / "DemoBasemap.mbtiles") as dataset:
        assert dataset.driver == "MBTiles" and dataset.width > 0 and dataset.read(1).any(), dataset.profile
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]


def test_an_offline_map_edited_with_gdal_syncs_with_the_cli_and_is_unregistered(tmp_path):
    """An edit made by GDAL in the offline map's GeoPackage goes up with `outpost map sync`
    (the file's triggers logged it), the server's come down, `unregister` ends the replicas."""
    with running_server() as base:
        folder = tmp_path / "field"
        outpost("map", "take-offline", DEMO_MAP, "--server", base, "--area", "13.2,52.4,13.26,52.46", "--no-basemap", "--out", str(folder))
        assert outpost("map", "updates", str(folder)).stdout.splitlines()[0] == "upload: none"
        demo = folder / "data" / "Demo.gpkg"
        with sqlite3.connect(demo) as db:
            (trees,) = db.execute("SELECT table_name FROM outpost_sync_layers WHERE layer_id = 2").fetchone()
        subprocess.run(["ogrinfo", str(demo), "-sql",
                        f"UPDATE \"{trees}\" SET species = 'Edited in GDAL' WHERE OBJECTID = (SELECT min(OBJECTID) FROM \"{trees}\")"],
                       check=True, capture_output=True)
        assert outpost("map", "updates", str(folder)).stdout.splitlines()[0] == "upload: available"
        synced = outpost("map", "sync", str(folder)).stdout
        assert "data/Demo.gpkg\tuploaded 1 edits" in synced, synced
        query = urllib.parse.urlencode({"where": "species = 'Edited in GDAL'", "returnCountOnly": "true", "f": "json"})
        with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/2/query?{query}") as response:
            assert json.loads(response.read())["count"] == 1
        outpost("map", "unregister", str(folder))
        refused = outpost("map", "sync", str(folder), check=False)
        assert refused.returncode != 0 and "failed" in refused.stdout, refused.stdout


def test_a_preplanned_area_downloaded_with_the_cli_follows_scheduled_updates(tmp_path):
    """`outpost map areas`, `download-area`: the folder of a preplanned area whose packages
    keep deltas; after an edit and a refresh, `updates` says a download is waiting and `sync`
    applies it (docs/client.md, "Offline maps")."""
    with running_server() as base:
        server = ["--server", base]
        area = outpost("areas", "create", DEMO_MAP, "--extent", "13.2,52.4,13.26,52.46", "--title", "Park", "--keep-updates-days", "5",
                       *server).stdout.splitlines()[0]
        listed = outpost("map", "areas", DEMO_MAP, *server).stdout
        assert listed.startswith(f"{area}\tcomplete\tPark\t{DEMO_AREA_PACKAGES} packages"), listed
        folder = tmp_path / "park"
        outpost("map", "download-area", area, *server, "--out", str(folder), "--no-basemap")
        manifest = json.loads((folder / "package.json").read_text())
        assert manifest["source"]["mode"] == "preplanned" and manifest["updateMode"] == "downloadScheduledUpdates", manifest
        assert outpost("map", "updates", str(folder)).stdout.splitlines()[1] == "download: none"

        query = urllib.parse.urlencode({"f": "json", "adds": json.dumps(
            [{"attributes": {"species": "Scheduled by CLI"}, "geometry": {"x": 13.23, "y": 52.43}}])}).encode()
        with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/2/applyEdits", data=query) as response:
            assert json.loads(response.read())["addResults"][0]["success"]
        outpost("areas", "refresh", area, *server)
        assert outpost("map", "updates", str(folder)).stdout.splitlines()[1] == "download: available"
        outpost("map", "sync", str(folder))
        with sqlite3.connect(folder / "data" / "Demo.gpkg") as db:
            (trees,) = db.execute("SELECT table_name FROM outpost_sync_layers WHERE layer_id = 2").fetchone()
            assert db.execute(f'SELECT count(*) FROM "{trees}" WHERE species = ?', ("Scheduled by CLI",)).fetchone() == (1,)


QGIS_CHECK = """
import sys
from qgis.core import QgsApplication, QgsProject
app = QgsApplication([], False)
app.initQgis()
project = QgsProject.instance()
assert project.read(sys.argv[1]), "QGIS could not read the project"
layers = list(project.mapLayers().values())
for layer in layers:
    print(layer.name(), layer.type(), layer.isValid(), layer.featureCount() if hasattr(layer, "featureCount") else -1)
assert layers and all(layer.isValid() for layer in layers), [l.name() for l in layers if not l.isValid()]
app.exitQgis()
"""


def test_qgis_opens_the_offline_map_project_with_every_layer_valid(tmp_path):
    """The folder's project.qgs, opened headless by QGIS (Debian's python3-qgis): every layer
    valid, the GeoPackage layers holding the area's features (docs/offline-map-format.md)."""
    import pytest
    if subprocess.run(["/usr/bin/python3", "-c", "import qgis.core"], capture_output=True).returncode != 0:
        pytest.skip("python3-qgis is installed by scripts/setup.sh --with-clients")
    with running_server() as base:
        folder = tmp_path / "qgis"
        outpost("map", "take-offline", DEMO_MAP, "--server", base, "--area", "5,45,20,56", "--max-scale", "36978595.47", "--out", str(folder))
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(tmp_path)}
    opened = subprocess.run(["/usr/bin/python3", "-c", QGIS_CHECK, str(folder / "project.qgs")], capture_output=True, text=True,
                            env=environment, timeout=300)
    assert opened.returncode == 0, opened.stdout + opened.stderr
    lines = [line.rsplit(" ", 3) for line in opened.stdout.splitlines() if line.count(" ") >= 3]
    web_map = json.loads((folder / "map.json").read_text())
    taken = len(web_map["operationalLayers"]) + len(web_map["tables"]) + len(web_map["baseMap"]["baseMapLayers"])
    assert len(lines) == taken, opened.stdout
    cities = next(line for line in lines if line[0].lower().startswith("cit"))
    assert int(cities[3]) > 0, cities


class SlowDownloads:
    """A reverse proxy in front of the server that holds every package download for `delay`
    seconds while `slow` is set (the Host header kept, so the server names the proxy in its
    URLs and every request of the job goes through it)."""

    def __init__(self, backend, delay):
        import http.server
        import threading

        self.backend, self.delay, self.slow = backend, delay, True
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def forward(self, body=None):
                import time
                if proxy.slow and ("/arcgisoutput/" in self.path or "/replicafiles/" in self.path):
                    time.sleep(proxy.delay)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "content-length")}
                request = urllib.request.Request(proxy.backend + self.path, data=body, headers=headers, method=self.command)
                try:
                    response = urllib.request.urlopen(request, timeout=60)
                except urllib.error.HTTPError as error:
                    response = error
                payload = response.read()
                self.send_response(response.status)
                for key, value in response.headers.items():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self):
                self.forward()

            def do_POST(self):
                self.forward(self.rfile.read(int(self.headers.get("Content-Length", 0))))

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def test_ctrl_c_pauses_taking_a_map_offline_and_another_process_resumes_it(tmp_path):
    """Ctrl-C during `take-offline` (downloads held by a slow link) pauses the job and writes
    it beside the folder; `outpost map resume` in a new process finishes the same folder."""
    import signal
    import time

    from conftest import BINARY
    with running_server() as base:
        origin = base[:base.index("/arcgis")]
        proxy = SlowDownloads(origin, delay=3)
        folder = tmp_path / "interrupted"
        process = subprocess.Popen([BINARY, "map", "take-offline", DEMO_MAP, "--server", f"{proxy.url}/arcgis", "--area", "5,45,20,56",
                                    "--out", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 130, out + err
        job = tmp_path / "interrupted.job.json"
        assert job.exists() and "outpost map resume" in out, out
        assert json.loads(job.read_text())["status"] == "paused"
        assert not folder.exists()

        proxy.slow = False
        resumed = outpost("map", "resume", str(job))
        assert resumed.stdout.strip().endswith(str(folder)) and "map: resumed" in resumed.stdout, resumed.stdout
        assert not job.exists()
        files = {entry["file"] for entry in json.loads((folder / "package.json").read_text())["files"]}
        assert files == DEMO_OFFLINE_FILES, files
        proxy.server.shutdown()


def test_ctrl_c_pauses_an_offline_map_sync_and_another_process_resumes_it(tmp_path):
    """Ctrl-C during `outpost map sync` (the server's changes held by a slow link) pauses the
    job into DIR.sync.json; `outpost map resume` in a new process finishes it, each edit sent once."""
    import signal
    import time

    from conftest import BINARY
    with running_server() as base:
        origin = base[:base.index("/arcgis")]
        proxy = SlowDownloads(origin, delay=3)
        proxy.slow = False
        folder = tmp_path / "field"
        outpost("map", "take-offline", DEMO_MAP, "--server", f"{proxy.url}/arcgis", "--area", "13.2,52.4,13.26,52.46", "--no-basemap",
                "--out", str(folder))
        demo = folder / "data" / "Demo.gpkg"
        with sqlite3.connect(demo) as db:
            (trees,) = db.execute("SELECT table_name FROM outpost_sync_layers WHERE layer_id = 2").fetchone()
        subprocess.run(["ogrinfo", str(demo), "-sql",
                        f"UPDATE \"{trees}\" SET species = 'Paused sync' WHERE OBJECTID = (SELECT min(OBJECTID) FROM \"{trees}\")"],
                       check=True, capture_output=True)
        proxy.slow = True
        process = subprocess.Popen([BINARY, "map", "sync", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 130, out + err
        job = tmp_path / "field.sync.json"
        assert job.exists() and "outpost map resume" in out, out
        assert json.loads(job.read_text())["status"] == "paused"

        proxy.slow = False
        resumed = outpost("map", "resume", str(job)).stdout
        assert "data/Demo.gpkg\tuploaded 1 edits" in resumed and "sync: resumed" in resumed, resumed
        assert not job.exists()
        query = urllib.parse.urlencode({"where": "species = 'Paused sync'", "returnCountOnly": "true", "f": "json"})
        with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/2/query?{query}") as answer:
            assert json.loads(answer.read())["count"] == 1
        assert outpost("map", "updates", str(folder)).stdout.splitlines()[0] == "upload: none"
        proxy.server.shutdown()
