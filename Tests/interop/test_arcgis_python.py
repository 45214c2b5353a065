"""The ArcGIS API for Python against a live Outpost over HTTPS (standalone-server mode):
edit_features, delete_features and the attachment manager, each checked on the server."""
import json
import urllib.request

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.features import FeatureLayerCollection  # noqa: E402
from arcgis.gis.server import ServicesDirectory  # noqa: E402

from conftest import UNVERIFIED  # noqa: E402


def server_json(url):
    with urllib.request.urlopen(url, timeout=30, context=UNVERIFIED) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def trees(tls_server):
    directory = ServicesDirectory(url=tls_server, verify_cert=False)
    collection = FeatureLayerCollection(f"{tls_server}/rest/services/Demo/FeatureServer", gis=directory)
    return collection, tls_server


def test_collection_sees_layers_and_sync(trees):
    collection, _ = trees
    assert [layer.properties.name for layer in collection.layers] == ["Cities", "Countries", "Trees"]
    assert collection.properties.syncEnabled is True
    assert collection.replicas is not None


def test_query_pages_through_every_tree(trees):
    collection, _ = trees
    features = collection.layers[2].query(where="1=1", out_fields="species").features
    assert len(features) == 2500
    assert len({f.attributes["OBJECTID"] for f in features}) == 2500


def test_edit_features_adds_updates_deletes(trees):
    collection, base = trees
    layer = collection.layers[2]
    result = layer.edit_features(adds=[{"attributes": {"species": "Sorbus aucuparia", "height_m": 3.5},
                                        "geometry": {"x": 13.41, "y": 52.52, "spatialReference": {"wkid": 4326}}}])
    added = result["addResults"][0]
    assert added["success"] is True
    oid = added["objectId"]
    result = layer.edit_features(updates=[{"attributes": {"OBJECTID": oid, "height_m": 4.25}}])
    assert result["updateResults"][0]["success"] is True
    row = server_json(f"{base}/rest/services/Demo/FeatureServer/2/{oid}?f=json")["feature"]["attributes"]
    assert row["species"] == "Sorbus aucuparia" and row["height_m"] == 4.25
    result = layer.edit_features(deletes=str(oid))
    assert result["deleteResults"][0]["success"] is True
    gone = server_json(f"{base}/rest/services/Demo/FeatureServer/2/query?objectIds={oid}&returnCountOnly=true&f=json")
    assert gone == {"count": 0}


def test_edit_features_reports_per_edit_errors(trees):
    collection, _ = trees
    result = collection.layers[2].edit_features(adds=[{"attributes": {"height_m": "tall"},
                                                        "geometry": {"x": 13.4, "y": 52.5}}], rollback_on_failure=False)
    assert result["addResults"][0]["success"] is False
    assert "height_m" in result["addResults"][0]["error"]["description"]


def test_delete_features_by_where(trees):
    collection, base = trees
    before = server_json(f"{base}/rest/services/Demo/FeatureServer/2/query?where=species%3D%27Fraxinus%20excelsior%27&returnCountOnly=true&f=json")["count"]
    assert before > 0
    result = collection.layers[2].delete_features(where="species = 'Fraxinus excelsior'")
    assert len(result["deleteResults"]) == before and all(r["success"] for r in result["deleteResults"])
    after = server_json(f"{base}/rest/services/Demo/FeatureServer/2/query?where=species%3D%27Fraxinus%20excelsior%27&returnCountOnly=true&f=json")
    assert after == {"count": 0}


def test_attachments_add_list_download_update_delete(trees, tmp_path):
    collection, base = trees
    cities = collection.layers[0]
    photo = tmp_path / "survey.txt"
    photo.write_bytes(b"first version\r\n--not-a-boundary\r\n" * 100)
    added = cities.attachments.add(10, str(photo))
    assert added["addAttachmentResult"]["success"] is True
    attachment_id = added["addAttachmentResult"]["objectId"]
    listed = {a["id"]: a for a in cities.attachments.get_list(10)}
    assert listed[attachment_id]["name"] == "survey.txt" and listed[attachment_id]["size"] == photo.stat().st_size
    downloaded = cities.attachments.download(10, attachment_id, save_path=str(tmp_path / "dl"))
    assert open(downloaded[0], "rb").read() == photo.read_bytes()
    photo.write_bytes(b"second version")
    updated = cities.attachments.update(10, attachment_id, str(photo))
    assert updated["updateAttachmentResult"]["success"] is True
    raw = urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/0/10/attachments/{attachment_id}", context=UNVERIFIED).read()
    assert raw == b"second version"
    deleted = cities.attachments.delete(10, attachment_id)
    assert deleted["deleteAttachmentResults"][0]["success"] is True
    assert attachment_id not in {a["id"] for a in cities.attachments.get_list(10)}
