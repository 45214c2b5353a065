"""Cross-origin requests from a real browser (headless Chromium, Selenium): a page served from
another loopback port reads a query, applies edits (a simple POST and one with a preflight),
reads tiles (the router's answer and the fast path's), all by default; with `--allowed-origins`
only the listed origins can, except the token service, which every origin may use
(docs/web-clients.md, "Cross-origin requests")."""
import contextlib
import http.server
import json
import os
import subprocess
import tempfile
import threading
import urllib.request

import pytest

from conftest import BINARY, free_port, headless_chromium, needs_chromium, on_backend, running_server  # noqa: E402

pytestmark = needs_chromium

TREES = "rest/services/Demo/FeatureServer/2"
ADD = json.dumps([{"attributes": {"species": "Cross origin"}, "geometry": {"x": 13.4, "y": 52.5}}])

# Runs in the page: fetches `url` and answers {ok, status, body} or {blocked: message}.
FETCH = """
const [url, init, done] = arguments;
fetch(url, init).then(r => r.text().then(body => done({status: r.status, body: body})))
    .catch(e => done({blocked: String(e)}));
"""


@contextlib.contextmanager
def page_origin():
    """A static page on its own loopback port: the web app's origin."""
    folder = tempfile.mkdtemp(prefix="outpost-cors-page-")
    with open(os.path.join(folder, "index.html"), "w") as page:
        page.write("<!doctype html><title>app</title><p>A web app elsewhere.</p>")
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=folder, **k)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as driver:
        yield driver


def fetch(browser, url, method="GET", form=None, headers=None, credentials="same-origin"):
    # `no-store`: every fetch reaches the server (a tile's answer may be cached for a day).
    init = {"method": method, "headers": headers or {}, "credentials": credentials, "cache": "no-store"}
    if form is not None:
        init["body"] = "&".join(f"{k}={urllib.request.quote(v, safe='')}" for k, v in form.items())
        init["headers"]["Content-Type"] = "application/x-www-form-urlencoded"
    return browser.execute_async_script(FETCH, url, init)


def count(base, token=None):
    auth = f"&token={token}" if token else ""
    with urllib.request.urlopen(f"{base}/{TREES}/query?where=1%3D1&returnCountOnly=true&f=json{auth}") as response:
        return json.loads(response.read())["count"]


def test_a_page_elsewhere_queries_edits_and_reads_tiles_by_default(browser):
    with running_server() as base, page_origin() as app:
        browser.get(app)
        answer = fetch(browser, f"{base}/{TREES}/query?where=1%3D1&returnCountOnly=true&f=json")
        assert json.loads(answer["body"])["count"] == 2500, answer
        # A simple POST (no preflight), then one whose header asks for a preflight, with credentials.
        simple = fetch(browser, f"{base}/{TREES}/applyEdits", "POST", {"f": "json", "adds": ADD})
        assert json.loads(simple["body"])["addResults"][0]["success"], simple
        preflighted = fetch(browser, f"{base}/{TREES}/applyEdits", "POST", {"f": "json", "adds": ADD},
                            headers={"X-Requested-With": "XMLHttpRequest"}, credentials="include")
        assert json.loads(preflighted["body"])["addResults"][0]["success"], preflighted
        assert count(base) == 2502
        # A tile twice: the router answers the first and fills the cache, the fast path the second.
        tile = f"{base}/rest/services/DemoBasemap/MapServer/tile/0/0/0"
        for _ in range(2):
            answer = fetch(browser, tile)
            assert answer.get("status") == 200, answer
        # Errors are readable too: a web client shows why a request failed.
        missing = fetch(browser, f"{base}/rest/services/NoSuch/FeatureServer?f=json")
        assert json.loads(missing["body"])["error"]["code"] == 404, missing


def test_allowed_origins_admit_only_the_listed_pages_but_every_page_gets_a_token(browser):
    data = tempfile.mkdtemp(prefix="outpost-cors-")
    environment = {**os.environ, "OUTPOST_PASSWORD": "crew-password"}
    added = subprocess.run(on_backend([BINARY, "users", "add", "crew", "--role", "editor", "--data", data]), env=environment,
                           capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    with page_origin() as allowed, page_origin() as elsewhere:
        with running_server(data, "--require-auth", "--allowed-origins", allowed) as base:
            token_form = {"username": "crew", "password": "crew-password", "client": "requestip", "f": "json"}
            for origin in (allowed, elsewhere):
                browser.get(origin)
                answer = fetch(browser, f"{base}/tokens/generateToken", "POST", token_form)
                assert "token" in json.loads(answer["body"]), (origin, answer)
            token = json.loads(answer["body"])["token"]
            before = count(base, token)

            browser.get(allowed)
            edited = fetch(browser, f"{base}/{TREES}/applyEdits", "POST", {"f": "json", "adds": ADD},
                           headers={"X-Esri-Authorization": f"Bearer {token}"})
            assert json.loads(edited["body"])["addResults"][0]["success"], edited

            browser.get(elsewhere)
            read = fetch(browser, f"{base}/{TREES}/query?where=1%3D1&returnCountOnly=true&f=json&token={token}")
            assert "blocked" in read, read
            # Not even a simple POST, which a browser sends without asking first, changes anything.
            refused = fetch(browser, f"{base}/{TREES}/applyEdits", "POST", {"f": "json", "adds": ADD, "token": token})
            assert "blocked" in refused, refused
            assert count(base, token) == before + 1

