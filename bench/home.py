#!/usr/bin/env python3
"""The home's pages (issue 48): each page's server time with 1,000 items and 100 replicas.

One server with --require-auth on the demo data; an admin owning 1,000 items (addItem) and 100
replicas of the demo's service (createReplica); the admin signed in to the home through the
portal's OAuth pages, as a browser is. Each page is fetched over HTTP on loopback, request to
last byte, in rotated rounds; its floor is the REST request it is built from most (the portal's
`portals/self` every page asks, plus the page's own listing), measured in the same rounds.
The goal: every page under 50 ms (median).

Usage: python3 bench/home.py [--binary PATH] [--rounds 15]. Writes bench/out/home.json.
"""
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import time
import urllib.parse

from harness import OUT, arguments, machine, post, start_server

USER, PASSWORD = "bench-admin", "bench-password-1"
ITEMS, REPLICAS = 1000, 100


class Browser:
    """A keep-alive connection that keeps the home's cookies."""

    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookies = {}

    def send(self, method, path, fields=None, headers=None):
        body = urllib.parse.urlencode(fields) if fields is not None else None
        all_headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        all_headers.update(headers or {})
        self.connection.request(method, path, body=body, headers=all_headers)
        response = self.connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";")[0]
                key, _, cookie = pair.partition("=")
                if "Max-Age=0" in value:
                    self.cookies.pop(key, None)
                else:
                    self.cookies[key] = cookie
        return response.status, dict(response.getheaders()), data

    def sign_in(self):
        status, headers, _ = self.send("GET", "/arcgis/home/signin.html")
        assert status == 302, status
        status, _, page = self.send("GET", headers["Location"])
        state = json.loads(re.search(rb"\{.*\}", page).group(0))["oauth_state"]
        status, headers, _ = self.send("POST", "/arcgis/sharing/oauth2/signin",
                                       {"oauth_state": state, "username": USER, "password": PASSWORD})
        assert status == 302, status
        location = urllib.parse.urlsplit(headers["Location"])
        status, _, _ = self.send("GET", f"{location.path}?{location.query}")
        assert status == 303 and "outpost_home" in self.cookies, (status, self.cookies)


def token(connection):
    answer = post(connection, "/arcgis/sharing/rest/generateToken",
                  {"username": USER, "password": PASSWORD, "f": "json", "referer": "bench"})
    return answer["token"]


def fill(connection, key):
    for n in range(ITEMS):
        answer = post(connection, f"/arcgis/sharing/rest/content/users/{USER}/addItem",
                      {"f": "json", "token": key, "type": "Web Mapping Application", "title": f"Item {n:04d}",
                       "tags": "bench", "url": f"https://example.com/{n}"})
        assert answer.get("success"), answer
    for n in range(REPLICAS):
        answer = post(connection, "/arcgis/rest/services/Demo/FeatureServer/createReplica",
                      {"f": "json", "token": key, "replicaName": f"device-{n}", "layers": "0", "returnAttachments": "false",
                       "syncModel": "perLayer", "dataFormat": "json", "transportType": "esriTransportTypeEmbedded",
                       "geometry": "13.0,52.0,13.8,52.8", "geometryType": "esriGeometryEnvelope", "inSR": "4326",
                       "async": "false"})
        assert "replicaID" in answer or "replicaId" in answer, answer


def published(port, key):
    """A small GeoJSON file added and published (the home's "Add data"); its publishing page."""
    import requests

    base = f"http://127.0.0.1:{port}/arcgis/sharing/rest/content/users/{USER}"
    points = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"n": n}, "geometry": {"type": "Point", "coordinates": [13 + n / 1000, 52]}} for n in range(100)]}
    added = requests.post(f"{base}/addItem", data={"f": "json", "token": key, "type": "GeoJson", "title": "Bench points"},
                          files={"file": ("points.geojson", json.dumps(points))}).json()
    service = requests.post(f"{base}/publish", data={"f": "json", "token": key, "itemID": added["id"], "filetype": "geojson",
                                                     "publishParameters": '{"name": "BenchPoints"}'}).json()["services"][0]
    for _ in range(600):
        status = requests.get(f"{base}/items/{service['serviceItemId']}/status",
                              params={"f": "json", "token": key, "jobType": "publish", "jobId": service["jobId"]}).json()
        if status["status"] != "processing":
            break
        time.sleep(0.05)
    assert status["status"] == "completed", status
    return f"/arcgis/home/publishing.html?id={service['serviceItemId']}&job={service['jobId']}", \
        f"/arcgis/sharing/rest/content/users/{USER}/items/{service['serviceItemId']}/status?f=json&jobType=publish&jobId={service['jobId']}"


def timed(send):
    began = time.perf_counter()
    status, _, body = send()
    elapsed = (time.perf_counter() - began) * 1000
    assert status == 200, (status, body[:300])
    return elapsed


def main():
    args = arguments(rounds=15)
    data = os.path.join(OUT, "home-data")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    env = dict(os.environ, OUTPOST_PASSWORD=PASSWORD)
    subprocess.run([args.binary, "users", "add", USER, "--role", "admin", "--data", data], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    process, port, connection = start_server(args.binary, data, "--require-auth")
    try:
        key = token(connection)
        fill(connection, key)
        browser = Browser(port)
        browser.sign_in()
        rest = Browser(port)
        bearer = {"X-Esri-Authorization": f"Bearer {key}"}
        search = json.loads(rest.send("GET", "/arcgis/sharing/rest/search?f=json&q=type:%22Feature%20Service%22&num=1",
                                      headers=bearer)[2])
        service_item = search["results"][0]["id"]
        publishing, publish_status = published(port, key)
        portal = "/arcgis/sharing/rest"
        pages = {
            "index": ("/arcgis/home/index.html", f"{portal}/portals/self?f=json"),
            "content": ("/arcgis/home/content.html", f"{portal}/content/users/{USER}?f=json&num=100"),
            "item": (f"/arcgis/home/item.html?id={service_item}", f"{portal}/content/items/{service_item}?f=json"),
            "webmap": ("/arcgis/home/webmap.html", f"{portal}/search?f=json&q=type:%22Feature%20Service%22&num=100"),
            "devices": ("/arcgis/home/devices.html?service=Demo", "/arcgis/rest/services/Demo/FeatureServer/replicas?f=json"),
            "organization": ("/arcgis/home/organization.html", f"{portal}/portals/self?f=json"),
            "user": ("/arcgis/home/user.html", f"{portal}/portals/self?f=json"),
            "publishing": (publishing, publish_status),
        }
        # Each page as the signed-in admin sees it, before timing: a sign-in prompt would be faster.
        for name, (page, _) in pages.items():
            status, _, body = browser.send("GET", page)
            assert status == 200 and b"Sign out" in body and b"Sign in to see" not in body, (name, body[:300])
        samples = {name: {"page": [], "floor": []} for name in pages}
        for round_ in range(args.rounds):
            order = list(pages.items())
            order = order[round_ % len(order):] + order[:round_ % len(order)]
            for name, (page, floor) in order:
                samples[name]["page"].append(timed(lambda: browser.send("GET", page)))
                samples[name]["floor"].append(timed(lambda: rest.send("GET", floor, headers=bearer)))
        results = {}
        for name, sample in samples.items():
            page, floor = statistics.median(sample["page"]), statistics.median(sample["floor"])
            results[name] = {"page_ms": round(page, 2), "floor_ms": round(floor, 2), "ratio": round(page / floor, 2),
                             "under_50_ms": page < 50}
            print(f"{name:13s} page {page:7.2f} ms  floor {floor:6.2f} ms  ({page / floor:4.1f}x)")
        document = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "items": ITEMS, "replicas": REPLICAS,
                    "rounds": args.rounds, "pages": results}
        with open(os.path.join(OUT, "home.json"), "w") as f:
            json.dump(document, f, indent=2)
    finally:
        process.terminate()
        process.wait(timeout=20)


if __name__ == "__main__":
    main()
