"""`outpost map capabilities|take-offline` against a running server: the demo web map taken
offline into a folder that GDAL opens without Outpost (docs/offline-map-format.md)."""
import json
import os
import subprocess

from conftest import outpost, running_server

DEMO_MAP = "de3000000000000000000000000000a1"


def test_the_demo_map_goes_offline_into_a_folder_gdal_opens(tmp_path):
    with running_server() as base:
        where = ["--server", base, "--area", "5,45,20,56"]
        capabilities = outpost("map", "capabilities", DEMO_MAP, *where).stdout.splitlines()
        assert capabilities and all(line.split("\t")[1] == "offline" for line in capabilities), capabilities
        folder = tmp_path / "demo-offline"
        taken = outpost("map", "take-offline", DEMO_MAP, *where, "--max-scale", "36978595.47", "--out", str(folder))
        assert taken.stdout.strip().endswith(str(folder)) and "map: 100%" in taken.stdout, taken.stdout
        assert "not taken" not in taken.stdout

    manifest = json.loads((folder / "package.json").read_text())
    assert manifest["format"] == "outpost-offline-map" and manifest["errors"] == []
    files = {entry["file"] for entry in manifest["files"]}
    assert files == {"data/Demo.gpkg", "data/Parcels.gpkg", "tiles/DemoBasemap.tpkx"}, files
    web_map = json.loads((folder / "map.json").read_text())
    for layer in web_map["operationalLayers"] + web_map["tables"] + web_map["baseMap"]["baseMapLayers"]:
        assert (folder / layer["url"]).exists(), layer
        assert layer["x-outpost-source"].startswith("http"), layer

    # GDAL reads every file: the GeoPackages' layers, the tile package's levels.
    for name in ("Demo", "Parcels"):
        listing = subprocess.run(["ogrinfo", "-ro", "-q", str(folder / "data" / f"{name}.gpkg")], capture_output=True, text=True, check=True)
        assert listing.stdout.strip(), listing.stdout
    import rasterio
    with rasterio.open(folder / "tiles" / "DemoBasemap.tpkx") as dataset:
        assert dataset.driver == "ESRIC" and dataset.width > 0 and dataset.read(4).any(), dataset.profile
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]
