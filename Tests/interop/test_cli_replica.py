"""`outpost replica` against a live server, with GDAL as the offline editor: create a replica
file, edit it with OGR, sync, check the server, register a copy, unregister it."""
import json
import shutil
import subprocess
import urllib.parse
import urllib.request

import pytest

from conftest import BINARY, running_server

SYSTEM_PYTHON = "/usr/bin/python3"


def outpost(*arguments, check=True):
    result = subprocess.run([BINARY, *arguments], capture_output=True, text=True, timeout=120)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def query(base, **params):
    url = f"{base}/services/Demo/FeatureServer/2/query?" + urllib.parse.urlencode({"f": "json", **params})
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture()
def server():
    """A server of its own: this test adds a tree, which the shared server's counts must not see."""
    with running_server() as base:
        yield f"{base}/rest"


def test_create_edit_with_gdal_sync_register_unregister(server, tmp_path):
    if subprocess.run([SYSTEM_PYTHON, "-c", "import osgeo"], capture_output=True).returncode != 0:
        pytest.skip("python3-gdal is installed by scripts/setup.sh")
    service = f"{server}/services/Demo/FeatureServer"
    path = str(tmp_path / "field.gpkg")
    created = outpost("replica", "create", service, "--out", path, "--extent", "13.2,52.4,13.26,52.46", "--layers", "2", "--no-attachments")
    assert "pending local edits: 0" in created.stdout
    # Not a terminal: plain progress lines, no bar.
    assert "create: 100%" in created.stdout and "\r" not in created.stdout

    edit = (
        "from osgeo import ogr\n"
        f"ds = ogr.Open({path!r}, 1)\n"
        "layer = ds.GetLayerByName('Trees')\n"
        "f = ogr.Feature(layer.GetLayerDefn()); f.SetField('species', 'CLI and GDAL'); f.SetField('height_m', 8.5)\n"
        "f.SetGeometry(ogr.CreateGeometryFromWkt('POINT (13.23 52.44)')); assert layer.CreateFeature(f) == 0\n"
        "ds = None\n"
    )
    subprocess.run([SYSTEM_PYTHON, "-c", edit], check=True)
    assert "pending local edits: 1" in outpost("replica", "status", path).stdout

    synced = outpost("replica", "sync", path)
    assert "uploaded 1 edits" in synced.stdout
    assert "pending local edits: 0" in outpost("replica", "status", path).stdout
    on_server = query(server, where="species = 'CLI and GDAL'", outFields="OBJECTID,height_m")["features"]
    assert len(on_server) == 1 and on_server[0]["attributes"]["height_m"] == 8.5
    # The file now holds the server's OBJECTID for the row GDAL added.
    local = subprocess.run(["sqlite3", path, "SELECT OBJECTID FROM Trees WHERE species = 'CLI and GDAL'"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert int(local) == on_server[0]["attributes"]["OBJECTID"]

    copy = str(tmp_path / "copy.gpkg")
    shutil.copy(path, copy)
    registered = outpost("replica", "register", copy)
    assert "registered as replica {" in registered.stdout
    assert outpost("replica", "sync", copy, "--direction", "download").returncode == 0
    assert "unregistered replica" in outpost("replica", "unregister", copy).stdout
    refused = outpost("replica", "sync", copy, check=False)
    assert refused.returncode != 0 and "Replica not found" in refused.stderr + refused.stdout
    bad = outpost("replica", "sync", path, "--direction", "sideways", check=False)
    assert bad.returncode != 0 and "--direction" in bad.stderr
