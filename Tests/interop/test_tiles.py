"""Tile services with real clients (docs/tiles.md): GDAL's WMS driver opens the MapServer
from its JSON and reads a window whose pixels are the source tiles' pixels; a vector tile
fetched from the VectorTileServer opens in GDAL's MVT driver with the set's layers."""
import json
import os
import sqlite3
import struct
import subprocess
import time
import urllib.parse
import urllib.request
import zipfile

import pytest

from conftest import ROOT, UNVERIFIED

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


# exportTiles (docs/tiles.md, "Export") with the ArcGIS API for Python, opened by GDAL.

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")


def bundle_tile(bundle, row, column):
    """A tile out of a Compact Cache V2 bundle, read from Esri's layout (§3.4)."""
    entry = struct.unpack_from("<Q", bundle, 64 + 8 * ((row % 128) * 128 + column % 128))[0]
    offset, size = entry & ((1 << 40) - 1), entry >> 40
    assert struct.unpack_from("<I", bundle, offset - 4)[0] == size
    return bundle[offset:offset + size] if size else None


def test_the_python_api_exports_a_tpkx_that_gdal_opens_with_the_services_tiles(tls_server, tmp_path):
    from arcgis.gis import GIS
    from arcgis.layers import MapImageLayer
    import rasterio

    gis = GIS(tls_server, verify_cert=False)
    layer = MapImageLayer(f"{tls_server}/rest/services/DemoBasemap/MapServer", gis=gis)
    estimate = layer.estimate_export_tiles_size(export_by="LevelID", levels="0-3", tile_package=True, asynchronous=False)
    assert estimate["totalTilesToExport"] == 85, estimate
    paths = layer.export_tiles(levels="0-3")
    assert len(paths) == 1 and paths[0].endswith("DemoBasemap.tpkx"), paths
    package = zipfile.ZipFile(paths[0])
    assert {info.compress_type for info in package.infolist()} == {zipfile.ZIP_STORED} and package.testzip() is None
    assert os.path.getsize(paths[0]) > estimate["totalSize"]
    # Every tile byte for byte as the service serves it.
    for level in range(4):
        bundle = package.read(f"tile/L{level:02d}/R0000C0000.bundle")
        for row in range(1 << level):
            for column in range(1 << level):
                with urllib.request.urlopen(f"{tls_server}/rest/services/DemoBasemap/MapServer/tile/{level}/{row}/{column}",
                                            context=UNVERIFIED) as response:
                    assert bundle_tile(bundle, row, column) == response.read(), (level, row, column)
    # GDAL's ESRIC driver (3.8+) reads it: the world at level 3, pixels as the source's.
    with rasterio.open(paths[0]) as dataset:
        assert dataset.driver == "ESRIC" and (dataset.width, dataset.height) == (2048, 2048), dataset.profile
        assert tuple(int(part) for part in rasterio.__gdal_version__.split(".")[:2]) >= (3, 8)
        exported = dataset.read((1, 2, 3), window=((512, 768), (1024, 1280)))
    # The same window of the level-3 tile read straight from the source MBTiles' level 3.
    level3 = tmp_path / "level3.tif"
    subprocess.run(["gdal_translate", "-q", "-oo", "ZOOM_LEVEL=3", "-b", "1", "-b", "2", "-b", "3", "-srcwin", "1024", "512", "256", "256",
                    SOURCE, str(level3)], check=True)
    with rasterio.open(level3) as reference:
        assert (reference.read() == exported).all()


def test_exported_mbtiles_open_in_gdal_and_ogr(tls_server, tmp_path):
    from arcgis.gis import GIS
    from arcgis.layers import VectorTileLayer

    gis = GIS(tls_server, verify_cert=False)
    vector = VectorTileLayer(f"{tls_server}/rest/services/DemoVectorBasemap/VectorTileServer", gis=gis)
    path = vector.export_tiles(levels="0-2")
    path = path[0] if isinstance(path, list) else path
    assert path.endswith("DemoVectorBasemap.mbtiles"), path
    layers = subprocess.run(["ogrinfo", "-q", "-oo", "ZOOM_LEVEL=2", path], capture_output=True, text=True, check=True).stdout
    assert "countries" in layers and "cities" in layers, layers

    # A raster export as MBTiles on request, over plain HTTP: gdalinfo opens it.
    base = f"{tls_server}/rest/services/DemoBasemap/MapServer"
    query = urllib.parse.urlencode({"f": "json", "levels": "0-2", "storageFormat": "MBTiles", "exportExtent": "-10,35,30,60"})
    with urllib.request.urlopen(f"{base}/exportTiles?{query}", context=UNVERIFIED) as response:
        job = json.loads(response.read())["jobId"]
    for _ in range(200):
        with urllib.request.urlopen(f"{base}/exportTiles/jobs/{job}?f=json", context=UNVERIFIED) as response:
            status = json.loads(response.read())
        if status["jobStatus"] in ("esriJobSucceeded", "esriJobFailed"):
            break
        time.sleep(0.05)
    assert status["jobStatus"] == "esriJobSucceeded", status
    with urllib.request.urlopen(f"{base}/exportTiles/jobs/{job}/results/out_service_url?f=json", context=UNVERIFIED) as response:
        folder = json.loads(response.read())["value"]
    with urllib.request.urlopen(f"{folder}?f=json", context=UNVERIFIED) as response:
        url = json.loads(response.read())["files"][0]["url"]
    raster = tmp_path / "DemoBasemap.mbtiles"
    with urllib.request.urlopen(url, context=UNVERIFIED) as response:
        raster.write_bytes(response.read())
    info = subprocess.run(["gdalinfo", str(raster)], capture_output=True, text=True, check=True).stdout
    assert "Driver: MBTiles/MBTiles" in info and "ZOOM_LEVEL=2" in info, info


def test_a_geopackage_of_tiles_is_served_tile_for_tile(tmp_path):
    """GDAL's GeoPackage tiles (GoogleMapsCompatible, with overviews) imported and served with
    each tile's bytes as the GeoPackage holds them; another tiling is refused, saying how to fix it."""
    from conftest import outpost, running_server

    pyramid = tmp_path / "pyramid.gpkg"
    subprocess.run(["gdal_translate", "-q", "-of", "GPKG", "-co", "TILING_SCHEME=GoogleMapsCompatible", SOURCE, str(pyramid)], check=True)
    subprocess.run(["gdaladdo", "-q", str(pyramid), "2", "4", "8"], check=True)
    data = str(tmp_path / "data")
    outpost("import", str(pyramid), "--service", "Pyramid", "--data", data)
    with running_server(data, "--no-demo") as base:
        with urllib.request.urlopen(f"{base}/rest/services/Pyramid/MapServer?f=json") as response:
            info = json.loads(response.read())
        assert info["singleFusedMapCache"] and [lod["level"] for lod in info["tileInfo"]["lods"]] == list(range(6)), info
        with sqlite3.connect(pyramid) as db:
            for level, row, column in ((5, 12, 17), (3, 2, 5), (2, 1, 2)):
                (stored,) = db.execute("SELECT tile_data FROM pyramid WHERE zoom_level = ? AND tile_row = ? AND tile_column = ?",
                                       (level, row, column)).fetchone()
                with urllib.request.urlopen(f"{base}/rest/services/Pyramid/MapServer/tile/{level}/{row}/{column}") as response:
                    assert response.read() == stored, (level, row, column)

    geographic = tmp_path / "geographic.gpkg"
    subprocess.run(["gdalwarp", "-q", "-t_srs", "EPSG:4326", "-ts", "512", "256", "-of", "GPKG", SOURCE, str(geographic)], check=True)
    refused = outpost("import", str(geographic), "--service", "Geographic", "--data", data, check=False)
    assert refused.returncode != 0 and "TILING_SCHEME=GoogleMapsCompatible" in refused.stderr + refused.stdout, refused
