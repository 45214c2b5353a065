"""Helpers for the test-target red-team tests: a `--test-target` server of the test's own (plain
or HTTPS, with or without token security), users, tokens and raw HTTP requests."""
import contextlib
import http.client
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.parse

from conftest import BINARY, ROOT, UNVERIFIED, on_backend

PASSWORD = "Attack-pass-47!"
PEOPLE = {"root": "admin", "ed": "editor", "vic": "viewer"}


class Target:
    def __init__(self, process, url, data):
        self.process, self.url, self.data = process, url, data
        parsed = urllib.parse.urlsplit(url)
        self.tls, self.host, self.port = parsed.scheme == "https", parsed.hostname, parsed.port

    def raw(self, method, path, body=None, headers=None, timeout=10):
        """One request with `path` sent exactly as given: (status, headers dict lower-cased, body bytes)."""
        connection = (http.client.HTTPSConnection(self.host, self.port, context=UNVERIFIED, timeout=timeout) if self.tls
                      else http.client.HTTPConnection(self.host, self.port, timeout=timeout))
        try:
            if isinstance(body, dict):
                body = urllib.parse.urlencode(body).encode()
                headers = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
            connection.putrequest(method, path, skip_accept_encoding=True, skip_host="host" in {name.lower() for name in (headers or {})})
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def json(self, method, path, fields=None, token=None, headers=None):
        fields = {"f": "json", **(fields or {}), **({"token": token} if token else {})}
        if method == "GET":
            status, _, body = self.raw("GET", path + "?" + urllib.parse.urlencode(fields), headers=headers)
        else:
            status, _, body = self.raw(method, path, fields, headers=headers)
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body

    def control(self, path, token=None, **fields):
        return self.json("POST", "/_outpost/" + path, fields, token=token)[1]

    def rss_kb(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

    def token(self, user):
        _, answer = self.json("POST", "/arcgis/sharing/rest/generateToken",
                              {"username": user, "password": PASSWORD, "client": "requestip"})
        return answer["token"]


@contextlib.contextmanager
def target(*extra, tls=False, auth=False, test_target=True, data=None):
    """A server on a port of its own (`--port 0 --ready-file`); `data` reuses a folder (no users added)."""
    fresh = data is None
    data = data or tempfile.mkdtemp(prefix="outpost-attack47-")
    if auth and fresh:
        for user, role in PEOPLE.items():
            done = subprocess.run(on_backend([BINARY, "users", "add", user, "--role", role, "--data", data]),
                                  env={**os.environ, "OUTPOST_PASSWORD": PASSWORD}, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
    ready = os.path.join(data, "ready")
    if os.path.exists(ready):
        os.remove(ready)
    arguments = on_backend([BINARY, "serve", "--port", "0", "--ready-file", ready, "--data", data,
                            "--testdata", os.path.join(ROOT, "testdata"),
                            *(["--test-target"] if test_target else []), *(["--require-auth"] if auth else []),
                            *(["--self-signed"] if tls else []), *extra])
    log = open(data + ".log", "ab")
    process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while not os.path.exists(ready) or not open(ready).read().strip():
            if process.poll() is not None or time.time() > deadline:
                raise RuntimeError("outpost did not start:\n" + open(data + ".log", errors="replace").read())
            time.sleep(0.05)
        yield Target(process, open(ready).readline().strip(), data)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


def api_key(t, owner, privileges):
    """An API key of `owner` (an `API Key` item registered with `appType=apikey`), as docs/identity.md makes one."""
    token = t.token(owner)
    _, added = t.json("POST", f"/arcgis/sharing/rest/content/users/{owner}/addItem", {"type": "API Key", "title": "key", "tags": "apikey"}, token=token)
    _, app = t.json("POST", "/arcgis/sharing/rest/oauth2/registerApp", {"itemId": added["id"], "appType": "apikey", "redirect_uris": "[]",
                                                                         "privileges": json.dumps(privileges)}, token=token)
    assert app.get("client_id"), app
    _, info = t.json("GET", f"/arcgis/sharing/rest/content/users/{owner}/items/{added['id']}/registeredAppInfo", token=token)
    assert str(info.get("apiKey", "")).startswith("AAPK"), info
    return info["apiKey"]


def browser_app(t, owner, redirect_uri):
    """An OAuth app of `owner` redirected to `redirect_uri`: its registration (client_id, client_secret)."""
    token = t.token(owner)
    _, added = t.json("POST", f"/arcgis/sharing/rest/content/users/{owner}/addItem", {"type": "Application", "title": "app"}, token=token)
    _, app = t.json("POST", "/arcgis/sharing/rest/oauth2/registerApp", {"itemId": added["id"], "appType": "browser",
                                                                         "redirect_uris": json.dumps([redirect_uri])}, token=token)
    assert app.get("client_id"), app
    return app


def signed_in_redirect(t, client_id, redirect_uri, response_type, user):
    """The sign-in page's flow as a browser runs it: the `Location` the server redirects to."""
    import re
    query = urllib.parse.urlencode({"client_id": client_id, "response_type": response_type, "redirect_uri": redirect_uri, "state": "s"})
    _, headers, page = t.raw("GET", "/arcgis/sharing/rest/oauth2/authorize?" + query)
    state = re.search(r'"oauth_state"\s*:\s*"([^"]+)"', page.decode()).group(1)
    cookie = headers["set-cookie"].split(";")[0]
    status, headers, _ = t.raw("POST", "/arcgis/sharing/oauth2/signin", {"oauth_state": state, "username": user, "password": PASSWORD},
                               headers={"Cookie": cookie})
    assert status == 302, (status, headers)
    return headers["location"]
