#!/usr/bin/env python3
"""Signing in through the portal's OAuth 2.0 against the token service, in one run (issue 46).

Over HTTP on loopback, against one server with --require-auth, in rotated rounds:
  - generateToken: username and password for a token (the peer: the old path);
  - implicit: `oauth2/authorize` (the page) then `oauth2/signin` (the password), the token from
    the redirect's fragment (what the ArcGIS API for Python's `GIS(url, user, password)` does);
  - code + PKCE: the same two requests for a code, then `oauth2/token` with the verifier;
  - refresh: `oauth2/token` with a refresh token (no password; the refresh token stays);
  - a query with an OAuth token, with an API key naming the service (the check reads the key's
    app; the key's reach is looked up by route) and with a generateToken token (the
    per-request check).
Every figure is a median of `--rounds` samples; ratios are against generateToken (or, for the
query, the generateToken token's query) measured in the same rounds.

Usage: python3 bench/signin.py [--binary PATH] [--rounds 15]. Writes bench/out/signin.json.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import time
import urllib.parse

from harness import machine, start_server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
USER, PASSWORD = "bench-editor", "bench-password-1"
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).decode().rstrip("=")


def request(connection, method, path, fields=None, headers=None):
    body = urllib.parse.urlencode(fields) if fields is not None else None
    all_headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
    all_headers.update(headers or {})
    connection.request(method, path, body=body, headers=all_headers)
    response = connection.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def generate_token(connection):
    status, _, body = request(connection, "POST", "/arcgis/sharing/rest/generateToken",
                              {"username": USER, "password": PASSWORD, "f": "json", "referer": "bench"})
    assert status == 200, body
    return json.loads(body)["token"]


def sign_in(connection, port, response_type, extra=()):
    query = urllib.parse.urlencode([("client_id", "pythonapi"), ("response_type", response_type),
                                    ("redirect_uri", f"http://127.0.0.1:{port}"), ("state", "bench"), *extra])
    status, headers, page = request(connection, "GET", f"/arcgis/sharing/rest/oauth2/authorize?{query}")
    assert status == 200, page[:300]
    state = json.loads(re.search(rb"\{.*\}", page).group(0))["oauth_state"]
    cookie = headers["Set-Cookie"].split(";")[0]
    status, headers, body = request(connection, "POST", "/arcgis/sharing/oauth2/signin",
                                    {"oauth_state": state, "username": USER, "password": PASSWORD},
                                    {"Cookie": cookie})
    assert status == 302, body[:300]
    return headers["Location"]


def implicit(connection, port):
    location = sign_in(connection, port, "token")
    return dict(urllib.parse.parse_qsl(location.split("#", 1)[1]))["access_token"]


def code_flow(connection, port):
    location = sign_in(connection, port, "code", [("code_challenge", CHALLENGE), ("code_challenge_method", "S256")])
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))["code"]
    status, _, body = request(connection, "POST", "/arcgis/sharing/rest/oauth2/token",
                              {"grant_type": "authorization_code", "client_id": "pythonapi", "code": code,
                               "redirect_uri": f"http://127.0.0.1:{port}", "code_verifier": VERIFIER})
    assert status == 200, body
    return json.loads(body)


def refresh(connection, token):
    status, _, body = request(connection, "POST", "/arcgis/sharing/rest/oauth2/token",
                              {"grant_type": "refresh_token", "client_id": "pythonapi", "refresh_token": token})
    assert status == 200, body
    return json.loads(body)


def query(connection, token):
    status, _, body = request(connection, "GET", "/arcgis/rest/services/Demo/FeatureServer/2/query?where=1%3D1"
                              "&returnCountOnly=true&f=json", headers={"X-Esri-Authorization": f"Bearer {token}"})
    assert status == 200 and b"count" in body, body


def api_key(connection, token):
    """An `apikey` app of the editor's naming the Demo service's item, as the ArcGIS API for
    Python's `api_keys.create` registers one: its `apiKey`."""
    def portal(path, fields):
        status, _, body = request(connection, "POST", "/arcgis/sharing/rest/" + path, {**fields, "f": "json", "token": token})
        assert status == 200, body
        return json.loads(body)
    found = portal("search", {"q": "Demo", "num": "100"})["results"]
    service = next(item["id"] for item in found if item["title"] == "Demo" and item["type"] == "Feature Service")
    item = portal(f"content/users/{USER}/addItem", {"type": "API Key", "title": "bench key"})["id"]
    registered = portal("oauth2/registerApp", {"itemId": item, "appType": "apikey", "redirect_uris": "[]",
                                               "privileges": json.dumps([f"portal:app:access:item:{service}"])})
    return registered["apiKey"]


def timed(function, *arguments):
    start = time.perf_counter()
    result = function(*arguments)
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    data = os.path.join(OUT, "signin-data")
    shutil.rmtree(data, ignore_errors=True)
    subprocess.run([args.binary, "users", "add", USER, "--role", "editor", "--data", data],
                   env={**os.environ, "OUTPOST_PASSWORD": PASSWORD}, check=True, capture_output=True)
    server, port, connection = start_server(args.binary, data, "--require-auth", "--token-minutes", "60", cwd=ROOT)
    samples = {name: [] for name in ("generateToken", "implicit", "code_pkce", "refresh", "query_generateToken", "query_oauth", "query_api_key")}
    try:
        gen_token, oauth_token = generate_token(connection), implicit(connection, port)
        refresh_token = code_flow(connection, port)["refresh_token"]
        key = api_key(connection, gen_token)
        for round_ in range(args.rounds):
            steps = [
                ("generateToken", lambda: generate_token(connection)),
                ("implicit", lambda: implicit(connection, port)),
                ("code_pkce", lambda: code_flow(connection, port)),
            ]
            # Rotated, so no path always meets a warmer or busier machine.
            for name, step in steps[round_ % len(steps):] + steps[:round_ % len(steps)]:
                samples[name].append(timed(step)[0])
            # The refresh token stays valid (`refresh_token`, as ArcGIS answers it).
            seconds, answer = timed(refresh, connection, refresh_token)
            assert "access_token" in answer and "refresh_token" not in answer, answer
            samples["refresh"].append(seconds)
        # The per-request token check, away from the sign-ins' hashing: rotated triples.
        for pair in range(20 * args.rounds):
            tokens = [("query_generateToken", gen_token), ("query_oauth", oauth_token), ("query_api_key", key)]
            for name, token in tokens[pair % 3:] + tokens[:pair % 3]:
                samples[name].append(timed(query, connection, token)[0])
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(data, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    result = {
        "machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds, "binary": args.binary,
        "median_seconds": medians,
        "ratios": {
            "implicit / generateToken": medians["implicit"] / medians["generateToken"],
            "code_pkce / generateToken": medians["code_pkce"] / medians["generateToken"],
            "refresh / generateToken": medians["refresh"] / medians["generateToken"],
            "query with an OAuth token / with a generateToken token": medians["query_oauth"] / medians["query_generateToken"],
            "query with an API key / with a generateToken token": medians["query_api_key"] / medians["query_generateToken"],
        },
    }
    with open(os.path.join(OUT, "signin.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
