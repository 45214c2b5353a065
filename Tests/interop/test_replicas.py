"""Replicas with real clients: the ArcGIS API for Python creates, lists, reads and
unregisters replicas over HTTPS; every GeoPackage it downloads passes GDAL's validate_gpkg.py
and opens in ogrinfo with the server's counts."""
import glob
import json
import os
import subprocess
import urllib.parse
import urllib.request

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.features import FeatureLayerCollection  # noqa: E402
from arcgis.gis.server import ServicesDirectory  # noqa: E402

from conftest import UNVERIFIED  # noqa: E402

SYSTEM_PYTHON = "/usr/bin/python3"  # the one that imports osgeo (validate_gpkg checks geometry blobs with it)


def validator():
    found = glob.glob("/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py")
    if not found:
        pytest.skip("validate_gpkg.py comes with python3-gdal (scripts/setup.sh installs it)")
    return found[0]


def server_json(url, **params):
    query = urllib.parse.urlencode({"f": "json", **params})
    with urllib.request.urlopen(f"{url}?{query}", timeout=60, context=UNVERIFIED) as response:
        return json.loads(response.read())


def count(base, layer):
    return server_json(f"{base}/rest/services/Demo/FeatureServer/{layer}/query", where="1=1", returnCountOnly="true")["count"]


def check_geopackage(path, expected_counts):
    """validate_gpkg.py must pass; ogrinfo must list the layers with the given counts."""
    result = subprocess.run([SYSTEM_PYTHON, validator(), path], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", path], capture_output=True, text=True, check=True).stdout
    assert "ERROR" not in info
    for name, expected in expected_counts.items():
        section = info.split(f"Layer name: {name}\n", 1)
        assert len(section) == 2, f"ogrinfo does not list {name}:\n{info}"
        assert f"Feature Count: {expected}\n" in section[1].split("Layer name:", 1)[0]


@pytest.fixture(scope="module")
def demo(tls_server):
    directory = ServicesDirectory(url=tls_server, verify_cert=False)
    collection = FeatureLayerCollection(f"{tls_server}/rest/services/Demo/FeatureServer", gis=directory)
    return collection, tls_server


def test_create_embedded_json_per_layer(demo):
    collection, base = demo
    result = collection.replicas.create(replica_name="py-embedded", layers=[1, 2], sync_model="perLayer",
                                        transport_type="esriTransportTypeEmbedded")
    assert result["replicaName"] == "py-embedded"
    assert result["responseType"] == "esriReplicaResponseTypeData"
    assert [layer["id"] for layer in result["layers"]] == [1, 2]
    # The client's default layerQueries ask every row; its default geometry is the service extent.
    assert len(result["layers"][0]["features"]) == count(base, 1)
    assert len(result["layers"][1]["features"]) == count(base, 2)
    generations = {entry["id"]: entry["serverGen"] for entry in result["layerServerGens"]}
    assert set(generations) == {1, 2}
    info = collection.replicas.get(result["replicaID"])
    assert info["replicaName"] == "py-embedded" and info["syncModel"] == "perLayer"
    assert {entry["id"]: entry["serverGen"] for entry in info["layerServerGens"]} == generations


def test_create_json_by_url_downloads_to_out_path(demo, tmp_path):
    collection, base = demo
    result = collection.replicas.create(replica_name="py-url", layers=[0], sync_model="perLayer", out_path=str(tmp_path),
                                        return_attachments=True, attachments_sync_direction="bidirectional",
                                        return_attachments_databy_url=True)
    path = result["download_url"]
    assert os.path.isfile(path) and path.endswith(".json")
    with open(path) as f:
        document = json.load(f)
    assert document["replicaID"] == result["replicaID"]
    layer = document["layers"][0]
    assert len(layer["features"]) == count(base, 0)
    assert layer["attachments"] and all(a["url"].startswith("https://") for a in layer["attachments"])
    # The attachment links work.
    with urllib.request.urlopen(layer["attachments"][0]["url"], context=UNVERIFIED, timeout=30) as response:
        assert len(response.read()) == layer["attachments"][0]["size"]


def test_create_sqlite_async_downloads_a_valid_geopackage(demo, tmp_path):
    collection, base = demo
    result = collection.replicas.create(
        replica_name="py-gpkg", layers=[0, 1, 2, 3], sync_model="perLayer", data_format="sqlite", asynchronous=True, wait=True,
        out_path=str(tmp_path), return_attachments=True, attachments_sync_direction="bidirectional",
        layer_queries={"0": {"queryOption": "useFilter", "where": "rank <= 3"}, "1": {"queryOption": "all"},
                       "2": {"queryOption": "all"}, "3": {"queryOption": "none", "includeRelated": True}})
    assert result["status"] == "Completed"
    path = result["download_url"]
    assert path.endswith(".gpkg")
    cities = server_json(f"{base}/rest/services/Demo/FeatureServer/0/query", where="rank <= 3", returnCountOnly="true")["count"]
    check_geopackage(path, {"Cities": cities, "Countries": count(base, 1), "Trees": count(base, 2)})
    listed = {replica["replicaID"]: replica["replicaName"] for replica in collection.replicas.get_list()}
    assert listed[result["replicaID"]] == "py-gpkg"


def test_synchronous_sqlite_and_a_gdal_edit_is_change_tracked(demo, tmp_path):
    collection, base = demo
    result = collection.replicas.create(replica_name="py-sync-gpkg", layers=[2], sync_model="perLayer", data_format="sqlite",
                                        out_path=str(tmp_path))
    path = result["download_url"]
    check_geopackage(path, {"Trees": count(base, 2)})
    edit = (
        "from osgeo import ogr\n"
        f"ds = ogr.Open({path!r}, 1)\n"
        "layer = ds.GetLayerByName('Trees')\n"
        "f = ogr.Feature(layer.GetLayerDefn()); f.SetField('species', 'GDAL add')\n"
        "f.SetGeometry(ogr.CreateGeometryFromWkt('POINT (13.4 52.5)')); assert layer.CreateFeature(f) == 0\n"
        "g = layer.GetFeature(1); g.SetField('height_m', 7.5); assert layer.SetFeature(g) == 0\n"
        "ds = None\n"
    )
    subprocess.run([SYSTEM_PYTHON, "-c", edit], check=True)
    changes = subprocess.run(["sqlite3", path, "SELECT operation || ' ' || object_id FROM outpost_sync_changes ORDER BY change_id"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert len(changes) == 4 and changes[0] == "insert" and changes[2:] == ["update", "1"]
    check_geopackage(path, {"Trees": count(base, 2) + 1})


def sqlite_value(path, sql):
    return subprocess.run(["sqlite3", path, sql], capture_output=True, text=True, check=True).stdout.strip()


def test_a_gdal_edited_geopackage_syncs_as_an_upload_delta_and_the_answer_is_a_valid_delta(demo, tmp_path):
    collection, base = demo
    result = collection.replicas.create(replica_name="py-delta", layers=[2], sync_model="perLayer", data_format="sqlite",
                                        out_path=str(tmp_path))
    path = result["download_url"]
    replica_id = result["replicaID"]
    generation = int(sqlite_value(path, "SELECT server_gen FROM outpost_sync_layers WHERE layer_id = 2"))
    first_id = sqlite_value(path, "SELECT GlobalID FROM Trees ORDER BY OBJECTID LIMIT 1")
    edit = (
        "from osgeo import ogr\n"
        f"ds = ogr.Open({path!r}, 1)\n"
        "layer = ds.GetLayerByName('Trees')\n"
        "f = ogr.Feature(layer.GetLayerDefn()); f.SetField('species', 'GDAL delta'); f.SetField('height_m', 3.25)\n"
        "f.SetGeometry(ogr.CreateGeometryFromWkt('POINT (13.4 52.5)')); assert layer.CreateFeature(f) == 0\n"
        "ds = None\n"
    )
    subprocess.run([SYSTEM_PYTHON, "-c", edit], check=True)
    added_id = sqlite_value(path, "SELECT GlobalID FROM Trees WHERE species = 'GDAL delta'")
    # Someone edits online meanwhile: the answer delta carries it.
    layer = collection.layers[2]
    assert layer.edit_features(updates=[{"attributes": {"GlobalID": first_id, "height_m": 42.0}}], use_global_ids=True)["updateResults"][0]["success"]

    item_id = collection.upload(path)
    answer = collection.replicas.synchronize(
        replica_id, edits_upload_id=item_id, edits_upload_format="sqlite", data_format="sqlite", sync_direction="bidirectional",
        sync_layers=[{"id": 2, "serverGen": generation}], return_ids_for_adds=True)
    assert answer["responseType"] == "esriReplicaResponseTypeEdits", answer
    delta = tmp_path / "answer-delta.gpkg"
    with urllib.request.urlopen(answer["URL"], timeout=60, context=UNVERIFIED) as response:
        delta.write_bytes(response.read())
    # The answer is a GeoPackage any tool reads: the online update is its one row.
    check_geopackage(str(delta), {"Trees": 1})
    assert sqlite_value(str(delta), "SELECT GlobalID || ' ' || height_m FROM Trees") == f"{first_id} 42.0"
    assert sqlite_value(str(delta), "SELECT kind FROM outpost_sync_delta") == "download"
    assert sqlite_value(str(delta), "SELECT operation || ' ' || success FROM outpost_sync_edit_results") == "insert 1"
    added = server_json(f"{base}/rest/services/Demo/FeatureServer/2/query", where="species = 'GDAL delta'", outFields="*")["features"]
    assert [f["attributes"]["GlobalID"] for f in added] == [added_id]
    assert added[0]["attributes"]["height_m"] == 3.25


def test_unregister_removes_from_the_list(demo):
    collection, _ = demo
    created = collection.replicas.create(replica_name="py-gone", layers=[1], sync_model="perLayer",
                                         transport_type="esriTransportTypeEmbedded")
    replica_id = created["replicaID"]
    assert replica_id in [r["replicaID"] for r in collection.replicas.get_list()]
    assert collection.replicas.unregister(replica_id) == {"success": True}
    assert replica_id not in [r["replicaID"] for r in collection.replicas.get_list()]
    with pytest.raises(Exception, match="Replica not found"):
        collection.replicas.get(replica_id)


def test_invalid_combination_is_a_clear_error(demo):
    collection, _ = demo
    before = collection.replicas.get_list()
    with pytest.raises(Exception, match="attachmentsSyncDirection"):
        collection.replicas.create(replica_name="py-bad", layers=[0], sync_model="perLayer", return_attachments=False,
                                   attachments_sync_direction="bidirectional")
    assert collection.replicas.get_list() == before
