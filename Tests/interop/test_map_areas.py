"""`outpost areas` against a running server (docs/map-areas.md): the CLI speaks the same
packaging requests as the ArcGIS API for Python (tested in test_portal.py)."""
import json
import os
import subprocess
import urllib.parse
import urllib.request

from conftest import DEMO_AREA_PACKAGES, DEMO_FEATURE_SERVICES, outpost, running_server

DEMO_MAP = "de3000000000000000000000000000a1"


def test_the_cli_creates_lists_and_deletes_a_map_area():
    with running_server() as base:
        server = ["--server", base]
        created = outpost("areas", "create", DEMO_MAP, "--extent", "5,45,20,56", "--title", "Central", "--refresh-schedule", "0 30 2 * * ?",
                          *server)
        lines = created.stdout.splitlines()
        area = lines[0]
        assert sorted(line.split("\t")[0] for line in lines[1:]) == ["new"] * DEMO_AREA_PACKAGES, created.stdout
        assert outpost("areas", "list", DEMO_MAP, *server).stdout.split("\t")[:2] == [area, "complete"]
        refused = outpost("areas", "create", DEMO_MAP, "--extent", "0,0,1,1", "--title", "Often", "--refresh-schedule", "*/5 * * * * ?",
                          *server, check=False)
        assert refused.returncode != 0 and "at most once a day" in refused.stderr, refused.stderr
        # Nothing edited since: every package is unchanged.
        refreshed = json.loads(outpost("areas", "refresh", area, *server).stdout)
        assert sorted(package["state"] for package in refreshed) == ["unchanged"] * DEMO_AREA_PACKAGES, refreshed
        outpost("areas", "delete", area, *server)
        assert outpost("areas", "list", DEMO_MAP, *server).stdout.strip() == ""


def post(url, **fields):
    data = urllib.parse.urlencode({"f": "json", **fields}).encode()
    with urllib.request.urlopen(url, data=data, timeout=60) as response:
        return json.loads(response.read())


def test_a_device_copy_follows_the_scheduled_update_deltas_and_is_told_when_to_take_it_whole(tmp_path):
    """`outpost areas download` and `update`: after an edit and a refresh the copy applies the
    package's delta and GDAL reads the edit in it; after the package was made again whole (its
    replica lost), `update` downloads it whole and says why (docs/map-areas.md, "Updating a copy")."""
    with running_server() as base:
        server = ["--server", base]
        area = outpost("areas", "create", DEMO_MAP, "--extent", "5,45,20,56", "--title", "Kept current", "--keep-updates-days", "5",
                       *server).stdout.splitlines()[0]
        folder = tmp_path / "device"
        listed = outpost("areas", "download", area, "--to", str(folder), *server).stdout.splitlines()
        assert sorted(line.split("\t")[1] for line in listed) == ["Compact Tile Package"] + ["GeoPackage"] * len(DEMO_FEATURE_SERVICES), listed
        demo = next(name for name in os.listdir(folder) if name.endswith(".gpkg") and "Cities" in ogr_layers(folder / name))
        assert outpost("areas", "update", str(folder), *server).stdout.count("up to date") == len(DEMO_FEATURE_SERVICES)

        added = post(f"{base}/rest/services/Demo/FeatureServer/0/applyEdits",
                     adds=json.dumps([{"attributes": {"name": "Deltaville"}, "geometry": {"x": 10, "y": 50}}]))["addResults"][0]
        assert added["success"], added
        outpost("areas", "refresh", area, *server)
        checked = outpost("areas", "update", str(folder), "--check", *server).stdout
        assert f"{demo}\twould apply d_" in checked, checked
        updated = outpost("areas", "update", str(folder), *server).stdout
        assert f"{demo}\tapplied d_" in updated, updated
        assert "Deltaville" in subprocess.run(["ogrinfo", "-ro", "-al", str(folder / demo), "-where", "name = 'Deltaville'"],
                                              capture_output=True, text=True, check=True).stdout

        # The package's replica lost: the refresh makes it again whole, and the copy follows whole.
        package = demo[:-len(".gpkg")]
        with urllib.request.urlopen(f"{base}/sharing/rest/content/items/{package}?f=json") as response:
            replica = json.loads(response.read())["properties"]["replicaID"]
        assert post(f"{base}/rest/services/Demo/FeatureServer/unRegisterReplica", replicaID=replica)["success"]
        assert "replaced" in outpost("areas", "refresh", area, *server).stdout
        whole = outpost("areas", "update", str(folder), *server).stdout
        assert f"{demo}\tdownloaded whole: the package was made again with a new replica" in whole, whole
        assert outpost("areas", "update", str(folder), *server).stdout.count("up to date") == len(DEMO_FEATURE_SERVICES)


def ogr_layers(path):
    return subprocess.run(["ogrinfo", "-ro", "-q", str(path)], capture_output=True, text=True, check=True).stdout
