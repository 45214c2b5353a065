#!/usr/bin/env python3
"""Outpost sync benchmarks over HTTP on loopback (release build), on a 1,000,000-point layer:
  1. one synchronizeReplica uploading 20,000 edits (10,000 adds, 8,000 updates, 2,000 deletes),
     upload direction and bidirectional (median of --runs), timed from sending the encoded
     form to the answer's last byte;
  2. one synchronizeReplica downloading 20,000 changes (made online) out of the million,
     every row and a half-world filter (median of --runs), timed the same way;
  3. 50 concurrent clients, each with its own replica, each syncing 100 edits: errors, lost
     edits, p50/p99 latency.
/metrics is scraped every second throughout: the counters (edits applied, sync requests,
replicas registered, conflicts) are printed per phase and kept in the JSON as a timeline.
Usage: python3 bench/sync.py [--binary PATH] [--runs N]. Writes bench/out/sync.json.
"""
import argparse
import http.client
import json
import os
import statistics
import threading
import time
import urllib.parse
import uuid

from harness import OUT, ROOT, imported_data, machine, post, post_encoded, start_server

SERVICE = "/arcgis/rest/services/Million/FeatureServer"



WATCHED = ["outpost_edits_applied_total", "outpost_replicas_registered", "outpost_conflicts_recorded_total",
           'outpost_request_duration_seconds_count{operation="synchronizeReplica"}', 'outpost_jobs{state="running"}',
           "outpost_database_bytes"]


def scrape(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/metrics")
    values = {}
    for line in connection.getresponse().read().decode().splitlines():
        name, _, value = line.rpartition(" ")
        if name in WATCHED:
            values[name] = float(value)
    connection.close()
    return values


class MetricsWatcher(threading.Thread):
    """Scrapes /metrics every second while the benchmark runs."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.timeline, self.stopped = port, [], threading.Event()
        self.started_at = time.time()

    def run(self):
        while not self.stopped.is_set():
            try:
                self.timeline.append({"t": round(time.time() - self.started_at, 1), **scrape(self.port)})
            except OSError:
                pass
            self.stopped.wait(1)

    def phase(self, name):
        now = scrape(self.port)
        print(f"  /metrics after {name}: " + ", ".join(f"{k.replace('outpost_', '')}={v:g}" for k, v in now.items()), flush=True)
        return now


def get(connection, path, **params):
    connection.request("GET", f"{path}?{urllib.parse.urlencode({'f': 'json', **params})}")
    return json.loads(connection.getresponse().read())


def gid():
    return "{" + str(uuid.uuid4()).upper() + "}"


def register(connection, name, generation, geometry=None):
    """A replica of layer 0 at `generation`, registered without data (replicaOptions)."""
    fields = {"f": "json", "replicaName": name, "layers": "0", "syncModel": "perLayer", "transportType": "esriTransportTypeEmbedded",
              "replicaOptions": json.dumps({"registerExistingData": True, "layerServerGens": [{"id": 0, "serverGen": generation}]})}
    if geometry:
        fields.update({"geometry": geometry, "geometryType": "esriGeometryEnvelope", "inSR": "4326",
                       "layerQueries": json.dumps({"0": {"queryOption": "useFilter", "useGeometry": True}})})
    answer = post(connection, f"{SERVICE}/createReplica", fields)
    assert "replicaID" in answer, answer
    return answer["replicaID"]


def current_generation(connection):
    """The server's newest generation: what a schema-only replica is handed."""
    answer = post(connection, f"{SERVICE}/createReplica", {
        "f": "json", "replicaName": "probe", "layers": "0", "syncModel": "perLayer", "transportType": "esriTransportTypeEmbedded",
        "layerQueries": json.dumps({"0": {"queryOption": "none"}})})
    post(connection, f"{SERVICE}/unRegisterReplica", {"f": "json", "replicaID": answer["replicaID"]})
    return answer["layerServerGens"][0]["serverGen"]


def global_ids(connection, low, high, service=SERVICE):
    """GlobalIDs of OBJECTIDs low..high (pages of 2,000)."""
    ids = []
    for start in range(low, high + 1, 2000):
        answer = get(connection, f"{service}/0/query", where=f"OBJECTID >= {start} AND OBJECTID < {min(start + 2000, high + 1)}",
                     outFields="GlobalID", returnGeometry="false")
        ids += [f["attributes"]["GlobalID"] for f in answer["features"]]
    return ids


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = imported_data(args.binary, "sync-data", [("Million", 1_000_000)])
    server, port, c = start_server(args.binary, data, "--no-demo", cwd=ROOT)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d")}
    watcher = MetricsWatcher(port)
    watcher.start()
    watcher.phase("start")
    try:
        # 1. Uploads of 20,000 edits.
        upload_times = {"upload": [], "bidirectional": []}
        next_oid = 1
        for run in range(args.runs):
            for direction in ("upload", "bidirectional"):
                replica = register(c, f"up-{direction}-{run}", current_generation(c))
                targets = global_ids(c, next_oid, next_oid + 9_999)
                next_oid += 10_000
                adds = [{"attributes": {"GlobalID": gid(), "name": "bench", "species": "oak", "value": i},
                         "geometry": {"x": -170 + (i % 340), "y": -80 + (i % 160)}} for i in range(10_000)]
                updates = [{"attributes": {"GlobalID": g, "value": 4242}} for g in targets[:8_000]]
                edits = [{"id": 0, "features": {"adds": adds, "updates": updates, "deleteIds": targets[8_000:10_000]}}]
                info = get(c, f"{SERVICE}/replicas/{replica}")
                generation = info["layerServerGens"][0]["serverGen"]
                fields = {"f": "json", "replicaID": replica, "transportType": "esriTransportTypeEmbedded", "rollbackOnFailure": "true",
                          "syncLayers": json.dumps([{"id": 0, "serverGen": generation, "syncDirection": direction}]),
                          "edits": json.dumps(edits)}
                body = urllib.parse.urlencode(fields)
                started = time.perf_counter()
                raw = post_encoded(c, f"{SERVICE}/synchronizeReplica", body)
                upload_times[direction].append(time.perf_counter() - started)
                answer = json.loads(raw)
                entry = answer["edits"][0]
                assert all(r["success"] for r in entry["addResults"] + entry["updateResults"] + entry["deleteResults"]), answer
                assert len(entry["addResults"]) == 10_000 and len(entry["deleteResults"]) == 2_000
        for direction, times in upload_times.items():
            results[f"sync_upload_20000_edits_{direction}_s"] = {"median": statistics.median(times), "runs": times}
            print(f"sync uploading 20,000 edits ({direction}): median {statistics.median(times):.3f} s {['%.3f' % t for t in times]}", flush=True)
            watcher.phase(f"uploads ({direction})")

        # 2. Downloads of 20,000 changes out of the million.
        base_generation = current_generation(c)
        everything = register(c, "download-all", base_generation)
        half = register(c, "download-half", base_generation, geometry="-180,-90,0,90")
        for start in range(500_001, 520_001, 10_000):
            updates = [{"attributes": {"OBJECTID": oid, "value": 777}, "geometry": {"x": -179.5 + (oid % 359), "y": 1.5}}
                       for oid in range(start, start + 10_000)]
            answer = post(c, f"{SERVICE}/0/applyEdits", {"f": "json", "updates": json.dumps(updates), "rollbackOnFailure": "true"})
            assert all(r["success"] for r in answer["updateResults"]), answer.get("error")
        for name, replica in (("all", everything), ("half_world_filter", half)):
            times = []
            for _ in range(args.runs):
                body = urllib.parse.urlencode({
                    "f": "json", "replicaID": replica, "transportType": "esriTransportTypeEmbedded",
                    "syncLayers": json.dumps([{"id": 0, "serverGen": base_generation, "syncDirection": "download"}])})
                started = time.perf_counter()
                raw = post_encoded(c, f"{SERVICE}/synchronizeReplica", body)
                times.append(time.perf_counter() - started)
                answer = json.loads(raw)
                features = answer["edits"][0]["features"]
                count = len(features["updates"]) + len(features["adds"]) + len(features["deleteIds"])
            results[f"sync_download_20000_changes_{name}_s"] = {"median": statistics.median(times), "runs": times, "changes": count}
            print(f"sync downloading {count} changes of 1,000,000 ({name}): median {statistics.median(times):.3f} s", flush=True)

        # 3. 50 concurrent clients, 100 edits each.
        clients = 50
        generation = current_generation(c)
        replicas = [register(c, f"field-{i}", generation) for i in range(clients)]
        targets = global_ids(c, 600_001, 600_000 + clients * 50)
        latencies = []
        errors = []
        lock = threading.Lock()
        added = [[gid() for _ in range(50)] for _ in range(clients)]

        def client(index):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            edits = [{"id": 0, "features": {
                "adds": [{"attributes": {"GlobalID": g, "name": f"client{index}", "value": index}, "geometry": {"x": index, "y": 10}}
                         for g in added[index]],
                "updates": [{"attributes": {"GlobalID": g, "value": 10_000 + index}} for g in targets[index * 50:(index + 1) * 50]]}}]
            started = time.perf_counter()
            try:
                answer = post(connection, f"{SERVICE}/synchronizeReplica", {
                    "f": "json", "replicaID": replicas[index], "transportType": "esriTransportTypeEmbedded",
                    "syncLayers": json.dumps([{"id": 0, "serverGen": generation, "syncDirection": "bidirectional"}]),
                    "edits": json.dumps(edits)})
                elapsed = time.perf_counter() - started
                entry = answer["edits"][0]
                ok = all(r["success"] for r in entry["addResults"] + entry["updateResults"])
                with lock:
                    latencies.append(elapsed)
                    if not ok or len(entry["addResults"]) != 50:
                        errors.append(answer)
            except Exception as error:  # noqa: BLE001 - any failure is a benchmark error
                with lock:
                    errors.append(str(error))

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        # No lost edit: every add and every update is on the server.
        present = get(c, f"{SERVICE}/0/query", where="name LIKE 'client%'", returnCountOnly="true")["count"]
        updated = get(c, f"{SERVICE}/0/query", where="value >= 10000 AND value < 10050", returnCountOnly="true")["count"]
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, int(round(0.99 * len(latencies))) - 1)] if latencies else None
        results["sync_50_clients_x_100_edits"] = {
            "errors": len(errors), "adds_present": present, "adds_expected": clients * 50, "updates_present": updated,
            "updates_expected": clients * 50, "p50_s": statistics.median(latencies) if latencies else None, "p99_s": p99,
            "max_s": latencies[-1] if latencies else None, "wall_s": wall}
        watcher.phase("50 clients")
        print(f"50 clients x 100 edits: errors {len(errors)}, adds {present}/{clients * 50}, updates {updated}/{clients * 50}, "
              f"p50 {statistics.median(latencies):.3f} s, p99 {p99:.3f} s, wall {wall:.2f} s", flush=True)
        if errors:
            print(errors[:3])
        watcher.phase("all phases")
    finally:
        watcher.stopped.set()
        server.terminate()
        server.wait()
    results["metrics_timeline"] = watcher.timeline
    moving = [a["outpost_edits_applied_total"] < b["outpost_edits_applied_total"] for a, b in zip(watcher.timeline, watcher.timeline[1:])
              if "outpost_edits_applied_total" in a and "outpost_edits_applied_total" in b]
    print(f"/metrics scraped {len(watcher.timeline)} times during the run; edits_applied rose between {sum(moving)} of them", flush=True)
    with open(os.path.join(OUT, "sync.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
