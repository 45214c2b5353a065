"""Token security with a real client: the ArcGIS API for Python signs in through the token
service `rest/info` advertises (standalone server mode) and works with its token; anonymous
requests are refused with ArcGIS's 499."""
import json
import os
import subprocess
import tempfile
import urllib.request

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.features import FeatureLayerCollection  # noqa: E402
from arcgis.gis.server import ServicesDirectory  # noqa: E402

from conftest import BINARY, UNVERIFIED, on_backend, running_server  # noqa: E402


def test_the_python_api_signs_in_with_a_token_and_anonymous_is_refused():
    data = tempfile.mkdtemp(prefix="outpost-auth-")
    environment = {**os.environ, "OUTPOST_PASSWORD": "field-crew-1"}
    added = subprocess.run(on_backend([BINARY, "users", "add", "crew", "--role", "editor", "--data", data]), env=environment,
                           capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    listed = subprocess.run(on_backend([BINARY, "users", "list", "--data", data]), capture_output=True, text=True, check=True).stdout
    assert "crew\teditor" in listed
    with running_server(data, "--require-auth", tls=True) as base:
        with urllib.request.urlopen(f"{base}/rest/services/Demo/FeatureServer?f=json", context=UNVERIFIED) as response:
            assert json.loads(response.read())["error"]["code"] == 499
        directory = ServicesDirectory(url=base, username="crew", password="field-crew-1", verify_cert=False)
        trees = FeatureLayerCollection(f"{base}/rest/services/Demo/FeatureServer", gis=directory).layers[2]
        assert trees.query(where="1=1", return_count_only=True) == 2500
        result = trees.edit_features(adds=[{"attributes": {"species": "Signed in"}, "geometry": {"x": 13.3, "y": 52.5}}])
        assert result["addResults"][0]["success"]
        # A wrong password gets no token, so no data.
        with pytest.raises(Exception):
            wrong = ServicesDirectory(url=base, username="crew", password="wrong-password", verify_cert=False)
            FeatureLayerCollection(f"{base}/rest/services/Demo/FeatureServer", gis=wrong).layers[2].query(where="1=1", return_count_only=True)
