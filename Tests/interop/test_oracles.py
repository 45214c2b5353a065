"""Oracles nobody here wrote: pygeodiff compares a replica file before and after a sync made
by `outpost replica sync`, and the rows it finds changed must be exactly the changes the server
reports for that sync (its download delta); `outpost conformance` passes on Outpost and fails,
with exit code 1, on a service whose sync is disabled."""
import json
import os
import shutil
import sqlite3
import urllib.parse
import urllib.request

import pytest

from conftest import ROOT, outpost, running_server

pygeodiff = pytest.importorskip("pygeodiff", reason="pygeodiff is installed by scripts/setup.sh --with-clients")


def post(url, **fields):
    data = urllib.parse.urlencode({"f": "json", **fields}).encode()
    with urllib.request.urlopen(url, data=data, timeout=60) as response:
        return json.loads(response.read())


def test_geodiff_of_a_synced_replica_equals_the_changes_the_server_reports(own_server, tmp_path):
    service = f"{own_server}/services/Demo/FeatureServer"
    before = str(tmp_path / "before.gpkg")
    outpost("replica", "create", service, "--out", before, "--extent", "13.2,52.4,13.26,52.46", "--layers", "2", "--no-attachments")
    with sqlite3.connect(before) as db:
        replica_id, generation = db.execute(
            "SELECT r.replica_id, l.server_gen FROM outpost_sync_replica r, outpost_sync_layers l WHERE l.layer_id = 2").fetchone()
        ids = [row[0] for row in db.execute("SELECT GlobalID FROM Trees ORDER BY OBJECTID LIMIT 3")]
    # Someone edits online: an add inside the extent, an update, a delete.
    added = "{0C0FFEE0-0000-4000-8000-000000000001}"
    answer = post(f"{service}/2/applyEdits", useGlobalIds="true",
                  adds=json.dumps([{"attributes": {"GlobalID": added, "species": "Oracle oak", "height_m": 3},
                                    "geometry": {"x": 13.21, "y": 52.41}}]),
                  updates=json.dumps([{"attributes": {"GlobalID": ids[0], "height_m": 44.5}}]),
                  deletes=json.dumps([ids[1]]))
    assert all(r["success"] for r in answer["addResults"] + answer["updateResults"] + answer["deleteResults"])

    # What the server reports for a download from that generation: its delta's change list.
    report = post(f"{service}/synchronizeReplica", replicaID=replica_id, dataFormat="sqlite",
                  syncLayers=json.dumps([{"id": 2, "serverGen": generation, "syncDirection": "download"}]))
    delta = str(tmp_path / "delta.gpkg")
    assert "URL" in report, report
    with urllib.request.urlopen(report["URL"], timeout=60) as response, open(delta, "wb") as out:
        out.write(response.read())
    with sqlite3.connect(delta) as db:
        reported = {(op, oid) for op, oid in db.execute(
            "SELECT operation, object_id FROM outpost_sync_changes WHERE item = 'feature' AND layer_id = 2")}

    # The client applies the same download to a copy; geodiff says what changed in the file.
    after = str(tmp_path / "after.gpkg")
    shutil.copy(before, after)
    outpost("replica", "sync", after, "--direction", "download")
    changeset = str(tmp_path / "changes.bin")
    listing = str(tmp_path / "changes.json")
    geodiff = pygeodiff.GeoDiff()
    geodiff.create_changeset(before, after, changeset)
    geodiff.list_changes(changeset, listing)
    with open(listing) as f:
        entries = json.load(f)["geodiff"]
    changed = set()
    for entry in entries:
        if entry["table"] != "Trees":
            continue
        pk = next(c for c in entry["changes"] if c["column"] == 0)
        changed.add((entry["type"], pk.get("new", pk.get("old"))))
    assert changed == reported, f"geodiff {sorted(changed)} != server {sorted(reported)}"
    assert {op for op, _ in changed} == {"insert", "update", "delete"}


def test_outpost_conformance_passes_on_outpost_and_fails_without_sync(tmp_path):
    data = str(tmp_path / "data")
    source = os.path.join(ROOT, "testdata", "naturalearth_cities.geojson")
    outpost("import", source, "--service", "NoSync", "--data", data, "--capabilities", "Query,Create,Update,Delete,Editing")
    outpost("import", source, "--service", "Cities", "--data", data)
    with running_server(data) as base:
        good = outpost("conformance", f"{base}/rest/services/Cities/FeatureServer", "--report", str(tmp_path / "report.md"))
        assert "0 failed" in good.stdout and "PASS" in good.stdout
        report = (tmp_path / "report.md").read_text()
        assert report.startswith("# Conformance of") and "| `sync.upload-add`" in report
        bad = outpost("conformance", f"{base}/rest/services/NoSync/FeatureServer", "--report", str(tmp_path / "bad.json"), check=False)
        assert bad.returncode == 1, bad.stdout + bad.stderr
        assert "FAIL" in bad.stdout and "Sync is not enabled" in bad.stdout
        entries = json.loads((tmp_path / "bad.json").read_text())["entries"]
        assert any(e["id"] == "service.sync-capabilities" and e["status"] == "fail" for e in entries)
