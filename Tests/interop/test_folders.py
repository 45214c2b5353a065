"""Services in a folder (`outpost import --service Folder/Name`), seen by real clients: the
ArcGIS API for Python's ServicesDirectory lists the folder and opens the service through it,
GDAL and esridump read the layer through the folder's URL, and a replica made with the CLI
syncs through it."""
import json
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT, outpost, running_server

arcgis_server = pytest.importorskip("arcgis.gis.server")
from arcgis.features import FeatureLayerCollection  # noqa: E402

CITIES = os.path.join(ROOT, "testdata", "naturalearth_cities.geojson")


@pytest.fixture
def folder_data():
    """A fresh data folder with the cities in the folder Field and once more at the root."""
    data = tempfile.mkdtemp(prefix="outpost-folders-")
    outpost("import", CITIES, "--service", "Field/Cities", "--layer-name", "Cities", "--attachments", "--data", data)
    outpost("import", CITIES, "--service", "Cities", "--layer-name", "Cities", "--data", data)
    return data


def test_the_arcgis_api_for_python_lists_the_folder_and_opens_its_service(folder_data):
    with running_server(folder_data, tls=True) as base:
        directory = arcgis_server.ServicesDirectory(url=base, verify_cert=False)
        assert directory.folders == ["Field"]
        in_folder = directory.list(folder="Field")
        assert [service.url for service in in_folder] == [f"{base}/rest/services/Field/Cities/FeatureServer"]
        assert [service.url for service in directory.list()] == [f"{base}/rest/services/Cities/FeatureServer"]
        found = directory.get("Cities", folder="Field")
        assert found.url == f"{base}/rest/services/Field/Cities/FeatureServer"
        assert found.layers[0].properties.name == "Cities"
        # Editing needs the directory as the layer's GIS (what `get` hands out carries only a connection).
        layer = FeatureLayerCollection(found.url, gis=directory).layers[0]
        added = layer.edit_features(adds=[{"attributes": {"name": "Base camp"},
                                           "geometry": {"x": 7.5, "y": 46.5, "spatialReference": {"wkid": 4326}}}])
        assert added["addResults"][0]["success"] is True
        assert layer.query(where="1=1", return_count_only=True) == 244
        # The root service of the same name is another service.
        root = FeatureLayerCollection(directory.get("Cities").url, gis=directory)
        assert root.layers[0].query(where="1=1", return_count_only=True) == 243
        with pytest.raises(ValueError):
            directory.get("Cities", folder="Nowhere")


def test_gdal_and_esridump_read_a_layer_through_its_folder(folder_data, tmp_path):
    with running_server(folder_data) as base:
        layer = f"{base}/rest/services/Field/Cities/FeatureServer/0"
        info = subprocess.run(["ogrinfo", "-ro", "-al", "-so", f"ESRIJSON:{layer}/query?where=1%3D1&outFields=*&f=json"],
                              capture_output=True, text=True, check=True).stdout
        assert "Feature Count: 243" in info
        target = tmp_path / "cities.geojson"
        binary = os.path.join(os.path.dirname(sys.executable), "esri2geojson")
        subprocess.run([binary, layer, str(target)], capture_output=True, text=True, check=True)
        names = sorted(feature["properties"]["name"] for feature in json.loads(target.read_text())["features"])
        assert len(names) == 243 and "Bern" in names


def test_a_replica_of_a_folder_service_syncs_through_the_folder(folder_data, tmp_path):
    with running_server(folder_data) as base:
        service = f"{base}/rest/services/Field/Cities/FeatureServer"
        replica = tmp_path / "field.gpkg"
        outpost("replica", "create", service, "--out", str(replica), "--no-attachments")
        # GDAL edits the GeoPackage (its R*Tree triggers need GeoPackage SQL functions).
        subprocess.run(["ogrinfo", str(replica), "-sql", "UPDATE Cities SET name = 'Bern (field)' WHERE name = 'Bern'"],
                       capture_output=True, text=True, check=True)
        assert "pending local edits: 1" in outpost("replica", "status", str(replica)).stdout
        assert "uploaded 1 edits" in outpost("replica", "sync", str(replica)).stdout
        bern = subprocess.run(["ogrinfo", "-ro", "-al", "-q", f"ESRIJSON:{service}/0/query?where=name%20LIKE%20%27Bern%25%27&outFields=name&f=json"],
                              capture_output=True, text=True, check=True).stdout
        assert "Bern (field)" in bern
        root = subprocess.run(["ogrinfo", "-ro", "-al", "-q", f"ESRIJSON:{base}/rest/services/Cities/FeatureServer/0/query?where=name%3D%27Bern%27&outFields=name&f=json"],
                              capture_output=True, text=True, check=True).stdout
        assert "name (String) = Bern" in root
        outpost("replica", "unregister", str(replica))
