#!/usr/bin/env python3
"""Sync upload against pygeodiff (issue 24): 20,000 edits (10,000 adds, 8,000 updates, 2,000
deletes) into a 1,000,000-point layer, two ways in one run, alternating with the order rotated:
  1. Outpost: one synchronizeReplica (syncDirection=upload) over HTTP on loopback, timed from
     sending the encoded form to the answer's last byte (as bench/sync.py);
  2. pygeodiff (the Mergin Maps library, in the venv) applying the equivalent changeset to a
     GeoPackage of the same million rows with the same indexes: Outpost's own replica file of
     the layer (packed R-tree with the GeoPackage's R-tree triggers, unique GlobalID index),
     its change-log triggers dropped. `apply_changeset` on a fresh copy, only the apply timed.
     Also, for the record, the same apply with the R-tree triggers dropped (no spatial index
     kept: not the same indexes, so not the ratio's baseline).
The changeset is made once with `create_changeset` from that file and a copy with the edits.
Usage: .venv/bin/python bench/geodiff.py [--binary PATH] [--rounds N]. Writes bench/out/geodiff.json.
"""
import json
import os
import shutil
import sqlite3
import statistics
import struct
import time
import urllib.parse

import pygeodiff

from harness import OUT, ROOT, arguments, imported_data, machine, post, post_encoded, start_server
from sync import SERVICE, current_generation, get, gid, global_ids, register


def point(x, y, srs=4326):
    """A GeoPackage binary point: header (little-endian, no envelope) and WKB."""
    return b"GP" + bytes([0, 1]) + struct.pack("<i", srs) + struct.pack("<BIdd", 1, 1, x, y)


def edits_for(targets):
    """The 20,000 edits of one run: adds, updates (value) and deletes of the targets."""
    adds = [{"attributes": {"GlobalID": gid(), "name": "bench", "species": "oak", "value": i},
             "geometry": {"x": -170 + (i % 340), "y": -80 + (i % 160)}} for i in range(10_000)]
    return adds, targets[:8_000], targets[8_000:10_000]


def main():
    args = arguments()
    data = imported_data(args.binary, "geodiff-data", [("Million", 1_000_000)])
    server, _, c = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "pygeodiff": pygeodiff.GeoDiff().version()}
    geodiff = pygeodiff.GeoDiff()
    base = os.path.join(OUT, "geodiff-base.gpkg")
    modified = os.path.join(OUT, "geodiff-modified.gpkg")
    changeset = os.path.join(OUT, "geodiff.changeset")
    target = os.path.join(OUT, "geodiff-target.gpkg")
    try:
        # The GeoPackage: Outpost's replica file of the layer, without its change-log triggers.
        answer = post(c, f"{SERVICE}/createReplica", {"f": "json", "layers": "0", "dataFormat": "sqlite", "replicaName": "geodiff",
                                                      "syncModel": "perLayer"})
        shutil.copy(os.path.join(data, "replicafiles", answer["URL"].rsplit("/", 1)[1]), base)
        with sqlite3.connect(base) as db:
            table = db.execute("SELECT table_name FROM outpost_sync_layers").fetchone()[0]
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE 'rtree_%'").fetchall():
                db.execute(f'DROP TRIGGER "{name}"')
            indexes = [row[0] for row in db.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")]
        results["geopackage_indexes"] = indexes
        # The changeset: the same shape of edits, made on a copy (without the R-tree triggers,
        # which need GeoPackage SQL functions Python's sqlite3 lacks; the diff is of the rows).
        shutil.copy(base, modified)
        with sqlite3.connect(modified) as db:
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
                db.execute(f'DROP TRIGGER "{name}"')
            ids = [row[0] for row in db.execute(f'SELECT OBJECTID FROM "{table}" WHERE OBJECTID > 900000 ORDER BY OBJECTID LIMIT 10000')]
            adds, _, _ = edits_for([])
            for feature in adds:
                a = feature["attributes"]
                db.execute(f'INSERT INTO "{table}" (GlobalID, name, species, value, shape) VALUES (?, ?, ?, ?, ?)',
                           (a["GlobalID"], a["name"], a["species"], a["value"], point(feature["geometry"]["x"], feature["geometry"]["y"])))
            db.executemany(f'UPDATE "{table}" SET value = 4242 WHERE OBJECTID = ?', [(i,) for i in ids[:8_000]])
            db.executemany(f'DELETE FROM "{table}" WHERE OBJECTID = ?', [(i,) for i in ids[8_000:]])
        geodiff.create_changeset(base, modified, changeset)
        summary = json.loads(open(geodiff.list_changes_summary(changeset, os.path.join(OUT, "geodiff-summary.json")) or
                                  os.path.join(OUT, "geodiff-summary.json")).read())
        results["changeset"] = summary
        print(f"changeset: {summary}", flush=True)

        def apply_geodiff(run):
            shutil.copy(base, target)
            started = time.perf_counter()
            geodiff.apply_changeset(target, changeset)
            geodiff_times.append(time.perf_counter() - started)
            with sqlite3.connect(target) as db:
                assert db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] == 1_000_000 + 10_000 - 2_000
                assert db.execute(f'SELECT count(*) FROM "{table}" WHERE value = 4242').fetchone()[0] >= 8_000
                assert db.execute(f'SELECT count(*) FROM "rtree_{table}_shape"').fetchone()[0] == 1_000_000 + 10_000 - 2_000
            shutil.copy(base, target)
            with sqlite3.connect(target) as db:
                for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
                    db.execute(f'DROP TRIGGER "{name}"')
            started = time.perf_counter()
            geodiff.apply_changeset(target, changeset)
            unindexed_times.append(time.perf_counter() - started)
            print(f"pygeodiff apply run {run + 1}: {geodiff_times[-1]:.3f} s (without R-tree triggers {unindexed_times[-1]:.3f} s)", flush=True)

        next_oid = [1]

        def upload_outpost(run):
            replica = register(c, f"geodiff-{run}", current_generation(c))
            targets = global_ids(c, next_oid[0], next_oid[0] + 9_999)
            next_oid[0] += 10_000
            adds, updates, deletes = edits_for(targets)
            edits = [{"id": 0, "features": {"adds": adds, "updates": [{"attributes": {"GlobalID": g, "value": 4242}} for g in updates],
                                            "deleteIds": deletes}}]
            generation = get(c, f"{SERVICE}/replicas/{replica}")["layerServerGens"][0]["serverGen"]
            body = urllib.parse.urlencode({
                "f": "json", "replicaID": replica, "transportType": "esriTransportTypeEmbedded", "rollbackOnFailure": "true",
                "syncLayers": json.dumps([{"id": 0, "serverGen": generation, "syncDirection": "upload"}]), "edits": json.dumps(edits)})
            started = time.perf_counter()
            raw = post_encoded(c, f"{SERVICE}/synchronizeReplica", body)
            outpost_times.append(time.perf_counter() - started)
            entry = json.loads(raw)["edits"][0]
            assert all(r["success"] for r in entry["addResults"] + entry["updateResults"] + entry["deleteResults"])
            assert len(entry["addResults"]) == 10_000 and len(entry["deleteResults"]) == 2_000
            print(f"Outpost sync upload run {run + 1}: {outpost_times[-1]:.3f} s", flush=True)

        outpost_times, geodiff_times, unindexed_times = [], [], []
        for run in range(args.rounds):
            for step in ((upload_outpost, apply_geodiff) if run % 2 == 0 else (apply_geodiff, upload_outpost)):
                step(run)
        results.update({
            "outpost_sync_upload_20000_s": {"median": round(statistics.median(outpost_times), 3), "runs": [round(t, 3) for t in outpost_times]},
            "pygeodiff_apply_20000_s": {"median": round(statistics.median(geodiff_times), 3), "runs": [round(t, 3) for t in geodiff_times]},
            "pygeodiff_apply_20000_without_rtree_triggers_s": {
                "median": round(statistics.median(unindexed_times), 3), "runs": [round(t, 3) for t in unindexed_times]},
            "ratio": round(statistics.median(outpost_times) / statistics.median(geodiff_times), 2),
        })
    finally:
        server.terminate()
        server.wait()
        for path in (modified, target):
            if os.path.exists(path):
                os.remove(path)
    with open(os.path.join(OUT, "geodiff.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps({k: v for k, v in results.items() if k != "geopackage_indexes"}, indent=2))


if __name__ == "__main__":
    main()
