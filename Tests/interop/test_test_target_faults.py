"""`serve --test-target`: fault rules as real clients meet them (docs/testing-your-app.md,
"Faults"). The ArcGIS API for Python raises with the injected error's code and message on a
query and on edit_features; GDAL's ESRIJSON driver waits out an injected latency and fails on
an answer cut short. Both backends (OUTPOST_INTEROP_BACKEND)."""
import json
import os
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import UNVERIFIED, running_server

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.features import FeatureLayerCollection  # noqa: E402
from arcgis.gis.server import ServicesDirectory  # noqa: E402

TREES = "/rest/services/Demo/FeatureServer/2"
GDAL_ENVIRONMENT = {**os.environ, "GDAL_HTTP_UNSAFESSL": "YES", "CPL_CURL_VERBOSE": "NO", "GDAL_HTTP_MAX_RETRY": "0"}


@pytest.fixture(scope="module")
def target():
    """A test target over HTTPS (the ArcGIS API for Python talks HTTPS only): its /arcgis URL."""
    with running_server(None, "--test-target", tls=True) as base:
        yield base


def control(base, path, **fields):
    """POSTs to the control API (`/_outpost/…`) and returns its JSON answer."""
    url = base.removesuffix("/arcgis") + "/_outpost/" + path
    data = urllib.parse.urlencode({"f": "json", **fields}).encode()
    with urllib.request.urlopen(url, data=data, timeout=30, context=UNVERIFIED) as response:
        return json.loads(response.read())


def add_rule(base, rule):
    answer = control(base, "faults", rule=json.dumps(rule))
    assert "rule" in answer, answer
    return answer["rule"]["id"]


def fired(base, rule_id):
    url = base.removesuffix("/arcgis") + "/_outpost/faults?f=json"
    with urllib.request.urlopen(url, timeout=30, context=UNVERIFIED) as response:
        rules = json.loads(response.read())["rules"]
    return next(rule["fired"] for rule in rules if rule["id"] == rule_id)


@pytest.fixture(autouse=True)
def no_rules_left(target):
    control(target, "faults/clear")
    yield
    control(target, "faults/clear")


@pytest.fixture(scope="module")
def trees_layer(target):
    directory = ServicesDirectory(url=target, verify_cert=False)
    return FeatureLayerCollection(f"{target}/rest/services/Demo/FeatureServer", gis=directory).layers[2]


def test_python_query_raises_with_the_injected_code_and_message(target, trees_layer):
    rule = add_rule(target, {"operation": "query", "service": "Demo", "layer": 2,
                             "error": {"code": 503, "message": "Injected outage for the test"}})
    with pytest.raises(Exception) as raised:
        trees_layer.query(where="1=1", out_fields="species")
    assert "Injected outage for the test" in str(raised.value)
    assert "503" in str(raised.value)
    assert fired(target, rule) >= 1
    control(target, "faults/clear")
    assert len(trees_layer.query(where="height_m > 25", out_fields="species").features) > 0


def test_python_edit_features_raises_with_the_injected_code_and_message(target, trees_layer):
    add_rule(target, {"operation": "applyEdits", "error": {"code": 409, "message": "Edits refused by the test"}, "count": 1})
    adds = [{"attributes": {"species": "Fault tree", "height_m": 3}, "geometry": {"x": 13.4, "y": 52.5}}]
    with pytest.raises(Exception) as raised:
        trees_layer.edit_features(adds=adds)
    assert "Edits refused by the test" in str(raised.value)
    assert "409" in str(raised.value)
    # Spent: the same edit then goes through.
    answer = trees_layer.edit_features(adds=adds)
    assert answer["addResults"][0]["success"] is True


def ogrinfo(url):
    started = time.monotonic()
    result = subprocess.run(["ogrinfo", "-ro", "-al", "-so", f"ESRIJSON:{url}"], capture_output=True, text=True,
                            env=GDAL_ENVIRONMENT, timeout=120)
    return result, time.monotonic() - started


def test_gdal_waits_out_the_injected_latency(target):
    url = f"{target}{TREES}/query?where=height_m%20%3E%2025&outFields=*&f=json"
    quick, quick_elapsed = ogrinfo(url)
    assert quick.returncode == 0, quick.stderr
    rule = add_rule(target, {"operation": "query", "layer": 2, "latency": {"ms": 1500}})
    slow, elapsed = ogrinfo(url)
    assert slow.returncode == 0, slow.stderr
    assert elapsed >= 1.5, elapsed
    assert elapsed >= quick_elapsed + 1.0
    assert fired(target, rule) >= 1
    # The same answer, only later.
    assert [line for line in slow.stdout.splitlines() if "Feature Count" in line] == \
        [line for line in quick.stdout.splitlines() if "Feature Count" in line]


def features_read(url):
    """GDAL reads every feature of `url` (ogrinfo, every feature listed): the process and the count."""
    result = subprocess.run(["ogrinfo", "-ro", "-al", "-q", f"ESRIJSON:{url}"], capture_output=True, text=True,
                            env=GDAL_ENVIRONMENT, timeout=120)
    return result, result.stdout.count("OGRFeature(")


def test_gdal_fails_on_an_answer_cut_short(target):
    url = f"{target}{TREES}/query?where=height_m%20%3E%2025&outFields=*&f=json"
    whole, count = features_read(url)
    assert whole.returncode == 0 and count > 0, whole.stderr
    rule = add_rule(target, {"operation": "query", "layer": 2, "cutAfterFraction": 0.6})
    cut, cut_count = features_read(url)
    # GDAL (curl) notices the truncation against the Content-Length and fails.
    assert cut.returncode != 0 and "transfer closed" in cut.stderr, (cut.returncode, cut_count, cut.stderr)
    assert fired(target, rule) >= 1
