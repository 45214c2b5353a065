"""The portal's `publish` with the ArcGIS API for Python 2.4.4 as the client (docs/portal.md,
"Publishing"): alice adds a zipped Shapefile, a zipped File Geodatabase and a GeoJSON file with
`gis.content.add`, publishes each with `Item.publish()` (the client's own publishParameters and
status polling), and reads the services it hands back; bob, another editor, cannot publish
her file. HTTPS with `--require-auth`, on either backend (OUTPOST_INTEROP_BACKEND)."""
import os

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.gis import GIS  # noqa: E402

# One HTTPS portal with token security and two editors, alice and bob (the API key tests' own).
from api_key_support import PASSWORDS, portal  # noqa: E402,F401
from conftest import ROOT  # noqa: E402
from home_support import shapefile_zip_and_gdb  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning", "ignore::DeprecationWarning")

CITIES = os.path.join(ROOT, "testdata", "naturalearth_cities.geojson")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Three wells as a zipped Shapefile (wells.zip) and a zipped File Geodatabase, and the cities as GeoJSON."""
    shapefile, gdb = shapefile_zip_and_gdb(str(tmp_path_factory.mktemp("uploads")), name="wells")
    return {"shapefile": shapefile, "gdb": gdb, "geojson": CITIES}


def signed_in(base, user):
    gis = GIS(base, user, PASSWORDS[user], verify_cert=False)
    assert gis.users.me.username == user
    return gis


def test_the_python_api_publishes_a_zipped_shapefile_as_a_feature_service(portal, files):
    alice = signed_in(portal, "alice")
    item = alice.content.add({"type": "Shapefile", "title": "Cities upload", "tags": "test"}, data=files["shapefile"])
    assert item.type == "Shapefile" and item.size == os.path.getsize(files["shapefile"])
    service = item.publish()
    assert service.type == "Feature Service"
    assert service.url.endswith("/rest/services/wells/FeatureServer")
    layer = service.layers[0]
    assert layer.query(where="1=1", return_count_only=True) == 3
    wells = {f.attributes["label"]: f.attributes["depth"] for f in layer.query(where="1=1", out_fields="label,depth").features}
    assert wells == {"well 0": 10.5, "well 1": 11.5, "well 2": 12.5}
    # The client asked for static data ("layerInfo": {"capabilities": "Query"}): no editing.
    assert "Create" not in service.layers[0].properties.capabilities
    assert [related.id for related in service.related_items("Service2Data", "forward")] == [item.id]


def test_a_zipped_file_geodatabase_and_geojson_are_published_too(portal, files):
    alice = signed_in(portal, "alice")
    gdb = alice.content.add({"type": "File Geodatabase", "title": "Wells geodatabase"}, data=files["gdb"])
    wells = gdb.publish()
    assert wells.url.endswith("/rest/services/Wells_geodatabase/FeatureServer")
    assert wells.layers[0].properties.geometryType == "esriGeometryPoint"
    assert wells.layers[0].query(where="depth > 11", return_count_only=True) == 2
    geojson = alice.content.add({"type": "GeoJson", "title": "Cities GeoJSON"}, data=files["geojson"])
    cities = geojson.publish()
    assert cities.layers[0].query(where="1=1", return_count_only=True) == 243


def test_another_editor_cannot_publish_her_file_and_a_taken_name_is_refused(portal, files):
    alice = signed_in(portal, "alice")
    item = alice.content.add({"type": "Shapefile", "title": "Private cities"}, data=files["shapefile"])
    bob = signed_in(portal, "bob")
    assert bob.content.get(item.id) is None
    # Sent as the client sends a publish, naming her item: not found to him.
    with pytest.raises(Exception, match="does not exist or is inaccessible"):
        bob._portal.publish_item(item.id, None, None, "shapefile", {"name": "Bobs_cities"}, None, False, "alice")
    taken = item.publish(publish_parameters={"name": "Taken_once", "layerInfo": {"capabilities": "Query,Create,Update"}})
    assert "Create" in taken.layers[0].properties.capabilities
    with pytest.raises(Exception, match="already exists"):
        item.publish(publish_parameters={"name": "taken_ONCE"})
    assert [found.title for found in alice.content.search("Bobs_cities", item_type="Feature Service")] == []


def test_a_csv_is_analyzed_then_published_as_the_python_api_does_it(portal, tmp_path):
    """`Item.publish()` of a CSV item: the client asks `content/features/analyze` and
    `portals/self/isServiceNameAvailable` first, then publishes with what analyze answered."""
    alice = signed_in(portal, "alice")
    csv = tmp_path / "inspections.csv"
    csv.write_text("site;Longitude;Latitude;visits\nNorth gate;13.40;52.50;3\nPond;13.41;52.51;1\nBarn;13.42;52.52;2\n")
    item = alice.content.add({"type": "CSV", "title": "Site inspections"}, data=str(csv))
    analyzed = alice.content.analyze(item=item, file_type="csv")
    assert analyzed["publishParameters"]["longitudeFieldName"] == "Longitude"
    assert analyzed["publishParameters"]["columnDelimiter"] == ";"
    assert alice.content.is_service_name_available("Site_inspections", "featureService")
    service = item.publish()
    assert service.url.endswith("/rest/services/Site_inspections/FeatureServer")
    assert not alice.content.is_service_name_available("Site_inspections", "featureService")
    layer = service.layers[0]
    rows = {f.attributes["site"]: (f.attributes["visits"], round(f.geometry["x"], 2)) for f in layer.query(where="1=1", out_fields="*").features}
    assert rows == {"North gate": (3, 13.40), "Pond": (1, 13.41), "Barn": (2, 13.42)}


def test_an_mbtiles_file_made_by_gdal_becomes_a_map_service(portal, tmp_path):
    """A raster GDAL wrote as MBTiles (`gdal_translate -of MBTILES`), added and published with
    `file_type="mbtiles"` (Outpost's own): a tiled MapServer serving the file's tiles."""
    import sqlite3
    import subprocess

    import requests

    tif, mbtiles = str(tmp_path / "field.tif"), str(tmp_path / "field.mbtiles")
    subprocess.run(["gdal_create", "-of", "GTiff", "-outsize", "256", "256", "-bands", "3", "-burn", "40", "-burn", "160", "-burn", "90",
                    "-a_srs", "EPSG:3857", "-a_ullr", "-20037508", "20037508", "20037508", "-20037508", tif], check=True, capture_output=True)
    subprocess.run(["gdal_translate", "-of", "MBTILES", tif, mbtiles], check=True, capture_output=True)
    with sqlite3.connect(mbtiles) as db:
        level, column, row, expected = db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY zoom_level DESC LIMIT 1").fetchone()
    alice = signed_in(portal, "alice")
    item = alice.content.add({"type": "MBTiles", "title": "Field imagery"}, data=mbtiles)
    service = item.publish(file_type="mbtiles", publish_parameters={"name": "Field_imagery"})
    assert service.type == "Map Service" and service.url.endswith("/rest/services/Field_imagery/MapServer")
    top_row = (1 << level) - 1 - row
    tile = requests.get(f"{service.url}/tile/{level}/{top_row}/{column}", params={"token": alice._con.token}, verify=False, timeout=30)
    assert tile.status_code == 200 and tile.content == bytes(expected)
    assert [related.id for related in service.related_items("Service2Data", "forward")] == [item.id]


def test_an_administrator_deletes_a_published_feature_service_once_no_device_holds_a_replica(portal, tmp_path):
    """`Item.delete()` of a hosted feature layer's item deletes the service (docs/portal.md,
    "Deleting a service"): refused while a replica is registered, done once it is unregistered;
    then the file it was published from is its owner's to delete again."""
    from api_key_support import DATA, call, token_of, users

    users(DATA[portal], "add", "carol", "--role", "admin", password="carol-password-1")
    alice = signed_in(portal, "alice")
    csv = tmp_path / "visits.csv"
    csv.write_text("site,x,y\nGate,13.40,52.50\nPond,13.41,52.51\n")
    upload = alice.content.add({"type": "CSV", "title": "Visits"}, data=str(csv))
    service = upload.publish(publish_parameters={"name": "Visits", "locationType": "coordinates", "longitudeFieldName": "x",
                                                 "latitudeFieldName": "y", "layerInfo": {"capabilities": "Query,Sync"}})
    status, replica = call(portal, "rest/services/Visits/FeatureServer/createReplica", token=token_of(portal, "alice"), f="json",
                           replicaName="field", layers="0", syncModel="perLayer", transportType="esriTransportTypeEmbedded",
                           returnAttachments="false")
    assert "replicaID" in replica, replica
    carol = GIS(portal, "carol", "carol-password-1", verify_cert=False)
    doomed = carol.content.get(service.id)
    assert doomed is not None and doomed.type == "Feature Service"
    with pytest.raises(Exception, match="replica"):
        doomed.delete()
    assert carol.content.get(service.id) is not None
    _, unregistered = call(portal, "rest/services/Visits/FeatureServer/unRegisterReplica", token=token_of(portal, "alice"), f="json",
                           replicaID=replica["replicaID"])
    assert unregistered.get("success") is True, unregistered
    assert doomed.delete() is True
    assert carol.content.get(service.id) is None
    assert alice.content.is_service_name_available("Visits", "featureService")
    assert upload.delete() is True
