"""The CLI takes an item's URL where it takes an item id (issue 44): the URL a user copies from
a portal's item page or the REST API names the item and, without `--server`, the portal
(docs/client.md, "Offline maps")."""
import json

from conftest import DEMO_AREA_PACKAGES, outpost, running_server

DEMO_MAP = "de3000000000000000000000000000a1"
PARK = "13.2,52.4,13.26,52.46"


def test_item_urls_stand_for_the_id_and_the_server(tmp_path):
    with running_server() as base:
        page = f"{base}/home/item.html?id={DEMO_MAP}"
        rest = f"{base}/sharing/rest/content/items/{DEMO_MAP}/data?f=json"
        viewer = f"{base}/home/webmap/viewer.html?webmap={DEMO_MAP}#overview"

        by_id = outpost("map", "capabilities", DEMO_MAP, "--server", base, "--area", PARK).stdout
        assert by_id.strip(), by_id
        for url in (page, rest, viewer):
            assert outpost("map", "capabilities", url, "--area", PARK).stdout == by_id, url
        # --server still wins over the URL's portal (here, one that does not answer).
        wrong = outpost("map", "capabilities", page.replace(base, "http://127.0.0.1:9/arcgis"), "--server", base, "--area", PARK)
        assert wrong.stdout == by_id

        area = outpost("areas", "create", rest, "--extent", PARK, "--title", "By URL").stdout.splitlines()[0]
        assert outpost("areas", "list", page).stdout.split("\t")[:2] == [area, "complete"]
        listed = outpost("map", "areas", viewer).stdout
        assert listed.startswith(f"{area}\tcomplete\tBy URL\t{DEMO_AREA_PACKAGES} packages"), listed
        area_url = f"{base}/sharing/rest/content/items/{area}"
        folder = tmp_path / "by-url"
        outpost("map", "download-area", f"{base}/home/item.html?id={area}", "--out", str(folder), "--no-basemap")
        assert json.loads((folder / "package.json").read_text())["source"]["mode"] == "preplanned"
        assert json.loads(outpost("areas", "refresh", area_url).stdout), "refresh answers JSON"
        downloaded = tmp_path / "packages"
        assert len(outpost("areas", "download", area_url, "--to", str(downloaded)).stdout.splitlines()) == DEMO_AREA_PACKAGES
        outpost("areas", "delete", area_url)
        assert outpost("areas", "list", page).stdout.strip() == ""

        offline = tmp_path / "offline"
        taken = outpost("map", "take-offline", page, "--area", PARK, "--no-basemap", "--out", str(offline))
        assert taken.stdout.strip().endswith(str(offline)) and (offline / "package.json").exists(), taken.stdout


def test_an_id_without_a_server_or_a_url_without_an_item_is_refused_saying_what_to_give():
    refused = outpost("map", "capabilities", DEMO_MAP, "--area", PARK, check=False)
    assert refused.returncode != 0 and "--server is needed" in refused.stderr, refused.stderr
    for command in (["areas", "list"], ["map", "areas"], ["map", "download-area"]):
        extra = ["--out", "/nonexistent/never"] if command[-1] == "download-area" else []
        refused = outpost(*command, "https://host/arcgis/rest/services/Demo/FeatureServer", *extra, check=False)
        assert refused.returncode != 0 and "no /home/, /sharing/ or /apps/" in refused.stderr, (command, refused.stderr)
    refused = outpost("areas", "delete", "https://host/arcgis/home/item.html?id=../../x", check=False)
    assert refused.returncode != 0 and "names no item" in refused.stderr, refused.stderr
