"""Locators and route networks as portal items, and the organisation's choice of utility
services (docs/portal.md, "Items for the server's services" and "Utility services"), through
the real ArcGIS API for Python with token security: `content.search` finds the `Geocoding
Service` and `Network Analysis Service` items, `Geocoder.fromitem` geocodes and
`NetworkDataset.fromitem` solves as the services' own URLs do; an administrator's
`gis.update_properties` chooses the geocoders and the route service that `helperServices` and
`get_geocoders` then name; a viewer's update, an unknown name and another setting are refused
and change nothing (plain HTTP); and deleting a network's item removes the network."""
import json
import math
import os
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import BINARY, UNVERIFIED, on_backend, outpost, running_server

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.geocoding import Geocoder, get_geocoders  # noqa: E402
from arcgis.gis import GIS  # noqa: E402
from arcgis.network import NetworkDataset  # noqa: E402

PASSWORD = "utility-password-1"
USERS = {"ada": "admin", "vic": "viewer"}
# Two place layers, a locator over each; a 3 × 3 street grid 0.001° apart, three networks over
# it: Alpha at the default 50 km/h, Beta at 100 km/h (its travel times halved), Gamma to delete.
SPOTS = {"Old Mill": (13.401, 52.501), "Harbour": (13.402, 52.502)}
LANDMARKS = {"Lighthouse": (13.405, 52.505), "Water Tower": (13.406, 52.504)}
X0, Y0, STEP = 13.40, 52.50, 0.001
NETWORKS = {"AlphaRoads": 50, "BetaRoads": 100, "GammaRoads": 50}


def at(i, j):
    return (round(X0 + i * STEP, 7), round(Y0 + j * STEP, 7))


def metres(a, b):
    lon1, lat1, lon2, lat2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(h))


def import_features(data, service, features):
    path = f"{data}/{service.lower()}.geojson"
    with open(path, "w") as file:
        json.dump({"type": "FeatureCollection", "features": features}, file)
    outpost("import", path, "--service", service, "--data", data)


def point_features(places):
    return [{"type": "Feature", "geometry": {"type": "Point", "coordinates": list(p)}, "properties": {"NAME": n}} for n, p in places.items()]


def grid_lines():
    lines = [(f"Row {j}", at(i, j), at(i + 1, j)) for j in range(3) for i in range(2)]
    return lines + [(f"Column {i}", at(i, j), at(i, j + 1)) for i in range(3) for j in range(2)]


@pytest.fixture(scope="module")
def portal(tmp_path_factory):
    """A server (HTTPS: the ArcGIS API for Python talks HTTPS only) with token security, its
    users, the two locators and the three networks; yields (base, data)."""
    data = str(tmp_path_factory.mktemp("utility"))
    import_features(data, "Spots", point_features(SPOTS))
    import_features(data, "Landmarks", point_features(LANDMARKS))
    for locator, service in (("AlphaPlaces", "Spots"), ("BetaPlaces", "Landmarks")):
        outpost("locator", "create", "--name", locator, "--service", service, "--layer", "0", "--kind", "place", "--field", "placeName=NAME",
                "--data", data)
    import_features(data, "Grid", [{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [list(a), list(b)]},
                                    "properties": {"STREET": name}} for name, a, b in grid_lines()])
    for network, speed in NETWORKS.items():
        outpost("network", "create", "--name", network, "--service", "Grid", "--layer", "0", "--field", "name=STREET",
                "--default-speed", str(speed), "--data", data)
    for name, role in USERS.items():
        subprocess.run(on_backend([BINARY, "users", "add", name, "--role", role, "--data", data]), check=True, capture_output=True,
                       env={**os.environ, "OUTPOST_PASSWORD": PASSWORD})
    with running_server(data, "--no-demo", "--require-auth", tls=True) as base:
        yield base, data


def sign_in(base, name="ada"):
    return GIS(base, name, PASSWORD, verify_cert=False, use_gen_token=True)


def call(url, form=None):
    """The JSON answer of a GET (or, with `form`, a POST), an HTTP error's body too."""
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode() if form is not None else None)
    try:
        with urllib.request.urlopen(request, timeout=60, context=UNVERIFIED) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return {"httpStatus": error.code, **json.loads(error.read() or b"{}")}


def token(base, name):
    answer = call(f"{base}/sharing/rest/generateToken", {"f": "json", "username": name, "password": PASSWORD, "referer": base})
    assert "token" in answer, answer
    return answer["token"]


def helpers(base, as_token):
    return call(f"{base}/sharing/rest/portals/self?" + urllib.parse.urlencode({"f": "json", "token": as_token}))["helperServices"]


def update(base, as_token, **settings):
    return call(f"{base}/sharing/rest/portals/self/update", {"f": "json", "token": as_token, **settings})


def stop(name, point):
    return {"geometry": {"x": point[0], "y": point[1], "spatialReference": {"wkid": 4326}}, "attributes": {"Name": name}}


def route_attributes(answer):
    assert "routes" in answer, answer
    return answer["routes"]["features"][0]["attributes"]


def test_the_items_geocode_and_solve_as_their_services_urls_do(portal):
    base, _ = portal
    gis = sign_in(base)
    locators = gis.content.search('type:"Geocoding Service"')
    assert sorted((i.title, i.url, i.owner) for i in locators) == [
        (n, f"{base}/rest/services/{n}/GeocodeServer", "outpost") for n in ("AlphaPlaces", "BetaPlaces")], locators
    alpha = next(i for i in locators if i.title == "AlphaPlaces")
    best = Geocoder.fromitem(alpha).geocode("Old Mill", out_fields="*", max_locations=5)[0]
    assert best["address"] == "Old Mill", best
    assert abs(best["location"]["x"] - SPOTS["Old Mill"][0]) < 1e-6 and abs(best["location"]["y"] - SPOTS["Old Mill"][1]) < 1e-6, best
    # Alpha's places only: the other layer's landmark is not Alpha's to find.
    assert all(c["address"] != "Lighthouse" for c in Geocoder.fromitem(alpha).geocode("Lighthouse", max_locations=5))

    networks = gis.content.search('type:"Network Analysis Service"')
    assert sorted((i.title, i.url) for i in networks) == [(n, f"{base}/rest/services/{n}/NAServer") for n in sorted(NETWORKS)], networks
    beta = next(i for i in networks if i.title == "BetaRoads")
    stops = [stop("A", at(0.5, 0)), stop("B", at(2, 1.5))]
    from_item = NetworkDataset.fromitem(beta).route_layers[0].solve(stops=stops, impedance_attribute_name="TravelTime")
    by_url = NetworkDataset(f"{base}/rest/services/BetaRoads/NAServer", gis=gis).route_layers[0].solve(
        stops=stops, impedance_attribute_name="TravelTime")
    alpha_roads = NetworkDataset(f"{base}/rest/services/AlphaRoads/NAServer", gis=gis).route_layers[0].solve(
        stops=stops, impedance_attribute_name="TravelTime")
    length = metres(at(0.5, 0), at(2, 0)) + metres(at(2, 0), at(2, 1.5))
    item_route, url_route = route_attributes(from_item), route_attributes(by_url)
    assert abs(item_route["Total_Length"] - length) < length * 0.01, (item_route, length)
    assert item_route["Total_Length"] == url_route["Total_Length"] and item_route["Total_TravelTime"] == url_route["Total_TravelTime"]
    # Beta's 100 km/h, not Alpha's 50: the item is Beta's network.
    assert abs(item_route["Total_TravelTime"] - length / 1000 / 100 * 60) < 0.01 * length / 1000 / 100 * 60, item_route
    assert abs(route_attributes(alpha_roads)["Total_TravelTime"] - 2 * item_route["Total_TravelTime"]) < 1e-3 * item_route["Total_TravelTime"]
    # Org-shared, not public: a viewer's search finds them, an anonymous one does not.
    query = {"f": "json", "q": 'type:"Geocoding Service" OR type:"Network Analysis Service"'}
    found = call(f"{base}/sharing/rest/search?" + urllib.parse.urlencode({**query, "token": token(base, "vic")}))
    assert sorted(r["title"] for r in found["results"]) == sorted(["AlphaPlaces", "BetaPlaces", *NETWORKS]), found
    anonymous = call(f"{base}/sharing/rest/search?" + urllib.parse.urlencode(query))
    assert anonymous["results"] == [], anonymous


def test_an_administrator_chooses_the_route_service_and_the_geocoders(portal):
    base, _ = portal
    gis = sign_in(base)
    services = f"{base}/rest/services"
    # The default: every locator by name, the first network by name.
    assert gis.properties.helperServices.route.url == f"{services}/AlphaRoads/NAServer/Route"
    assert [g.url for g in get_geocoders(gis)] == [f"{services}/AlphaPlaces/GeocodeServer", f"{services}/BetaPlaces/GeocodeServer"]
    beta_item = next(i for i in gis.content.search('type:"Network Analysis Service"') if i.title == "BetaRoads")
    # Any host: the path names the network.
    assert gis.update_properties({"routeServiceLayer": {"url": "https://elsewhere.example/arcgis/rest/services/BetaRoads/NAServer/Route"}})
    assert gis.update_properties({"geocodeService": [{"url": f"{services}/BetaPlaces/GeocodeServer", "name": "Beta"}]})
    for seen in (gis, sign_in(base)):  # the properties the call re-read, and a new session's
        route = seen.properties.helperServices.route
        assert route.url == f"{services}/BetaRoads/NAServer/Route" and route.itemId == beta_item.id, route
        assert [g.url for g in get_geocoders(seen)] == [f"{services}/BetaPlaces/GeocodeServer"]
    assert get_geocoders(gis)[0].geocode("Lighthouse", max_locations=1)[0]["address"] == "Lighthouse"
    # null is the default again; [] and {} choose none.
    admin = token(base, "ada")
    assert update(base, admin, routeServiceLayer="null", geocodeService="[]").get("success") is True
    chosen = helpers(base, admin)
    assert chosen["route"]["url"] == f"{services}/AlphaRoads/NAServer/Route" and chosen["geocode"] == [], chosen
    assert update(base, admin, routeServiceLayer="{}", geocodeService="null").get("success") is True
    chosen = helpers(base, admin)
    assert "route" not in chosen and [g["url"] for g in chosen["geocode"]] == [f"{services}/{n}/GeocodeServer" for n in ("AlphaPlaces", "BetaPlaces")]
    assert update(base, admin, routeServiceLayer="null").get("success") is True


def test_a_viewer_an_unknown_name_and_another_setting_are_refused_and_change_nothing(portal):
    base, _ = portal
    admin, viewer = token(base, "ada"), token(base, "vic")
    before = helpers(base, admin)
    assert before["route"]["url"] == f"{base}/rest/services/AlphaRoads/NAServer/Route", before
    route = json.dumps({"url": f"{base}/rest/services/BetaRoads/NAServer/Route"})
    refused = update(base, viewer, routeServiceLayer=route)
    assert refused["error"]["code"] == 403 and "success" not in refused, refused
    with pytest.raises(Exception, match="Error Code: 403"):
        sign_in(base, "vic").update_properties({"geocodeService": []})
    for settings in ({"routeServiceLayer": json.dumps({"url": f"{base}/rest/services/Nowhere/NAServer/Route"})},
                     {"geocodeService": json.dumps([{"url": f"{base}/rest/services/AlphaRoads/NAServer"}])},
                     {"geocodeService": json.dumps([{"url": f"{base}/rest/services/Spots/FeatureServer"}])},
                     {"routeServiceLayer": route, "portalName": "Elsewhere"}):
        answer = update(base, admin, **settings)
        assert answer.get("error", {}).get("code") == 400 and "success" not in answer, (settings, answer)
    assert helpers(base, admin) == before


def test_deleting_a_networks_item_removes_the_network(portal):
    """Last in the file (pytest keeps file order): the first test still lists GammaRoads."""
    base, data = portal
    gis = sign_in(base)
    gamma = next(i for i in gis.content.search('type:"Network Analysis Service"') if i.title == "GammaRoads")
    route = f"{base}/rest/services/GammaRoads/NAServer/Route"
    assert call(f"{route}?f=json&token={token(base, 'ada')}").get("error") is None
    assert gamma.delete() is True
    assert call(f"{route}?f=json&token={token(base, 'ada')}")["error"]["code"] == 404
    assert gis.content.get(gamma.id) is None
    listed = outpost("network", "list", "--data", data).stdout
    assert "GammaRoads" not in listed and "AlphaRoads" in listed and "BetaRoads" in listed, listed
