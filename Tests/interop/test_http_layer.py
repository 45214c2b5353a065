"""The HTTP layer after the redesign, through a real server: every answer of the ArcGIS routes
in the forms clients ask for (JSON, pretty JSON, JSONP, the HTML directory), errors included,
by name and through a folder; the methods each operation takes; and the server keeps answering
while several large requests run."""
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from conftest import ROOT, outpost, running_server


def fetch(url, data=None, headers=None):
    request = urllib.request.Request(url, data=urllib.parse.urlencode(data).encode() if data is not None else None, headers=headers or {})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, response.headers, response.read()


def test_errors_answer_in_the_form_asked_for(server):
    layer = f"{server}/services/Demo/FeatureServer/7"
    status, headers, body = fetch(f"{layer}?f=json")
    assert status == 200 and json.loads(body)["error"]["code"] == 404
    status, headers, body = fetch(f"{layer}?f=json&callback=handle.answer")
    assert body.startswith(b"handle.answer(") and body.endswith(b");") and b'"code":404' in body
    assert "javascript" in headers["Content-Type"]
    status, headers, body = fetch(f"{layer}?f=pjson")
    assert b"\n" in body and json.loads(body)["error"]["code"] == 404
    status, headers, body = fetch(f"{layer}?f=html")
    assert headers["Content-Type"].startswith("text/html") and b"404" in body and b"<script" not in body.lower()
    # An unknown path below /arcgis/rest is the envelope too; a bad where is a 400 that names no SQL.
    status, _, body = fetch(f"{server}/nowhere?f=json")
    assert json.loads(body)["error"]["code"] == 404
    status, _, body = fetch(f"{server}/services/Demo/FeatureServer/2/query?" + urllib.parse.urlencode({"f": "json", "where": "1=1 OR"}))
    error = json.loads(body)["error"]
    assert error["code"] == 400 and "SELECT" not in json.dumps(error) and "f_demo" not in json.dumps(error)


def test_methods_and_blank_forms(server):
    service = f"{server}/services/Demo/FeatureServer"
    # Changes are POST only (405 in the envelope); reads answer GET and POST alike.
    _, _, body = fetch(f"{service}/2/applyEdits?f=json&adds=[]")
    assert json.loads(body)["error"]["code"] == 405
    _, _, get = fetch(f"{service}/2/query?f=json&where=1%3D1&returnCountOnly=true")
    _, _, post = fetch(f"{service}/2/query", {"f": "json", "where": "1=1", "returnCountOnly": "true"})
    assert json.loads(get)["count"] == json.loads(post)["count"] > 0
    # An operation's page without parameters is its blank form; it does not run.
    _, headers, body = fetch(f"{service}/createReplica?f=html")
    assert headers["Content-Type"].startswith("text/html") and b"<form" in body
    _, _, replicas = fetch(f"{service}/replicas?f=json")
    assert json.loads(replicas) == [] or all(r["replicaName"] for r in json.loads(replicas))


def test_a_service_in_a_folder_answers_the_same_as_by_name(tmp_path):
    data = str(tmp_path)
    cities = os.path.join(ROOT, "testdata", "naturalearth_cities.geojson")
    outpost("import", cities, "--service", "Field/Cities", "--data", data)
    outpost("import", cities, "--service", "Cities", "--data", data)
    with running_server(data, "--no-demo") as base:
        for service in ("Field/Cities", "Cities"):
            url = f"{base}/rest/services/{service}/FeatureServer"
            _, _, count = fetch(f"{url}/0/query?f=json&where=1%3D1&returnCountOnly=true")
            assert json.loads(count)["count"] == 243
            _, _, missing = fetch(f"{url}/9?f=json")
            assert json.loads(missing)["error"]["code"] == 404
            _, _, created = fetch(f"{url}/createReplica", {"f": "json", "layers": "0", "replicaName": "r", "transportType": "esriTransportTypeUrl",
                                                           "async": "true"})
            submission = json.loads(created)
            assert submission["statusUrl"].startswith(base.replace("/arcgis", "")) and submission["replicaID"]
            deadline = time.time() + 60
            while True:
                _, _, status = fetch(submission["statusUrl"] + "?f=json")
                status = json.loads(status)
                if status["status"] in ("Completed", "Failed") or time.time() > deadline:
                    break
                time.sleep(0.2)
            assert status["status"] == "Completed" and status["resultUrl"], status
            _, _, replica = fetch(status["resultUrl"])
            assert len(json.loads(replica)["layers"][0]["features"]) == 243


def test_large_queries_at_once_and_the_server_keeps_answering_others(server):
    """Eight clients fetching 1,000-feature pages at once (their store calls run on the
    blocking pool) while another asks for the server's info: every answer whole, none refused."""
    query = f"{server}/services/Demo/FeatureServer/2/query?" + urllib.parse.urlencode(
        {"f": "json", "where": "1=1", "outFields": "*", "returnGeometry": "true", "resultRecordCount": "2000"})
    done = []

    def heavy():
        for _ in range(3):
            status, _, body = fetch(query)
            assert status == 200 and len(json.loads(body)["features"]) == 1000
        done.append(1)

    threads = [threading.Thread(target=heavy) for _ in range(8)]
    for thread in threads:
        thread.start()
    answered = 0
    while any(thread.is_alive() for thread in threads):
        status, _, body = fetch(f"{server}/info?f=json")
        assert status == 200 and b"currentVersion" in body
        answered += 1
    for thread in threads:
        thread.join()
    assert len(done) == 8 and answered > 0
