"""`outpost import` with files written by GDAL, then read back through the live API."""
import json
import os
import subprocess
import urllib.request

from conftest import BINARY, ROOT, on_backend, running_server


def run_import(binary, source, data, service, *extra):
    return subprocess.run(on_backend([binary, "import", source, "--service", service, "--data", data, *extra]),
                          capture_output=True, text=True)


def test_import_gdal_geopackage_and_geojson_then_serve(tmp_path):
    binary = BINARY
    countries = os.path.join(ROOT, "testdata", "naturalearth_countries.geojson")
    gpkg = str(tmp_path / "world.gpkg")
    # A GeoPackage written by GDAL, with a non-WGS84 layer (Web Mercator) to exercise the SRS mapping.
    subprocess.run(["ogr2ogr", "-f", "GPKG", gpkg, countries, "-nln", "countries", "-t_srs", "EPSG:3857"], check=True)
    data = str(tmp_path / "data")

    result = run_import(binary, gpkg, data, "World", "--versioned")
    assert result.returncode == 0, result.stderr
    assert "World/FeatureServer/0 countries: 177 rows" in result.stdout
    result = run_import(binary, countries, data, "Countries")
    assert result.returncode == 0, result.stderr
    # A second service of the same name is refused and changes nothing.
    result = run_import(binary, countries, data, "countries")
    assert result.returncode != 0 and "already exists" in (result.stderr + result.stdout)

    with running_server(data, "--no-demo") as root:
        base = f"{root}/rest/services"
        services = json.loads(urllib.request.urlopen(f"{base}?f=json", timeout=10).read())
        assert [s["name"] for s in services["services"]] == ["Countries", "World"]
        world = json.loads(urllib.request.urlopen(f"{base}/World/FeatureServer?f=json").read())
        assert world["hasVersionedData"] is True
        assert world["spatialReference"]["latestWkid"] == 3857
        query = "where=iso_a3%3D%27FRA%27&outFields=name&outSR=4326&f=json"
        france = json.loads(urllib.request.urlopen(f"{base}/World/FeatureServer/0/query?{query}").read())["features"][0]
        assert france["attributes"]["name"] == "France"
        xs = [x for ring in france["geometry"]["rings"] for x, _ in ring]
        assert -60 < min(xs) < 10 and max(xs) < 60  # back in degrees
        count = json.loads(urllib.request.urlopen(f"{base}/Countries/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json").read())
        assert count == {"count": 177}
