"""The portal's `publish` with the ArcGIS API for Python 2.4.4 as the client (docs/portal.md,
"Publishing"): alice adds a zipped Shapefile, a zipped File Geodatabase and a GeoJSON file with
`gis.content.add`, publishes each with `Item.publish()` (the client's own publishParameters and
status polling), and reads the services it hands back; bob, another editor, cannot publish
her file. HTTPS with `--require-auth`, on either backend (OUTPOST_INTEROP_BACKEND)."""
import os
import subprocess
import tempfile
import zipfile

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.gis import GIS  # noqa: E402

from api_key_support import users  # noqa: E402
from conftest import ROOT, running_server  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning", "ignore::DeprecationWarning")

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-1"}
CITIES = os.path.join(ROOT, "testdata", "naturalearth_cities.geojson")
COUNTRIES = os.path.join(ROOT, "testdata", "naturalearth_countries.geojson")


@pytest.fixture(scope="module")
def portal():
    data = tempfile.mkdtemp(prefix="outpost-publish-")
    for name, password in PASSWORDS.items():
        users(data, "add", name, "--role", "editor", password=password)
    with running_server(data, "--require-auth", tls=True) as base:
        yield base


def zipped(folder, name):
    """`folder`'s files (or the folder itself, for a geodatabase) in a ZIP archive."""
    target = os.path.join(os.path.dirname(folder), name)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for directory, _, files in os.walk(folder):
            for file in files:
                path = os.path.join(directory, file)
                archive.write(path, os.path.relpath(path, os.path.dirname(folder) if folder.endswith(".gdb") else folder))
    return target


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    base = tmp_path_factory.mktemp("uploads")
    shapefile = base / "cities"
    shapefile.mkdir()
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", str(shapefile / "cities.shp"), CITIES], check=True)
    gdb = base / "countries.gdb"
    subprocess.run(["ogr2ogr", "-f", "OpenFileGDB", "-nlt", "MULTIPOLYGON", str(gdb), COUNTRIES], check=True)
    return {"shapefile": zipped(str(shapefile), "cities.zip"), "gdb": zipped(str(gdb), "countries.zip"), "geojson": CITIES}


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
    assert service.url.endswith("/rest/services/cities/FeatureServer")
    layer = service.layers[0]
    assert layer.query(where="1=1", return_count_only=True) == 243
    names = {feature.attributes["name"] for feature in layer.query(where="1=1", out_fields="name").features}
    assert "Bern" in names
    # The client asked for static data ("layerInfo": {"capabilities": "Query"}): no editing.
    assert "Create" not in service.layers[0].properties.capabilities
    assert [related.id for related in service.related_items("Service2Data", "forward")] == [item.id]


def test_a_zipped_file_geodatabase_and_geojson_are_published_too(portal, files):
    alice = signed_in(portal, "alice")
    gdb = alice.content.add({"type": "File Geodatabase", "title": "Countries upload"}, data=files["gdb"])
    countries = gdb.publish()
    assert countries.url.endswith("/rest/services/Countries_upload/FeatureServer")
    assert countries.layers[0].properties.geometryType == "esriGeometryPolygon"
    assert countries.layers[0].query(where="1=1", return_count_only=True) == 177
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
