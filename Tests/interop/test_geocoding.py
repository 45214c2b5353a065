"""Locators (`GeocodeServer`, docs/geocoding.md) through the real ArcGIS API for Python: a
synthetic town's address points imported as a feature service and built into a point-address
locator answer `Geocoder.geocode` (exact, abbreviated, misspelt, multi-field), `suggest` and its
magicKey, `reverse_geocode` and `batch_geocode` as ArcGIS's would; the service JSON, the
directory, outSR, the batch bound and the errors are checked over plain HTTP; a removed locator
is gone; and the demo's place locator finds Berlin."""
import json
import urllib.parse
import urllib.request

import pytest

from conftest import UNVERIFIED, outpost, running_server

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.geocoding import Geocoder, geocode, get_geocoders  # noqa: E402
from arcgis.gis import GIS  # noqa: E402

# The town: three streets of ten houses ~30 m apart in Springfield (postcode 12345), about 110 m
# between streets, and a Hill Street of three houses in Shelbyville (54321) 2 km east.
STEP_X, STEP_Y = 0.00044, 0.001
STREETS = ["Hill Street", "Station Road", "Church Lane"]


def town_points():
    """(number, street, town, postcode, lon, lat) of every address point."""
    points = []
    for row, street in enumerate(STREETS):
        for number in range(1, 11):
            points.append((str(number), street, "Springfield", "12345", round(13.40 + number * STEP_X, 7), round(52.52 + row * STEP_Y, 7)))
    for number in range(1, 4):
        points.append((str(number), "Hill Street", "Shelbyville", "54321", round(13.43 + number * STEP_X, 7), 52.52))
    return points


def point_of(number, street, town="Springfield"):
    return next((x, y) for n, s, t, _, x, y in town_points() if (n, s, t) == (str(number), street, town))


def build_town(data):
    """Imports the town as service `Town` and builds the `TownAddresses` locator over it."""
    features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]},
                 "properties": {"NUM": n, "STREET": s, "TOWN": t, "POSTCODE": p}} for n, s, t, p, x, y in town_points()]
    path = f"{data}/town.geojson"
    with open(path, "w") as file:
        json.dump({"type": "FeatureCollection", "features": features}, file)
    outpost("import", path, "--service", "Town", "--data", data)
    outpost("locator", "create", "--name", "TownAddresses", "--service", "Town", "--layer", "0", "--kind", "pointAddress",
            "--field", "houseNumber=NUM", "--field", "street=STREET", "--field", "locality=TOWN", "--field", "postcode=POSTCODE",
            "--data", data)


def get(url, form=None):
    """The JSON answer of a GET (or, with `form`, a POST) over HTTP or HTTPS."""
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode() if form is not None else None)
    with urllib.request.urlopen(request, timeout=60, context=UNVERIFIED if url.startswith("https") else None) as response:
        assert response.status == 200
        return json.loads(response.read())


@pytest.fixture(scope="module")
def town(tmp_path_factory):
    """A server (HTTPS: the ArcGIS API for Python talks HTTPS only) of the town and its locator."""
    data = str(tmp_path_factory.mktemp("town"))
    build_town(data)
    with running_server(data, "--no-demo", tls=True) as base:
        yield base, Geocoder(f"{base}/rest/services/TownAddresses/GeocodeServer", GIS(base, verify_cert=False))


def close_to(location, point, tolerance=1e-6):
    return abs(location["x"] - point[0]) <= tolerance and abs(location["y"] - point[1]) <= tolerance


def test_geocode_finds_an_address_exactly_abbreviated_misspelt_and_by_fields(town):
    _, geocoder = town
    exact = geocoder.geocode("3 Hill Street, Springfield", out_fields="*", max_locations=5)
    best = exact[0]
    assert best["score"] == 100 and best["attributes"]["Addr_type"] == "PointAddress", exact
    assert "3 Hill Street" in best["address"] and "Springfield" in best["address"], best
    assert close_to(best["location"], point_of(3, "Hill Street")), (best["location"], point_of(3, "Hill Street"))
    # "St" is Street: the same address, as well scored.
    abbreviated = geocoder.geocode("3 Hill St, Springfield", out_fields="*", max_locations=5)[0]
    assert abbreviated["address"] == best["address"] and abbreviated["score"] == 100, abbreviated
    assert close_to(abbreviated["location"], point_of(3, "Hill Street"))
    # One letter missing costs 5.
    misspelt = geocoder.geocode("3 Hil Street, Springfield", out_fields="*", max_locations=5)[0]
    assert misspelt["address"] == best["address"] and misspelt["score"] == 95, misspelt
    assert close_to(misspelt["location"], point_of(3, "Hill Street"))
    # No house 42: no point address claims it.
    missing = geocoder.geocode("42 Hill Street, Springfield", out_fields="*", max_locations=20)
    assert not [c for c in missing if c["attributes"]["Addr_type"] == "PointAddress" and str(c["attributes"].get("AddNum")) == "42"], missing
    assert not [c for c in missing if c["address"].startswith("42 ")], missing
    # The multi-field form, as ArcGIS's address fields.
    fields = geocoder.geocode({"Address": "3 Hill Street", "City": "Springfield"}, out_fields="*", max_locations=5)[0]
    assert fields["address"] == best["address"] and fields["score"] == 100, fields
    assert close_to(fields["location"], point_of(3, "Hill Street"))


def test_the_locality_chooses_between_two_towns_streets(town):
    _, geocoder = town
    best = geocoder.geocode("2 Hill Street, Shelbyville", out_fields="*", max_locations=5)[0]
    assert best["score"] == 100 and "Shelbyville" in best["address"], best
    assert close_to(best["location"], point_of(2, "Hill Street", "Shelbyville"))


def test_a_suggestions_magic_key_geocodes_the_suggested_address_first(town):
    _, geocoder = town
    answer = geocoder.suggest("3 Hill St")
    suggestions = answer["suggestions"]
    assert suggestions and all(s["magicKey"] and s["isCollection"] is False for s in suggestions), answer
    chosen = next((s for s in suggestions if s["text"].startswith("3 Hill Street")), None)
    assert chosen, suggestions
    candidates = geocoder.geocode(chosen["text"], magic_key=chosen["magicKey"], out_fields="*", max_locations=5)
    assert candidates and candidates[0]["address"] == chosen["text"], (chosen, candidates)
    assert candidates[0]["attributes"]["Addr_type"] == "PointAddress"
    assert close_to(candidates[0]["location"], point_of(3, "Hill Street"))


def test_reverse_geocode_answers_the_nearest_address_and_nothing_far_away(town):
    base, geocoder = town
    x, y = point_of(5, "Station Road")
    # 5 m north of the point (neighbours are 30 m away, the next street 110 m).
    answer = geocoder.reverse_geocode(location=[x, y + 0.000045])
    assert "5 Station Road" in answer["address"]["Match_addr"], answer
    assert answer["address"]["Addr_type"] == "PointAddress", answer
    assert close_to(answer["location"], (x, y)), answer
    try:
        far = geocoder.reverse_geocode(location=[0, 0])
    except Exception as error:  # the client raises the service's error
        assert "Unable to find address" in str(error), error
    else:
        assert "error" in far or not far.get("address"), far
    plain = get(f"{base}/rest/services/TownAddresses/GeocodeServer/reverseGeocode?" + urllib.parse.urlencode({"f": "json", "location": "0,0"}))
    assert plain["error"]["code"] == 400 and plain["error"]["details"] == ["Unable to find address for the specified location."], plain


def test_batch_geocode_answers_every_address_in_order(town):
    _, geocoder = town
    addresses = ["3 Hill Street, Springfield", "7 Church Lane, Springfield", "qwzx vvvrrr", "2 Station Road, Springfield"]
    results = geocoder.batch_geocode(addresses)
    assert len(results) == 4, results
    assert [r["attributes"]["ResultID"] for r in results] == [0, 1, 2, 3], results
    assert [r["attributes"]["Status"] for r in results] == ["M", "M", "U", "M"], results
    for result, (number, street) in zip((results[0], results[1], results[3]), ((3, "Hill Street"), (7, "Church Lane"), (2, "Station Road"))):
        assert result["address"].startswith(f"{number} {street}") and result["score"] == 100, result
        assert close_to(result["location"], point_of(number, street)), result


def test_the_service_json_directory_out_sr_and_errors_over_http(town):
    base, _ = town
    service = f"{base}/rest/services/TownAddresses/GeocodeServer"
    description = get(f"{service}?f=json")
    assert description["singleLineAddressField"]["name"] == "SingleLine", description
    maximum = description["locatorProperties"]["MaxBatchSize"]
    assert isinstance(maximum, int) and maximum > 0, description
    assert {"name": "TownAddresses", "type": "GeocodeServer"} in get(f"{base}/rest/services?f=json")["services"]
    # Web Mercator on request, in metres.
    query = {"f": "json", "SingleLine": "3 Hill Street, Springfield", "outFields": "*"}
    mercator = get(f"{service}/findAddressCandidates?" + urllib.parse.urlencode({**query, "outSR": "3857"}))
    assert mercator["spatialReference"]["wkid"] == 3857, mercator
    location = mercator["candidates"][0]["location"]
    assert abs(location["x"] - 1.4917e6) < 2e3 and abs(location["y"] - 6.8946e6) < 3e3, location
    assert get(f"{service}/findAddressCandidates?" + urllib.parse.urlencode({**query, "outSR": "102100"}))["candidates"]
    refused = get(f"{service}/findAddressCandidates?" + urllib.parse.urlencode({**query, "outSR": "2193"}))
    assert refused["error"]["code"] == 400, refused
    # One record more than MaxBatchSize is refused whole.
    records = [{"attributes": {"OBJECTID": i, "SingleLine": "3 Hill Street, Springfield"}} for i in range(maximum + 1)]
    too_many = get(f"{service}/geocodeAddresses", {"f": "json", "addresses": json.dumps({"records": records})})
    assert too_many["error"]["code"] == 400, too_many
    assert get(f"{base}/rest/services/Nowhere/GeocodeServer?f=json")["error"]["code"] == 404
    assert get(f"{base}/rest/services/Nowhere/GeocodeServer/findAddressCandidates?f=json&SingleLine=x")["error"]["code"] == 404


def test_a_removed_locator_answers_404_and_its_layer_stays(tmp_path):
    data = str(tmp_path)
    build_town(data)
    assert "TownAddresses" in outpost("locator", "list", "--data", data).stdout
    with running_server(data, "--no-demo") as base:
        assert get(f"{base}/rest/services/TownAddresses/GeocodeServer?f=json")["singleLineAddressField"]["name"] == "SingleLine"
    outpost("locator", "remove", "TownAddresses", "--data", data)
    assert "TownAddresses" not in outpost("locator", "list", "--data", data).stdout
    with running_server(data, "--no-demo") as base:
        assert get(f"{base}/rest/services/TownAddresses/GeocodeServer?f=json")["error"]["code"] == 404
        assert {"name": "TownAddresses", "type": "GeocodeServer"} not in get(f"{base}/rest/services?f=json")["services"]
        count = get(f"{base}/rest/services/Town/FeatureServer/0/query?f=json&where=1%3D1&returnCountOnly=true")
        assert count["count"] == len(town_points()), count


def test_the_demo_place_locator_finds_berlin(tmp_path):
    with running_server(str(tmp_path), tls=True) as base:
        geocoder = Geocoder(f"{base}/rest/services/DemoPlaces/GeocodeServer", GIS(base, verify_cert=False))
        best = geocoder.geocode("Berlin", out_fields="*", max_locations=5)[0]
        assert best["address"] == "Berlin" and best["attributes"]["Addr_type"] == "POI", best
        assert abs(best["location"]["x"] - 13.3996) < 0.01 and abs(best["location"]["y"] - 52.5238) < 0.01, best
        # The portal names its locators (helperServices.geocode): the client's default geocoder.
        gis = GIS(base, verify_cert=False)
        assert [g.url for g in get_geocoders(gis)] == [f"{base}/rest/services/DemoPlaces/GeocodeServer"]
        assert geocode("Paris", as_featureset=False)[0]["address"] == "Paris"
