"""Synchronize with a real client: the ArcGIS API for Python's `replicas.synchronize` uploads
edits inline and as an uploaded JSON delta (`editsUploadID`), receives the server's changes
since its generation, and a retry of the same sync applies nothing twice."""
import json
import urllib.parse
import urllib.request
import uuid

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.features import FeatureLayerCollection  # noqa: E402
from arcgis.gis.server import ServicesDirectory  # noqa: E402

from conftest import UNVERIFIED  # noqa: E402

CORNER = {"geometry": "13.2,52.4,13.26,52.46", "geometryType": "esriGeometryEnvelope"}


def server_json(url, **params):
    query = urllib.parse.urlencode({"f": "json", **params})
    with urllib.request.urlopen(f"{url}?{query}", timeout=60, context=UNVERIFIED) as response:
        return json.loads(response.read())


def trees(base):
    """The server's trees in the replicas' corner (fewer than a page)."""
    answer = server_json(f"{base}/rest/services/Demo/FeatureServer/2/query", where="1=1", outFields="*",
                         geometry=CORNER["geometry"], geometryType="esriGeometryEnvelope")
    return {f["attributes"]["GlobalID"]: f["attributes"] for f in answer["features"]}


def new_id():
    return "{" + str(uuid.uuid4()).upper() + "}"


@pytest.fixture(scope="module")
def demo(tls_server):
    directory = ServicesDirectory(url=tls_server, verify_cert=False)
    collection = FeatureLayerCollection(f"{tls_server}/rest/services/Demo/FeatureServer", gis=directory)
    return collection, tls_server


def create(collection, name):
    replica = collection.replicas.create(
        replica_name=name, layers=[2], sync_model="perLayer", transport_type="esriTransportTypeEmbedded",
        geometry_filter=CORNER,
        layer_queries={"2": {"queryOption": "useFilter", "useGeometry": True}})
    held = sorted(f["attributes"]["GlobalID"] for f in replica["layers"][0]["features"])
    return replica["replicaID"], replica["layerServerGens"][0]["serverGen"], held


def test_synchronize_with_inline_edits_uploads_then_downloads(demo):
    collection, base = demo
    replica_id, generation, held = create(collection, "py-sync-inline")
    # Someone edits online meanwhile.
    layer = collection.layers[2]
    online = layer.edit_features(updates=[{"attributes": {"GlobalID": held[0], "height_m": 61.0}}], use_global_ids=True)
    assert online["updateResults"][0]["success"]
    added = new_id()
    edits = [{"id": 2, "features": {
        "adds": [{"attributes": {"GlobalID": added, "species": "Python add", "height_m": 2.5}, "geometry": {"x": 13.21, "y": 52.41}}],
        "updates": [{"attributes": {"GlobalID": held[1], "height_m": 19.0}}],
        "deleteIds": [held[2]],
    }}]
    sync_layers = [{"id": 2, "serverGen": generation, "syncDirection": "bidirectional"}]
    answer = collection.replicas.synchronize(
        replica_id, transport_type="esriTransportTypeEmbedded", edits=edits, sync_layers=sync_layers,
        sync_direction="bidirectional", return_ids_for_adds=True, rollback_on_failure=True)
    assert answer["responseType"] == "esriReplicaResponseTypeEdits"
    entry = answer["edits"][0]
    assert entry["addResults"][0]["success"] and entry["addResults"][0]["globalId"] == added
    assert entry["updateResults"][0]["success"] and entry["deleteResults"][0]["success"]
    # The online change comes down; the client's own edits are not echoed.
    assert [f["attributes"]["GlobalID"] for f in entry["features"]["updates"]] == [held[0]]
    assert entry["features"]["adds"] == [] and entry["features"]["deleteIds"] == []
    server = trees(base)
    assert server[added]["species"] == "Python add" and server[held[1]]["height_m"] == 19.0 and held[2] not in server
    new_generation = answer["layerServerGens"][0]["serverGen"]
    assert new_generation > generation
    assert collection.replicas.get(replica_id)["layerServerGens"][0]["serverGen"] == new_generation

    # The answer is lost and the client retries: nothing is applied twice, the results are the same.
    again = collection.replicas.synchronize(
        replica_id, transport_type="esriTransportTypeEmbedded", edits=edits, sync_layers=sync_layers,
        sync_direction="bidirectional", return_ids_for_adds=True, rollback_on_failure=True)
    assert again["edits"][0]["addResults"] == entry["addResults"]
    assert again["edits"][0]["deleteResults"] == entry["deleteResults"]
    assert len(trees(base)) == len(server)

    # The client's defaults (syncLayers=perReplica, snapshot) return the replica's current data.
    snapshot = collection.replicas.synchronize(replica_id, transport_type="esriTransportTypeEmbedded")
    assert snapshot["responseType"] == "esriReplicaResponseTypeReplacementData"
    ids = {f["attributes"]["GlobalID"] for f in snapshot["layers"][0]["features"]}
    assert added in ids and held[2] not in ids


def test_synchronize_with_an_uploaded_json_delta(demo, tmp_path):
    collection, base = demo
    replica_id, generation, held = create(collection, "py-sync-upload")
    added = new_id()
    delta = tmp_path / "delta.json"
    delta.write_text(json.dumps([{"id": 2, "features": {
        "adds": [{"attributes": {"GlobalID": added, "species": "Uploaded delta", "height_m": 1.0}, "geometry": {"x": 13.22, "y": 52.42}}],
        "updates": [], "deleteIds": [held[0]]}}]))
    item_id = collection.upload(str(delta))
    assert item_id.startswith("i")
    # The client's default transport: the answer names a result file.
    answer = collection.replicas.synchronize(
        replica_id, edits_upload_id=item_id, edits_upload_format="json", sync_direction="bidirectional",
        sync_layers=[{"id": 2, "serverGen": generation}])
    assert answer["responseType"] == "esriReplicaResponseTypeEdits"
    with urllib.request.urlopen(answer["URL"], timeout=60, context=UNVERIFIED) as response:
        document = json.loads(response.read())
    assert document["replicaID"] == replica_id
    assert document["edits"][0]["addResults"][0]["success"]
    assert document["edits"][0]["deleteResults"][0]["success"]
    server = trees(base)
    assert server[added]["species"] == "Uploaded delta" and held[0] not in server


def test_a_versioned_service_syncs_per_replica_in_each_direction(tls_server):
    """The ArcGIS API for Python against the versioned Parcels service: per-replica sync with
    `replicaServerGen`, upload, download (edits ignored), bidirectional with a field-level merge."""
    directory = ServicesDirectory(url=tls_server, verify_cert=False)
    parcels = FeatureLayerCollection(f"{tls_server}/rest/services/Parcels/FeatureServer", gis=directory)
    assert parcels.properties.syncCapabilities.supportsSyncDirectionControl
    replica = parcels.replicas.create(replica_name="py-versioned", layers=[0], sync_model="perReplica",
                                      transport_type="esriTransportTypeEmbedded", return_attachments=False)
    replica_id, generation = replica["replicaID"], replica["replicaServerGen"]
    ids = sorted(f["attributes"]["GlobalID"] for f in replica["layers"][0]["features"])
    layer = parcels.layers[0]

    def owner(global_id):
        return layer.query(where=f"GlobalID = '{global_id}'", out_fields="owner,zoning").features[0].attributes

    def sync(direction, updates, gen):
        edits = [{"id": 0, "features": {"adds": [], "updates": updates, "deleteIds": []}}]
        return parcels.replicas.synchronize(replica_id, transport_type="esriTransportTypeEmbedded", replica_server_gen=gen,
                                            sync_direction=direction, edits=edits, return_ids_for_adds=True)

    up = sync("upload", [{"attributes": {"GlobalID": ids[0], "owner": "Py upload"}}], generation)
    assert up["edits"][0]["updateResults"][0]["success"] and owner(ids[0])["owner"] == "Py upload"
    assert up["edits"][0]["features"]["updates"] == []
    layer.edit_features(updates=[{"attributes": {"GlobalID": ids[1], "zoning": "PY"}}], use_global_ids=True)
    down = sync("download", [{"attributes": {"GlobalID": ids[2], "owner": "Ignored"}}], generation)
    assert owner(ids[2])["owner"] != "Ignored"
    assert ids[1] in {f["attributes"]["GlobalID"] for f in down["edits"][0]["features"]["updates"]}
    generation = down["replicaServerGen"]
    # DEFAULT changes one field, the replica another: both survive.
    layer.edit_features(updates=[{"attributes": {"GlobalID": ids[3], "zoning": "MERGE"}}], use_global_ids=True)
    both = sync("bidirectional", [{"attributes": {"GlobalID": ids[3], "owner": "Py both"}}], generation)
    assert both["edits"][0]["updateResults"][0]["success"]
    assert owner(ids[3]) == {"owner": "Py both", "zoning": "MERGE"} or (owner(ids[3])["owner"] == "Py both" and owner(ids[3])["zoning"] == "MERGE")
    assert parcels.replicas.unregister(replica_id)
