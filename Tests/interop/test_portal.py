"""The portal with the ArcGIS API for Python over HTTPS, token security on: it signs in with
the server's token service, searches, reads the "Demo map" and its data, lists the map's
layers and queries them, adds a web map of its own and checks it with `arcgis.map`'s offline
compatibility check; a private item stays invisible to another user and to anonymous
callers until it is shared (docs/portal.md)."""
import json
import os
import subprocess
import tempfile
import urllib.request

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.gis import GIS  # noqa: E402

from conftest import BINARY, UNVERIFIED, outpost, running_server  # noqa: E402

DEMO_MAP = "de3000000000000000000000000000a1"


@pytest.fixture(scope="module")
def portal():
    data = tempfile.mkdtemp(prefix="outpost-portal-")
    for name in ("ada", "bob"):
        environment = {**os.environ, "OUTPOST_PASSWORD": f"{name}-password-1"}
        subprocess.run([BINARY, "users", "add", name, "--role", "editor", "--data", data], env=environment, check=True,
                       capture_output=True)
    with running_server(data, "--require-auth", tls=True) as base:
        yield base, data


def sign_in(base, name):
    return GIS(base, name, f"{name}-password-1", verify_cert=False, use_gen_token=True)


def anonymous_search(base, query):
    url = f"{base}/sharing/rest/search?f=json&q={urllib.parse.quote(query)}"
    with urllib.request.urlopen(url, context=UNVERIFIED) as response:
        return json.loads(response.read())


def test_signs_in_finds_the_demo_map_and_reads_its_layers(portal):
    base, _ = portal
    gis = sign_in(base, "ada")
    assert gis.users.me.username == "ada"
    assert gis.properties.portalName == "Outpost"
    found = gis.content.search('title:"Demo map"')
    assert [item.id for item in found] == [DEMO_MAP]
    item = gis.content.get(DEMO_MAP)
    assert item.type == "Web Map" and "Offline" in item.typeKeywords
    data = item.get_data()
    urls = [layer["url"] for layer in data["operationalLayers"]]
    assert urls and all(url.startswith(base + "/rest/services/") for url in urls), urls

    from arcgis.map import Map
    layers = Map(item=item).content.layers
    assert [layer.url for layer in layers] == urls
    cities = next(layer for layer in layers if layer.url.endswith("/Demo/FeatureServer/0"))
    assert cities.query(where="1=1", return_count_only=True) == 243
    services = gis.content.search('type:"Feature Service"')
    assert sorted(item.title for item in services) == ["Demo", "Parcels"]
    assert all(item.url.startswith(base + "/rest/services/") for item in services)


def test_a_web_map_of_ones_own_passes_the_offline_compatibility_check(portal):
    base, _ = portal
    gis = sign_in(base, "ada")
    data = gis.content.get(DEMO_MAP).get_data()
    item_id = gis._portal.add_item({"type": "Web Map", "title": "Ada's field map", "text": json.dumps(data),
                                    "typeKeywords": "Web Map,Offline", "tags": "field"})
    item = gis.content.get(item_id)
    assert item.owner == "ada"

    from arcgis.map import Map
    report = Map(item=item).offline_areas.check_compatibility()
    assert report.offline_ready, report
    assert [layer.title for layer in report.operational_layers] == ["Cities", "Countries", "Trees", "Parcels"]
    assert all(layer.offline_ready for layer in report.operational_layers + report.tables)
    # The basemap is the demo's tiled map service, which allows exporting its tiles.
    assert [layer.title for layer in report.basemap_layers] == ["Demo basemap"]
    assert report.basemap_layers[0].offline_ready, report.basemap_layers

    # Marked OfflineDisabled, the same check says no.
    assert item.update(item_properties={"typeKeywords": "Web Map,OfflineDisabled"})
    report = Map(item=gis.content.get(item_id)).offline_areas.check_compatibility()
    assert not report.offline_ready and report.map_issues, report


def test_a_private_item_is_not_found_by_others_until_shared(portal):
    base, data_folder = portal
    # Added by the operator's CLI beside the running server, owned by ada, private.
    with open(os.path.join(tempfile.mkdtemp(), "map.json"), "w") as file:
        json.dump({"operationalLayers": [], "baseMap": {"baseMapLayers": [], "title": "none"}}, file)
    created = outpost("webmap", "add", file.name, "--title", "Ada's secret map", "--owner", "ada", "--data", data_folder)
    item_id = created.stdout.strip()

    ada, bob = sign_in(base, "ada"), sign_in(base, "bob")
    assert [item.id for item in ada.content.search('title:"secret map"')] == [item_id]
    assert bob.content.search('title:"secret map"') == []
    assert bob.content.get(item_id) is None
    assert anonymous_search(base, 'title:"secret map"')["total"] == 0

    ada.content.get(item_id).sharing.sharing_level = "ORGANIZATION"
    assert [item.id for item in bob.content.search('title:"secret map"')] == [item_id]
    assert anonymous_search(base, 'title:"secret map"')["total"] == 0
    # Bob sees it now, but it is still ada's: he cannot delete it.
    with pytest.raises(Exception):
        bob.content.get(item_id).delete()
    assert ada.content.get(item_id) is not None


def test_the_packaging_service_publishes_its_tasks_to_the_python_api(portal):
    """The Python API builds its packaging functions from the service's task metadata
    (docs/map-areas.md): the parameters it reads are the ones Appendix B lists."""
    import inspect

    from arcgis.geoprocessing import import_toolbox

    base, _ = portal
    gis = sign_in(base, "ada")
    url = gis.properties.helperServices.packaging.url
    assert url == f"{base}/rest/services/System/OfflinePackaging/GPServer"
    tools = import_toolbox(url, gis=gis)
    assert list(inspect.signature(tools.create_map_area).parameters)[:6] == [
        "map_item_id", "bookmark", "extent", "area_type", "area", "output_name"]
    assert list(inspect.signature(tools.setup_map_area).parameters)[:4] == [
        "map_area_item_id", "map_layers_to_ignore", "tile_services", "feature_services"]
    assert "packages" in inspect.signature(tools.refresh_map_area_package).parameters


def test_the_python_api_creates_and_lists_map_areas_whose_packages_gdal_opens(portal, tmp_path):
    """offline_areas.create for an extent and for a bookmark: CreateMapArea, the item
    updates the Python API makes, SetupMapArea; the packages are items related to the area
    (a GeoPackage replica per feature service, a .tpkx of the basemap) whose files GDAL opens
    with the area's features (docs/map-areas.md)."""
    import sqlite3

    from arcgis.map import Map

    base, _ = portal
    gis = sign_in(base, "bob")
    data = gis.content.get(DEMO_MAP).get_data()
    data["bookmarks"] = [{"name": "Alps", "extent": {"xmin": 5, "ymin": 44, "xmax": 17, "ymax": 49, "spatialReference": {"wkid": 4326}}}]
    item_id = gis._portal.add_item({"type": "Web Map", "title": "Bob's field map", "text": json.dumps(data),
                                    "typeKeywords": "Web Map,Offline", "tags": "field"})
    areas = Map(item=gis.content.get(item_id)).offline_areas
    central = areas.create(area=[[5, 45], [20, 56]], item_properties={"title": "Central Europe", "tags": ["field"]},
                           refresh_schedule="Daily", refresh_rates={"hour": 2, "minute": 30})
    alps = areas.create(area="Alps", item_properties={"title": "Alps"})
    assert sorted(item.title for item in areas.list()) == ["Alps", "Central Europe"]

    central = gis.content.get(central.id)
    assert central.type == "Map Area" and central.properties["status"] == "complete", central.properties
    assert central.properties["packageRefreshSchedule"] == "0 30 2 * * ?"
    packages = central.related_items("Area2Package", "forward")
    assert sorted(item.type for item in packages) == ["Compact Tile Package", "GeoPackage", "GeoPackage"], packages
    for package in packages:
        path = package.download(save_path=str(tmp_path))
        if package.type == "GeoPackage":
            assert package.properties["replicaID"] and "Syncable" in package.typeKeywords
            layers = subprocess.run(["ogrinfo", "-ro", "-q", path], capture_output=True, text=True, check=True).stdout
            assert layers.strip(), layers
        else:
            import rasterio
            with rasterio.open(path) as dataset:
                assert dataset.driver == "ESRIC"
    # The cities inside the area's box, as the service counts them, are in the Demo package.
    demo = next(p for p in packages if p.properties["url"].endswith("/Demo/FeatureServer"))
    with sqlite3.connect(demo.download(save_path=str(tmp_path / "again"))) as db:
        tables = [row[0] for row in db.execute("SELECT table_name FROM gpkg_contents WHERE data_type = 'features'")]
        cities = next(t for t in tables if t.lower().startswith("cit"))
        (count,) = db.execute(f'SELECT count(*) FROM "{cities}"').fetchone()
    query = urllib.parse.urlencode({"where": "1=1", "geometry": "5,45,20,56", "geometryType": "esriGeometryEnvelope", "inSR": 4326,
                                    "returnCountOnly": "true", "f": "json", "token": gis._con.token})
    with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/0/query?{query}", context=UNVERIFIED) as response:
        expected = json.loads(response.read())["count"]
    assert count == expected and 0 < count < 243, (count, expected)
    assert alps.id != central.id
