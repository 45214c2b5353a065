"""A city exported with exportTiles opens in GDAL with the service's own pixels (issue 44):
the package's extent is its tiles', so GDAL's ESRIC driver (`.tpkx`) and MBTiles driver,
which lay a package out at its deepest level's resolution and crop to that extent, see whole
tiles rather than a city that is under a pixel at the demo's level 5 (docs/tiles.md, "Export")."""
import io
import json
import math
import time
import urllib.parse
import urllib.request
import zipfile

import numpy
import pytest
import rasterio
from PIL import Image

# Paris, about 3 by 3 km; levels 2 to 5 of DemoBasemap (a level-5 pixel is about 4.9 km).
CITY = (2.33, 48.84, 2.37, 48.87)
LEVELS = range(2, 6)


def tile_of(longitude, latitude, level):
    """The row and column of the Web Mercator tile holding a point (the XYZ scheme ArcGIS shares)."""
    n = 1 << level
    column = int((longitude + 180) / 360 * n)
    row = int((1 - math.asinh(math.tan(math.radians(latitude))) / math.pi) / 2 * n)
    return row, column


def exported(service, storage_format, tmp_path):
    query = urllib.parse.urlencode({"f": "json", "levels": f"{LEVELS[0]}-{LEVELS[-1]}", "storageFormat": storage_format,
                                    "exportExtent": ",".join(map(str, CITY))})
    with urllib.request.urlopen(f"{service}/exportTiles?{query}") as response:
        job = json.loads(response.read())["jobId"]
    for _ in range(400):
        with urllib.request.urlopen(f"{service}/exportTiles/jobs/{job}?f=json") as response:
            status = json.loads(response.read())
        if status["jobStatus"] in ("esriJobSucceeded", "esriJobFailed"):
            break
        time.sleep(0.05)
    assert status["jobStatus"] == "esriJobSucceeded", status
    with urllib.request.urlopen(f"{service}/exportTiles/jobs/{job}/results/out_service_url?f=json") as response:
        folder = json.loads(response.read())["value"]
    with urllib.request.urlopen(f"{folder}?f=json") as response:
        url = json.loads(response.read())["files"][0]["url"]
    path = tmp_path / url.rsplit("/", 1)[1]
    with urllib.request.urlopen(url) as response:
        path.write_bytes(response.read())
    return path


def served_tile(service, level, row, column):
    """The service's own tile, decoded by PIL, as rows × columns × RGBA."""
    with urllib.request.urlopen(f"{service}/tile/{level}/{row}/{column}") as response:
        return numpy.asarray(Image.open(io.BytesIO(response.read())).convert("RGBA"))


@pytest.mark.parametrize("storage_format", ["tpkx", "mbtiles"])
def test_a_citys_export_opens_in_gdal_with_the_services_pixels_at_each_level(server, tmp_path, storage_format):
    service = f"{server}/services/DemoBasemap/MapServer"
    path = exported(service, storage_format, tmp_path)
    if storage_format == "tpkx":
        root = json.loads(zipfile.ZipFile(path).read("root.json"))
        assert root["fullExtent"]["xmax"] - root["fullExtent"]["xmin"] > 1_000_000, root["fullExtent"]  # a tile, not the city
    center = ((CITY[0] + CITY[2]) / 2, (CITY[1] + CITY[3]) / 2)
    deepest = LEVELS[-1]
    row, column = tile_of(*center, deepest)
    with rasterio.open(path) as dataset:
        assert dataset.driver == ("ESRIC" if storage_format == "tpkx" else "MBTiles"), dataset.driver
        # The level-5 tile the city is in, whole, where the service says it is.
        assert (dataset.width, dataset.height) == (256, 256), dataset.profile
        size = 2 * 20037508.342789244 / (1 << deepest)
        assert dataset.bounds.left == pytest.approx(-20037508.342789244 + column * size, abs=1e-3)
        assert dataset.bounds.top == pytest.approx(20037508.342789244 - row * size, abs=1e-3)
        pixels = numpy.moveaxis(dataset.read(), 0, -1)
        assert (pixels == served_tile(service, deepest, row, column)).all()
        # Level 4 through GDAL's overview: the quarter of its tile that holds the level-5 tile.
        assert dataset.overviews(1)[:1] == [2], dataset.overviews(1)
        coarser = numpy.moveaxis(dataset.read(out_shape=(dataset.count, 128, 128)), 0, -1)
    parent_row, parent_column = tile_of(*center, deepest - 1)
    top, left = (row - 2 * parent_row) * 128, (column - 2 * parent_column) * 128
    expected = served_tile(service, deepest - 1, parent_row, parent_column)[top:top + 128, left:left + 128]
    assert (coarser == expected).all()
