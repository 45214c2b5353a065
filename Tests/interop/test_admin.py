"""Admin commands against a running server's data folder (docs/operations.md):
`outpost replicas list|unregister --idle-days N` and `outpost compact`."""
import json
import re
import tempfile
import urllib.parse
import urllib.request

from conftest import outpost, running_server

CORNER = "13.2,52.4,13.26,52.46"


def call(base, path, **fields):
    body = urllib.parse.urlencode({"f": "json", **fields}).encode()
    return json.loads(urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer{path}", data=body, timeout=60).read())


def create(base, name):
    return call(base, "/createReplica", replicaName=name, layers="2", geometry=CORNER, geometryType="esriGeometryEnvelope", inSR="4326",
                transportType="esriTransportTypeEmbedded", syncModel="perLayer")


def test_idle_replicas_are_listed_and_unregistered_and_compact_keeps_what_replicas_need():
    data = tempfile.mkdtemp(prefix="outpost-admin-")
    with running_server(data) as base:
        kept = create(base, "kept")
        other = create(base, "other")
        # Deletes in the corner, after both replicas were made: tombstones they need.
        ids = call(base, "/2/query", where="1=1", geometry=CORNER, geometryType="esriGeometryEnvelope", inSR="4326",
                   returnIdsOnly="true")["objectIds"][:3]
        assert len(ids) == 3
        assert all(r["success"] for r in call(base, "/2/deleteFeatures", objectIds=",".join(map(str, ids)))["deleteResults"])

        listed = outpost("replicas", "list", "--data", data).stdout
        assert kept["replicaID"] in listed and other["replicaID"] in listed
        assert outpost("replicas", "unregister", "--data", data, "--idle-days", "1").stdout.strip().endswith("0 replica(s) unregistered")
        assert "--idle-days" in outpost("replicas", "unregister", "--data", data, check=False).stderr

        # Compact now: both replicas still need the tombstones.
        assert "removed 0 tombstone(s)" in outpost("compact", "--data", data).stdout
        answer = call(base, "/synchronizeReplica", replicaID=kept["replicaID"], transportType="esriTransportTypeEmbedded",
                      syncLayers=json.dumps([{"id": 2, "serverGen": kept["layerServerGens"][0]["serverGen"], "syncDirection": "download"}]))
        assert len(answer["edits"][0]["features"]["deleteIds"]) == 3

        # Everything idle for "0 days" (older than now) goes; a dry run first changes nothing.
        dry = outpost("replicas", "unregister", "--data", data, "--idle-days", "0", "--dry-run").stdout
        assert dry.strip().endswith("2 replica(s) would be unregistered")
        assert len(call(base, "/replicas")) == 2
        assert outpost("replicas", "unregister", "--data", data, "--idle-days", "0").stdout.strip().endswith("2 replica(s) unregistered")
        assert call(base, "/replicas") == []

        # No replica needs the tombstones any more.
        removed = int(re.search(r"removed (\d+) tombstone", outpost("compact", "--data", data).stdout).group(1))
        assert removed >= 3
        # The server goes on: a new replica syncs.
        fresh = create(base, "fresh")
        answer = call(base, "/synchronizeReplica", replicaID=fresh["replicaID"], transportType="esriTransportTypeEmbedded",
                      syncLayers=json.dumps([{"id": 2, "serverGen": fresh["layerServerGens"][0]["serverGen"]}]))
        assert "error" not in answer
