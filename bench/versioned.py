#!/usr/bin/env python3
"""Outpost versioned-data benchmark (release build, loopback): reconcile and post of 20,000
edits (10,000 adds, 8,000 updates, 2,000 deletes) from a per-replica replica against a
1,000,000-feature DEFAULT, where 4,000 of the updated features were changed online since the
replica's generation (each reconciled field by field against its history: half merge, half
conflict). Timed from sending the encoded form to the answer's last byte; median of --runs.
Usage: python3 bench/versioned.py [--binary PATH] [--runs N]. Writes bench/out/versioned.json.
"""
import argparse
import json
import os
import statistics
import time
import urllib.parse

from harness import OUT, ROOT, imported_data, machine, post, post_encoded, start_server
from sync import get, gid, global_ids

SERVICE = "/arcgis/rest/services/Versioned/FeatureServer"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = imported_data(args.binary, "versioned-data", [("Versioned", 1_000_000, "--versioned")])
    server, port, c = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d")}
    times, conflicts = [], []
    try:
        next_oid = 1
        for run in range(args.runs):
            probe = post(c, f"{SERVICE}/createReplica", {
                "f": "json", "replicaName": f"device-{run}", "layers": "0", "syncModel": "perReplica",
                "transportType": "esriTransportTypeEmbedded", "layerQueries": json.dumps({"0": {"queryOption": "none"}})})
            replica, generation = probe["replicaID"], probe["replicaServerGen"]
            targets = global_ids(c, next_oid, next_oid + 9_999, service=SERVICE)
            next_oid += 10_000
            # Online, after the replica's generation: 4,000 of the features it will update.
            online = [{"attributes": {"GlobalID": g, "species": "online", **({"value": 7} if i % 2 else {})}}
                      for i, g in enumerate(targets[:4_000])]
            answer = post(c, f"{SERVICE}/0/applyEdits", {"f": "json", "useGlobalIds": "true", "updates": json.dumps(online)})
            assert all(r["success"] for r in answer["updateResults"]), answer
            adds = [{"attributes": {"GlobalID": gid(), "name": "bench", "species": "oak", "value": i},
                     "geometry": {"x": -170 + (i % 340), "y": -80 + (i % 160)}} for i in range(10_000)]
            # The device changes `value` (half of the online edits changed it too: conflicts).
            updates = [{"attributes": {"GlobalID": g, "value": 4242}} for g in targets[:8_000]]
            edits = [{"id": 0, "features": {"adds": adds, "updates": updates, "deleteIds": targets[8_000:10_000]}}]
            body = urllib.parse.urlencode({
                "f": "json", "replicaID": replica, "replicaServerGen": generation, "syncDirection": "bidirectional",
                "transportType": "esriTransportTypeEmbedded", "rollbackOnFailure": "true", "edits": json.dumps(edits)})
            started = time.perf_counter()
            raw = post_encoded(c, f"{SERVICE}/synchronizeReplica", body)
            times.append(time.perf_counter() - started)
            answer = json.loads(raw)
            entry = answer["edits"][0]
            assert all(r["success"] for r in entry["addResults"] + entry["updateResults"] + entry["deleteResults"]), str(answer)[:500]
            recorded = get(c, f"{SERVICE}/replicas/{replica}/conflicts")["conflicts"]
            conflicts.append(len(recorded))
            merged = get(c, f"{SERVICE}/0/query", where="species = 'online' AND value = 4242", returnCountOnly="true")["count"]
            online_count = get(c, f"{SERVICE}/0/query", where="species = 'online'", returnCountOnly="true")["count"]
            assert merged == 4_000 * (run + 1), (merged, online_count)
        results["versioned_reconcile_post_20000_edits_s"] = {"median": statistics.median(times), "runs": times,
                                                             "conflicts_recorded": conflicts}
        print(f"versioned reconcile + post of 20,000 edits (4,000 reconciled, {conflicts[0]} conflicts): "
              f"median {statistics.median(times):.3f} s {['%.3f' % t for t in times]}", flush=True)
    finally:
        server.terminate()
        server.wait()
    with open(os.path.join(OUT, "versioned.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
