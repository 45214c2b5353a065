"""Tile services with real clients (docs/tiles.md): GDAL's WMS driver opens the MapServer
from its JSON and reads a window whose pixels are the source tiles' pixels; a vector tile
fetched from the VectorTileServer opens in GDAL's MVT driver with the set's layers."""
import os
import subprocess
import urllib.request

from conftest import ROOT

SOURCE = os.path.join(ROOT, "testdata", "demo-raster.mbtiles")
# Every tile from the server, none from GDAL's disk cache of an earlier run.
NO_CACHE = ["--config", "GDAL_ENABLE_WMS_CACHE", "NO"]


def checksums(path):
    output = subprocess.run(["gdalinfo", "-checksum", path], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in output.splitlines() if "Checksum=" in line]


def test_gdal_reads_the_map_server_pixel_for_pixel(server, tmp_path):
    """Run in `tmp_path`, so a cache written despite the option would not land in the tree."""
    url = f"{server}/services/DemoBasemap/MapServer?f=json"
    info = subprocess.run(["gdalinfo", *NO_CACHE, url], capture_output=True, text=True, check=True).stdout
    assert "Driver: WMS" in info and "Size is 8192, 8192" in info, info
    # A window at the most detailed level and one read through an overview (level 3).
    for window, size in (("2048 2048 512 512", None), ("0 0 8192 8192", "1024 1024")):
        served, source = tmp_path / "served.tif", tmp_path / "source.tif"
        extra = ["-outsize", *size.split()] if size else []
        subprocess.run(["gdal_translate", *NO_CACHE, "-q", "-srcwin", *window.split(), *extra, url, str(served)], check=True, cwd=tmp_path)
        subprocess.run(["gdal_translate", "-q", "-b", "1", "-b", "2", "-b", "3", "-srcwin", *window.split(), *extra, SOURCE, str(source)],
                       check=True)
        assert checksums(str(served))[:3] == checksums(str(source))[:3]


def test_a_vector_tile_opens_in_gdal_with_the_sets_layers(server, tmp_path):
    folder = tmp_path / "2" / "2"
    folder.mkdir(parents=True)
    tile = folder / "1.pbf"
    with urllib.request.urlopen(f"{server}/services/DemoVectorBasemap/VectorTileServer/tile/2/1/2.pbf") as response:
        assert response.headers["Content-Encoding"] == "gzip"
        tile.write_bytes(response.read())
    layers = subprocess.run(["ogrinfo", "-q", str(tile)], capture_output=True, text=True, check=True).stdout
    assert "countries" in layers and "cities" in layers, layers
