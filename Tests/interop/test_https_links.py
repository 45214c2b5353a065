"""What docs/configuration.md, "HTTPS", says of a reverse proxy: Outpost writes absolute links
with the scheme it serves itself and the host the request names (the `Host` a proxy passes),
so a proxy in front of an Outpost serving HTTPS gets `https://` links for its own name, and
one in front of plain HTTP gets `http://` ones (the federation link the Maps SDK for
JavaScript compares with its portal's among them)."""
import json
import urllib.request

import pytest

from conftest import UNVERIFIED, running_server


def owning_system_url(base, host, tls):
    request = urllib.request.Request(f"{base}/rest/info?f=json", headers={"Host": host})
    with urllib.request.urlopen(request, timeout=30, context=UNVERIFIED if tls else None) as response:
        return json.loads(response.read())["owningSystemUrl"]


@pytest.mark.parametrize("tls, scheme", [(True, "https"), (False, "http")])
def test_links_take_the_scheme_served_and_the_host_the_proxy_passes(tls, scheme):
    with running_server(tls=tls) as base:
        assert owning_system_url(base, "maps.example.org", tls) == f"{scheme}://maps.example.org/arcgis"
