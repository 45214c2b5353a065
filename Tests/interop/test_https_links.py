"""What docs/configuration.md, "HTTPS", says of a reverse proxy: Outpost writes absolute links
with the scheme it serves itself and the host the request names (the `Host` a proxy passes),
so a proxy in front of an Outpost serving HTTPS gets `https://` links for its own name, and
one in front of plain HTTP gets `http://` ones (the federation link the Maps SDK for
JavaScript compares with its portal's among them) — unless `--public-url` names the address
clients reach, which every link then takes, whatever the `Host`."""
import http.client
import json
import urllib.parse
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


def test_a_public_url_names_every_link_whatever_the_host():
    with running_server(None, "--public-url", "https://gis.example.org/arcgis") as base:
        assert owning_system_url(base, "evil.example", False) == "https://gis.example.org/arcgis"
        request = urllib.request.Request(f"{base}/sharing/rest/portals/self?f=json", headers={"Host": "evil.example"})
        with urllib.request.urlopen(request, timeout=30) as response:
            portal = json.loads(response.read())
            assert portal["portalHostname"] == "gis.example.org" and portal["allSSL"] is True, portal
            # The links are fixed: a cache may keep them.
            assert response.headers.get("Cache-Control") is None


def test_without_a_public_url_answers_naming_the_host_are_not_stored_and_a_bad_host_is_refused():
    with running_server() as base:
        request = urllib.request.Request(f"{base}/rest/info?f=json", headers={"Host": "maps.example.org"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.headers.get("Cache-Control") == "no-store"
        address = urllib.parse.urlsplit(base)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
        connection.request("GET", "/arcgis/rest/info?f=json", headers={"Host": 'x"><img src=y>'})
        answer = json.loads(connection.getresponse().read())
        assert answer["error"]["code"] == 400 and "img" not in json.dumps(answer), answer
