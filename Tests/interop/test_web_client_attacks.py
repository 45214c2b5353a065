"""Attacks on cross-origin requests against a real server (docs/web-clients.md). The tests
marked "was a finding" failed before their fix; the others are attacks that held. Browser tests use headless Chromium
as test_cors.py does."""
import http.client
import json
import ssl
import tempfile
import time
import urllib.parse
import urllib.request

import pytest

from conftest import headless_chromium, needs_chromium, running_server  # noqa: E402
from test_cors import ADD, TREES, count, page_origin  # noqa: E402

UNVERIFIED = ssl._create_unverified_context()


def request(base, method, path, fields=None, headers=None):
    """One request with exactly these headers (Host included when given); (status, headers, body)."""
    url = urllib.parse.urlsplit(base)
    connection = (http.client.HTTPSConnection(url.hostname, url.port, context=UNVERIFIED) if url.scheme == "https"
                  else http.client.HTTPConnection(url.hostname, url.port))
    body = urllib.parse.urlencode(fields) if fields is not None else None
    headers = dict(headers or {})
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.putrequest(method, url.path + path, skip_host="Host" in headers, skip_accept_encoding=True)
    for name, value in headers.items():
        connection.putheader(name, value)
    if body is not None:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body.encode() if body is not None else None)
    response = connection.getresponse()
    answer = (response.status, response.headers, response.read())
    connection.close()
    return answer


def replicas(base):
    with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/replicas?f=json") as response:
        return json.loads(response.read())


def create_replica(base, name):
    fields = {"f": "json", "replicaName": name, "layers": "2", "geometry": "13.3,52.4,13.5,52.6", "geometryType": "esriGeometryEnvelope",
              "inSR": "4326", "transportType": "esriTransportTypeEmbedded", "syncModel": "perLayer"}
    data = urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer/createReplica", data) as response:
        return json.loads(response.read())["replicaID"]


def test_dns_rebinding_an_origin_matching_a_spoofed_host_edits_past_allowed_origins():
    """Was a finding (fixed): the server's own pages are recognised by Origin == Host, and Host is not
    checked. A page at http://rebind.attacker.example:<port> whose name the attacker points at
    the Outpost address (DNS rebinding) sends exactly that pair, and so edits (and reads) an
    Outpost restricted to other origins."""
    with running_server(None, "--allowed-origins", "https://maps.example.com") as base:
        port = urllib.parse.urlsplit(base).port
        before = count(base)
        attacker = f"rebind.attacker.example:{port}"
        status, headers, body = request(base, "POST", f"/{TREES}/applyEdits", {"f": "json", "adds": ADD},
                                        {"Host": attacker, "Origin": f"http://{attacker}"})
        assert count(base) == before, f"a rebound page edited: {status} {body[:200]!r}"


def test_the_same_rules_hold_over_tls_the_fast_path_included():
    """Held: over TLS a refused origin is refused (edits, tiles before and after the fast path
    has them), an allowed one gets its headers, Vary: Origin included."""
    allowed = "https://maps.example.com"
    with running_server(None, "--allowed-origins", allowed, tls=True) as base:
        before = count_tls(base)
        status, headers, body = request(base, "POST", f"/{TREES}/applyEdits", {"f": "json", "adds": ADD},
                                        {"Origin": "https://evil.example"})
        assert json.loads(body)["error"]["code"] == 403 and headers.get("Access-Control-Allow-Origin") is None
        assert count_tls(base) == before
        tile = "/rest/services/DemoBasemap/MapServer/tile/0/0/0"
        for _ in range(3):
            status, headers, _ = request(base, "GET", tile, headers={"Origin": allowed})
            assert status == 200 and headers.get("Access-Control-Allow-Origin") == allowed and headers.get("Vary") == "Origin"
            status, headers, body = request(base, "GET", tile, headers={"Origin": "https://evil.example"})
            # ArcGIS's error envelope (HTTP 200), no tile, no CORS headers.
            assert json.loads(body)["error"]["code"] == 403 and headers.get("Access-Control-Allow-Origin") is None


def count_tls(base):
    with urllib.request.urlopen(f"{base}/{TREES}/query?where=1%3D1&returnCountOnly=true&f=json", context=UNVERIFIED) as response:
        return json.loads(response.read())["count"]


browser_only = needs_chromium

# Runs in the page: loads `url` as a classic script (no CORS, no Origin) with `callback` defined.
JSONP = """
const [url, done] = arguments;
window.stolen = data => done({read: data});
const script = document.createElement("script");
script.src = url;
script.onerror = () => done({blocked: "script error"});
document.head.appendChild(script);
setTimeout(() => done({blocked: "timeout"}), 10000);
"""

# Runs in the page: loads `url` as an image (no CORS, no Origin); done when it has been answered.
IMAGE = """
const [url, done] = arguments;
const image = new Image();
image.onload = image.onerror = () => done(true);
image.src = url;
"""


@browser_only
def test_a_page_elsewhere_reads_by_jsonp_past_allowed_origins(browser):
    """Was a finding (fixed): a page not in --allowed-origins cannot fetch a query, but loads it as JSONP."""
    with page_origin() as allowed, page_origin() as elsewhere:
        with running_server(None, "--allowed-origins", allowed) as base:
            browser.get(elsewhere)
            answer = browser.execute_async_script(JSONP, f"{base}/{TREES}/query?where=1%3D1&returnCountOnly=true&f=json&callback=stolen")
            assert "read" not in answer, f"a page elsewhere read {answer}"


@browser_only
def test_an_image_elsewhere_unregisters_replicas_past_allowed_origins(browser):
    """Was a finding (fixed): without token security unRegisterReplica answers GET, and an <img> sends no
    Origin: a page not in --allowed-origins unregisters every replica."""
    with page_origin() as allowed, page_origin() as elsewhere:
        with running_server(None, "--allowed-origins", allowed) as base:
            create_replica(base, "crew")
            assert len(replicas(base)) == 1
            browser.get(elsewhere)
            browser.execute_async_script(IMAGE, f"{base}/rest/services/Demo/FeatureServer/unRegisterReplica?f=json&replicaID=*")
            time.sleep(0.5)
            assert len(replicas(base)) == 1, "an <img> on a page elsewhere unregistered the replicas"


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as driver:
        yield driver
