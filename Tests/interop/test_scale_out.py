"""Several server processes on one PostgreSQL (docs/postgres.md, "Several processes"): three
`outpost serve --database` processes share a database and an S3-compatible bucket (rclone),
each with a data folder of its own, behind nginx. Ten
devices make random offline edits in an empty corner of the Cities layer and sync in random
order and directions through nginx, behind the fault proxy of test_convergence.py (a response
dropped after the commit, a request cut mid-upload, one of the three processes SIGKILLed
mid-sync and restarted); an online editor keeps adding and changing features of its own in the
same corner through nginx the whole time, from another thread; PostgreSQL itself is restarted
once mid-run (requests meanwhile answer 503, which clients retry). At the end: the server is the replay of every acknowledged device edit in the
order acknowledged, plus the editor's last acknowledged values; no GlobalID exists twice; every
device equals the server; every server value an upload overwrote unseen (another device's change
the uploading device had not been sent) is in the conflict log with its values, and nothing else
is. A failure prints the seed."""
import contextlib
import json
import os
import random
import subprocess
import tempfile
import threading
import time
import uuid

import pytest

from conftest import BACKEND, ROOT, free_port
from test_object_storage import bucket
from test_convergence import CORNER, LAYER, SERVICE, Device, FaultProxy, Server, download_all, request, server_state

POSTGRES = os.path.join(ROOT, "scripts", "postgres.sh")

pytestmark = pytest.mark.skipif(BACKEND != "postgres", reason="several processes share a PostgreSQL database: runs in the PostgreSQL pass")

NGINX = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 512; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body; proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fcgi; uwsgi_temp_path {dir}/uwsgi; scgi_temp_path {dir}/scgi;
  upstream outpost {{ {servers} keepalive 16; }}
  server {{
    listen 127.0.0.1:{port};
    client_max_body_size 512m;
    location / {{ proxy_pass http://outpost; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_request_buffering off;
                 proxy_read_timeout 300s; }}
  }}
}}
"""


class Cluster:
    """Three `outpost serve` processes on one database and bucket, each with its own data
    folder, behind nginx; `kill` SIGKILLs one of them at random and `start` brings that one back
    (the fault proxy's kill)."""

    def __init__(self, data, rng, database, store):
        self.rng = rng
        shared = ["--database", database, "--object-store", store]
        folders = [os.path.join(data, f"process-{index}") for index in range(3)]
        for folder in folders:
            os.makedirs(folder)
        self.servers = [Server(folder, free_port(), "--max-jobs", "1", *shared) for folder in folders]
        self.killed = None
        self.kills = 0
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="outpost-nginx-")
        upstreams = " ".join(f"server 127.0.0.1:{s.port} max_fails=1 fail_timeout=1s;" for s in self.servers)
        with open(os.path.join(self.dir, "nginx.conf"), "w") as config:
            config.write(NGINX.format(dir=self.dir, servers=upstreams, port=self.port))
        self.nginx = None

    def start_all(self):
        # All at once on the empty database: one seeds the demo, the others wait and find it.
        starting = [threading.Thread(target=server.start) for server in self.servers]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join(timeout=120)
        assert all(server.process.poll() is None for server in self.servers), "a process did not start"
        self.nginx = subprocess.Popen(["nginx", "-c", os.path.join(self.dir, "nginx.conf"), "-p", self.dir],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: request(self.port, "GET", "/arcgis/rest/info", {}) is not None, "nginx did not answer")

    def kill(self):
        self.killed = self.rng.choice(self.servers)
        self.killed.kill()
        self.kills += 1

    def start(self):
        if self.killed:
            self.killed.start()
            self.killed = None

    def stop(self):
        for server in self.servers:
            server.stop()
        if self.nginx:
            self.nginx.terminate()
            self.nginx.wait(timeout=10)


def wait_for(condition, message, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(message)


UNAVAILABLE = []


def answered(port, method, path, fields, seconds=60):
    """Retries a request until it is answered (a process restarting, PostgreSQL restarting):
    no connection, an HTTP 5xx, or an ArcGIS envelope of a server fault (500, 503) is retried,
    as a client retries; the envelopes seen are kept to be shown."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        answer = request(port, method, path, fields)
        if answer is not None and answer.get("error", {}).get("code") in (500, 503):
            UNAVAILABLE.append(answer["error"])
            answer = None
        if answer is not None:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"no answer from {path} in {seconds} s")


class FeatureDevice(Device):
    """A device editing features only (attachment edits under faults: test_convergence.py), and only
    the features devices made: the online editor's features are its alone."""

    def __init__(self, name, answer, own, versions):
        super().__init__(name, answer)
        self.own = own
        # The server's changes to device features are numbered per GlobalID in the order they
        # are acknowledged (`versions`, shared); `seen` is the number of the change this device
        # was last sent or had acknowledged, per feature: the server's "seen" (a change sent while
        # an edit here was pending is seen, though the device keeps its own edit).
        self.versions = versions
        self.seen = {}

    def receive(self, entry):
        for feature in entry["features"]["adds"] + entry["features"]["updates"]:
            gid = feature["attributes"]["GlobalID"]
            self.seen[gid] = self.versions.get(gid)
        for gid in entry["features"]["deleteIds"]:
            self.seen[gid] = self.versions.get(gid)
        super().receive(entry)

    def overwrites(self, server, updates, deletes):
        """The conflicts an acknowledged upload must have recorded, given the server's features
        before it: each feature it updated or deleted whose last change this device had not
        been sent — (GlobalID, overwritten change, the overwritten values)."""
        expected = []
        for feature in updates:
            gid = feature["attributes"]["GlobalID"]
            if self.versions.get(gid) is not None and self.versions[gid] != self.seen.get(gid):
                expected.append((gid, "update", server[gid]) if gid in server else (gid, "delete", None))
        for gid in deletes:
            if gid in server and self.versions[gid] != self.seen.get(gid):
                expected.append((gid, "update", server[gid]))
        return expected

    def acknowledged(self, server, adds, updates, deletes):
        """Its upload is the server's newest change of each feature it names — except a delete of
        a feature already deleted, which changes nothing."""
        for gid in [f["attributes"]["GlobalID"] for f in adds + updates] + [g for g in deletes if g in server]:
            self.versions[gid] = self.versions.get(gid, 0) + 1
            self.seen[gid] = self.versions[gid]

    def edit(self, rng, counter):
        mine = sorted(g for g in self.features if g in self.own)
        choice = rng.random()
        if choice < 0.4 or not mine:
            gid = "{" + str(uuid.UUID(int=rng.getrandbits(128))).upper() + "}"
            x, y = rng.uniform(CORNER[0] + 0.001, CORNER[2] - 0.001), rng.uniform(CORNER[1] + 0.001, CORNER[3] - 0.001)
            self.features[gid] = {"name": f"{self.name}-{counter}", "rank": rng.randint(1, 40), "x": x, "y": y}
            self.pending[gid] = "add"
            self.own.add(gid)
        elif choice < 0.8:
            gid = rng.choice(mine)
            self.features[gid].update(rank=rng.randint(1, 40), name=f"{self.name}-{counter}")
            self.pending[gid] = self.pending.get(gid, "update")
        else:
            gid = rng.choice(mine)
            self.drop_feature(gid)
            if self.pending.get(gid) == "add":
                del self.pending[gid]
            else:
                self.pending[gid] = "delete"


class OnlineEditor(threading.Thread):
    """Adds features of its own in the corner and changes them, through nginx, until stopped.
    Each edit is retried until answered; an add retried after its commit is refused as a
    duplicate GlobalID, which acknowledges it."""

    def __init__(self, port, seed):
        super().__init__(daemon=True)
        self.port, self.rng = port, random.Random(seed)
        self.features = {}
        self.running = True
        self.acknowledged = 0
        self.failure = None

    def run(self):
        try:
            self.edit_until_stopped()
        except BaseException as error:  # shown by the test, which fails
            self.failure = error

    def edit_until_stopped(self):
        counter = 0
        while self.running:
            counter += 1
            if not self.features or self.rng.random() < 0.4:
                gid = "{" + str(uuid.UUID(int=self.rng.getrandbits(128))).upper() + "}"
                x, y = self.rng.uniform(CORNER[0] + 0.001, CORNER[2] - 0.001), self.rng.uniform(CORNER[1] + 0.001, CORNER[3] - 0.001)
                value = {"name": f"online-{counter}", "rank": self.rng.randint(1, 40)}
                edit = {"adds": json.dumps([{"attributes": {"GlobalID": gid, **value}, "geometry": {"x": x, "y": y}}])}
                kind = "addResults"
            else:
                gid = self.rng.choice(sorted(self.features))
                value = {"name": f"online-{counter}", "rank": self.rng.randint(1, 40)}
                edit = {"updates": json.dumps([{"attributes": {"GlobalID": gid, **value}}])}
                kind = "updateResults"
            answer = answered(self.port, "POST", f"{SERVICE}/{LAYER}/applyEdits", {"useGlobalIds": "true", **edit}, seconds=120)
            assert kind in answer, answer
            result = answer[kind][0]
            duplicate = not result["success"] and "GlobalID" in json.dumps(result.get("error", {}))
            assert result["success"] or (kind == "addResults" and duplicate), answer
            self.features[gid] = (value["name"], value["rank"])
            self.acknowledged += 1
            time.sleep(0.02)


def test_three_processes_behind_nginx_converge_through_kills_and_a_postgresql_restart():
    seed = int(os.environ.get("OUTPOST_SCALE_OUT_SEED") or random.SystemRandom().randrange(1, 1 << 31))
    print(f"scale-out seed {seed}")
    rng = random.Random(seed)
    data = tempfile.mkdtemp(prefix=f"outpost-scale-out-{seed}-")
    objects = contextlib.ExitStack()
    # A PostgreSQL cluster of its own: the restart below would cut off the other workers' tests
    # on the shared one.
    postgres = os.path.join(data, "postgres")
    os.chmod(data, 0o755)  # the cluster belongs to the postgres user, which must reach it
    objects.callback(subprocess.run, [POSTGRES, "stop", postgres], check=False)
    cluster = None
    try:
        database = subprocess.run([POSTGRES, "start", postgres, str(free_port())], check=True, capture_output=True,
                                  text=True).stdout.strip()
        cluster = Cluster(data, rng, database, objects.enter_context(bucket(os.path.join(data, "bucket"))))
        cluster.start_all()
    except BaseException:
        if cluster:
            cluster.stop()
        objects.close()  # no server or PostgreSQL left running after a failed start
        raise
    proxy = FaultProxy(cluster)
    editor = OnlineEditor(cluster.port, seed * 7919 + 1)  # a stream of its own: no GlobalID a device also draws
    try:
        own, versions = set(), {}
        devices = []
        for index in range(10):
            answer = answered(proxy.port, "POST", f"{SERVICE}/createReplica", {
                "replicaName": f"device{index}", "layers": str(LAYER), "geometry": ",".join(map(str, CORNER)),
                "geometryType": "esriGeometryEnvelope", "inSR": "4326", "transportType": "esriTransportTypeEmbedded",
                "syncModel": "perLayer", "returnAttachments": "false", "attachmentsSyncDirection": "none"})
            assert "error" not in answer, f"seed {seed}: {answer}"
            devices.append(FeatureDevice(f"d{index}", answer, own, versions))
        services = answered(cluster.port, "GET", "/arcgis/rest/services", {})["services"]
        assert sorted(s["name"] for s in services if s["type"] == "FeatureServer") == ["Demo", "Parcels"], services
        editor.start()
        expected = {}
        overwritten = {device.id: [] for device in devices}
        acknowledged, operations, restarted = 0, 40, False
        done = [0] * len(devices)
        counter = 0
        while min(done) < operations or any(d.pending for d in devices):
            if not restarted and sum(done) >= len(devices) * operations // 2:
                # PostgreSQL goes down and comes back under the running processes.
                subprocess.run([POSTGRES, "restart", postgres], check=True)
                restarted = True
            index = rng.randrange(len(devices))
            device = devices[index]
            if done[index] < operations:
                for _ in range(rng.randint(1, 8)):
                    counter += 1
                    device.edit(rng, counter)
                    done[index] += 1
                direction = rng.choice(["bidirectional", "bidirectional", "upload", "download"])
            else:
                direction = "bidirectional"
            edits, adds, updates, deletes, _, _, _ = device.edits()
            fields = {"replicaID": device.id, "transportType": "esriTransportTypeEmbedded", "returnIdsForAdds": "true",
                      "syncLayers": json.dumps([{"id": LAYER, "serverGen": device.generation, "syncDirection": direction}]),
                      "edits": json.dumps([{"id": LAYER, "features": edits[0]["features"]}])}
            fault = proxy.armed = rng.choice([None, None, "drop_response", "cut_upload", "kill"])
            answer = answered(proxy.port, "POST", f"{SERVICE}/synchronizeReplica", fields)
            proxy.armed = None
            assert "error" not in answer, f"seed {seed}: {answer} (device {device.name}, {direction}, fault {fault})"
            entry = answer["edits"][0]
            if direction != "download":
                results = entry["addResults"] + entry["updateResults"] + entry["deleteResults"]
                assert all(r["success"] for r in results), f"seed {seed}: {results}"
                overwritten[device.id] += device.overwrites(expected, updates, deletes)
                device.acknowledged(expected, adds, updates, deletes)
                for feature in adds + updates:
                    a = feature["attributes"]
                    expected[a["GlobalID"]] = (a["name"], a["rank"])
                for gid in deletes:
                    expected.pop(gid, None)
                acknowledged += len(adds) + len(updates) + len(deletes)
                device.pending = {}
            device.receive(entry)
            device.generation = answer["layerServerGens"][0]["serverGen"]
        editor.running = False
        editor.join(timeout=180)
        assert not editor.is_alive(), f"seed {seed}: the online editor is stuck"
        assert editor.failure is None, f"seed {seed}: the online editor failed: {editor.failure!r}"
        download_all(devices, lambda fields: answered(cluster.port, "POST", f"{SERVICE}/synchronizeReplica", fields))
        server_features, _ = server_state(cluster.port)
        replay = {**expected, **editor.features}
        print(f"seed {seed}: {acknowledged} device edits and {editor.acknowledged} online edits acknowledged, "
              f"faults {proxy.injected}, {cluster.kills} processes killed, PostgreSQL restarted; "
              f"{len(UNAVAILABLE)} server-fault answers retried, e.g. {UNAVAILABLE[:2]}")
        assert restarted and cluster.kills > 0 and acknowledged >= 300 and editor.acknowledged > 0
        # While PostgreSQL restarts, requests are refused as unavailable (503, retried), never as a fault.
        assert all(error["code"] == 503 for error in UNAVAILABLE), UNAVAILABLE
        assert server_features == replay, f"seed {seed}: the server is not the replay of the acknowledged edits " \
            f"(missing {sorted(set(replay) - set(server_features))[:5]}, extra {sorted(set(server_features) - set(replay))[:5]}, " \
            f"differing {[g for g in replay if g in server_features and replay[g] != server_features[g]][:5]})"
        # Every server value an acknowledged upload overwrote unseen is in the conflict log,
        # once, with what it held; nothing else is.
        recorded = 0
        for device in devices:
            log = answered(cluster.port, "GET", f"{SERVICE}/replicas/{device.id}/conflicts", {})["conflicts"]
            found = sorted(((c["globalId"], c["overwrittenChange"], None if c["overwrittenChange"] == "delete" else
                            (c["feature"]["attributes"]["name"], c["feature"]["attributes"]["rank"])) for c in log), key=str)
            assert found == sorted(overwritten[device.id], key=str), f"seed {seed}: device {device.name}'s conflict log " \
                f"(missing {[c for c in overwritten[device.id] if c not in found][:3]}, extra {[c for c in found if c not in overwritten[device.id]][:3]})"
            recorded += len(found)
        print(f"seed {seed}: {recorded} overwritten values in the conflict logs, each as expected")
        assert recorded > 0, f"seed {seed}: no upload overwrote another device's change: the conflict log is untested"
        for device in devices:
            features, _ = device.state()
            assert features == server_features, f"seed {seed}: device {device.name} differs from the server " \
                f"(missing {sorted(set(server_features) - set(features))[:3]}, extra {sorted(set(features) - set(server_features))[:3]})"
    finally:
        editor.running = False
        proxy.listener.close()
        cluster.stop()
        objects.close()
