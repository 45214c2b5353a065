"""Editor tracking with a real HTTP client (issue 44): users sign in with a token, edit online
and sync a replica, and `query` answers who created and last edited each feature and when
(Creator/CreationDate/Editor/EditDate); values a client sends for them are ignored. Runs on
either backend (OUTPOST_INTEROP_BACKEND)."""
import json
import os
import subprocess
import tempfile
import time

import requests

from conftest import BINARY, on_backend, running_server

CITIES = "rest/services/Demo/FeatureServer/0"
FORGED = {"Creator": "mallory", "Editor": "mallory", "CreationDate": 1, "EditDate": 1}


def add_user(data, name, role, password):
    result = subprocess.run(on_backend([BINARY, "users", "add", name, "--role", role, "--data", data]),
                            env={**os.environ, "OUTPOST_PASSWORD": password}, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def sign_in(base, name, password):
    answer = requests.post(f"{base}/tokens/generateToken", data={"f": "json", "username": name, "password": password}, timeout=30).json()
    assert "token" in answer, answer
    return answer["token"]


def call(base, path, token, **fields):
    """POSTs a form with the token and returns the JSON answer, which must not be an error."""
    form = {"f": "json", "token": token, **{k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in fields.items()}}
    answer = requests.post(f"{base}/{path}", data=form, timeout=60).json()
    assert "error" not in answer, f"{path}: {answer}"
    return answer


def tracking(base, token, global_id):
    features = call(base, f"{CITIES}/query", token, where=f"GlobalID = '{global_id}'", outFields="*", returnGeometry="false")["features"]
    assert len(features) == 1, features
    attributes = features[0]["attributes"]
    return attributes["Creator"], attributes["CreationDate"], attributes["Editor"], attributes["EditDate"]


def city(global_id, name):
    return {"attributes": {"GlobalID": global_id, "name": name, **FORGED}, "geometry": {"x": 8.5, "y": 47.4}}


def now():
    return int(time.time() * 1000)


def test_signed_in_edits_and_syncs_are_tracked_and_read_back_through_query():
    data = tempfile.mkdtemp(prefix="outpost-tracking-")
    add_user(data, "crew", "editor", "field-crew-1")
    add_user(data, "boss", "admin", "office-boss-1")
    with running_server(data, "--require-auth") as base:
        crew, boss = sign_in(base, "crew", "field-crew-1"), sign_in(base, "boss", "office-boss-1")

        # Online: crew adds, boss updates (both sending tracking values of their own).
        online = "{00000000-0000-4000-8000-00000000C001}"
        before = now()
        added = call(base, f"{CITIES}/applyEdits", crew, adds=[city(online, "Online")])
        assert added["addResults"][0]["success"], added
        creator, online_created, editor, edited = tracking(base, crew, online)
        assert (creator, editor) == ("crew", "crew") and before <= online_created == edited <= now()
        time.sleep(0.01)
        updated = call(base, f"{CITIES}/updateFeatures", boss,
                       features=[{"attributes": {"OBJECTID": added["addResults"][0]["objectId"], "rank": 5, **FORGED}}])
        assert updated["updateResults"][0]["success"], updated
        assert tracking(base, boss, online)[:3] == ("crew", online_created, "boss")
        assert tracking(base, boss, online)[3] > edited

        # Offline: crew takes the layer offline and syncs an add and an update back.
        replica = call(base, "rest/services/Demo/FeatureServer/createReplica", crew, replicaName="crew-tablet", layers="0",
                       returnAttachments="false", transportType="esriTransportTypeEmbedded", syncModel="perLayer")
        generation = next(entry["serverGen"] for entry in replica["layerServerGens"] if entry["id"] == 0)
        synced = "{00000000-0000-4000-8000-00000000C002}"
        before = now()
        answer = call(base, "rest/services/Demo/FeatureServer/synchronizeReplica", crew,
                      replicaID=replica["replicaID"], transportType="esriTransportTypeEmbedded", syncDirection="bidirectional",
                      syncLayers=[{"id": 0, "serverGen": generation, "syncDirection": "bidirectional"}],
                      edits=[{"id": 0, "features": {"adds": [city(synced, "Synced")],
                                                   "updates": [{"attributes": {"GlobalID": online, "rank": 6, **FORGED}}]}}])
        results = answer["edits"][0]
        assert results["addResults"][0]["success"] and results["updateResults"][0]["success"], answer
        creator, created, editor, edited = tracking(base, boss, synced)
        assert (creator, editor) == ("crew", "crew") and before <= created == edited <= now()
        # boss's update is overwritten by the replica's: crew is the last editor, the creation stays.
        assert tracking(base, boss, online)[:3] == ("crew", online_created, "crew")
        # The replica gets back what the server wrote (its own writes echoed as updates).
        echoed = {f["attributes"]["GlobalID"]: f["attributes"] for f in results["features"]["updates"]}
        assert echoed[synced]["Creator"] == "crew" and echoed[synced]["EditDate"] == edited, echoed
        assert echoed[online]["Editor"] == "crew", echoed
