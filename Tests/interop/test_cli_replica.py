"""`outpost replica` against a live server, with GDAL as the offline editor: create a replica
file, edit it with OGR, sync, check the server, register a copy, unregister it."""
import json
import shutil
import subprocess
import urllib.parse
import urllib.request

import pytest

from conftest import outpost

SYSTEM_PYTHON = "/usr/bin/python3"


def query(base, **params):
    url = f"{base}/services/Demo/FeatureServer/2/query?" + urllib.parse.urlencode({"f": "json", **params})
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def test_create_edit_with_gdal_sync_register_unregister(own_server, tmp_path):
    if subprocess.run([SYSTEM_PYTHON, "-c", "import osgeo"], capture_output=True).returncode != 0:
        pytest.skip("python3-gdal is installed by scripts/setup.sh")
    service = f"{own_server}/services/Demo/FeatureServer"
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
    on_server = query(own_server, where="species = 'CLI and GDAL'", outFields="OBJECTID,height_m")["features"]
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


def test_a_versioned_replica_syncs_in_each_direction(own_server, tmp_path):
    if subprocess.run([SYSTEM_PYTHON, "-c", "import osgeo"], capture_output=True).returncode != 0:
        pytest.skip("python3-gdal is installed by scripts/setup.sh")
    service = f"{own_server}/services/Parcels/FeatureServer"
    path = str(tmp_path / "parcels.gpkg")
    outpost("replica", "create", service, "--out", path, "--no-attachments")
    status = outpost("replica", "status", path).stdout
    assert "sync model: perReplica" in status and "Parcels: 400 rows" in status

    def edit(owner):
        script = (
            "from osgeo import ogr\n"
            f"ds = ogr.Open({path!r}, 1)\n"
            "layer = ds.GetLayerByName('Parcels')\n"
            "f = layer.GetFeature(1); f.SetField('owner', " + repr(owner) + "); assert layer.SetFeature(f) == 0\n"
            "ds = None\n"
        )
        subprocess.run([SYSTEM_PYTHON, "-c", script], check=True)

    def server_owner():
        url = f"{own_server}/services/Parcels/FeatureServer/0/query?" + urllib.parse.urlencode(
            {"f": "json", "where": "OBJECTID = 1", "outFields": "owner"})
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.loads(response.read())["features"][0]["attributes"]["owner"]

    edit("Via download")
    assert "uploaded 0 edits" in outpost("replica", "sync", path, "--direction", "download").stdout
    assert server_owner() != "Via download"
    assert "pending local edits: 1" in outpost("replica", "status", path).stdout
    assert "uploaded 1 edits" in outpost("replica", "sync", path, "--direction", "upload").stdout
    assert server_owner() == "Via download"
    edit("Both ways")
    assert "uploaded 1 edits" in outpost("replica", "sync", path).stdout
    assert server_owner() == "Both ways"
    assert "pending local edits: 0" in outpost("replica", "status", path).stdout
