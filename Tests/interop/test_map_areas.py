"""`outpost areas` against a running server (docs/map-areas.md): the CLI speaks the same
packaging requests as the ArcGIS API for Python (tested in test_portal.py)."""
import json

from conftest import outpost, running_server

DEMO_MAP = "de3000000000000000000000000000a1"


def test_the_cli_creates_lists_and_deletes_a_map_area():
    with running_server() as base:
        server = ["--server", base]
        created = outpost("areas", "create", DEMO_MAP, "--extent", "5,45,20,56", "--title", "Central", "--refresh-schedule", "0 30 2 * * ?",
                          *server)
        lines = created.stdout.splitlines()
        area = lines[0]
        assert sorted(line.split("\t")[0] for line in lines[1:]) == ["new", "new", "new"], created.stdout
        assert outpost("areas", "list", DEMO_MAP, *server).stdout.split("\t")[:2] == [area, "complete"]
        refused = outpost("areas", "create", DEMO_MAP, "--extent", "0,0,1,1", "--title", "Often", "--refresh-schedule", "*/5 * * * * ?",
                          *server, check=False)
        assert refused.returncode != 0 and "at most once a day" in refused.stderr, refused.stderr
        # Nothing edited since: every package is unchanged.
        refreshed = json.loads(outpost("areas", "refresh", area, *server).stdout)
        assert sorted(package["state"] for package in refreshed) == ["unchanged"] * 3, refreshed
        outpost("areas", "delete", area, *server)
        assert outpost("areas", "list", DEMO_MAP, *server).stdout.strip() == ""
