"""Route networks (`NAServer`, docs/routing.md) through the real ArcGIS API for Python: a
synthetic town's streets imported as a line layer and built into a network answer
`RouteLayer.solve` with lengths measured here independently (haversine), named stops in
sequence, left and right turns in the directions, a one-way gone round (and taken straight when
restrictions are lifted), a barrier's detour, a restricted line avoided, `findBestSequence`,
travel times at each street's speed and the cost field; the directions' compressedGeometry is
decoded by a third party's decoder; errors, German, outSR, the directory and the portal's route
helper are checked over plain HTTP; and a removed network is gone."""
import json
import math
import urllib.parse
import urllib.request

import pytest

from conftest import UNVERIFIED, outpost, running_server

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.gis import GIS  # noqa: E402
from arcgis.network import NetworkDataset  # noqa: E402
from arcgis_compressed_geometry import decode  # noqa: E402

# The town: a 4 × 4 grid of junctions 0.001° apart from (13.40, 52.50), each block its own line
# (lines meet only at their ends). East–west streets by row, north–south lanes by column.
X0, Y0, STEP = 13.40, 52.50, 0.001
ROWS = ["Main Street", "Mill Road", "Park Avenue", "Ring Road"]
COLUMNS = ["First Lane", "Second Lane", "Third Lane", "Fourth Lane"]
NETWORK = "TownRoads"
# Main Street's first block is one-way east (drawn eastwards), Fourth Lane's first block is
# restricted, Ring Road goes at 100 km/h (the rest at the default 50) and costs 1 a block (the
# rest 5); Island Way touches nothing.
ISLAND = [(13.420, 52.500), (13.4205, 52.5003), (13.421, 52.500)]


def at(i, j):
    """The point i blocks east and j blocks north of the grid's south-west corner."""
    return (round(X0 + i * STEP, 7), round(Y0 + j * STEP, 7))


def town_lines():
    """(name, coordinates, oneway, km/h, restricted, cost) of every line."""
    lines = []
    for j, name in enumerate(ROWS):
        for i in range(3):
            ring = name == "Ring Road"
            lines.append((name, [at(i, j), at(i + 1, j)], "FT" if (i, j) == (0, 0) else "B", 100 if ring else None, 0, 1.0 if ring else 5.0))
    for i, name in enumerate(COLUMNS):
        for j in range(3):
            lines.append((name, [at(i, j), at(i, j + 1)], "B", None, 1 if (i, j) == (3, 0) else 0, 5.0))
    lines.append(("Island Way", ISLAND, "B", None, 0, 5.0))
    return lines


def haversine(a, b):
    lon1, lat1, lon2, lat2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(h))


def along(*points):
    """Metres along a path of (lon, lat) points on the sphere."""
    return sum(haversine(a, b) for a, b in zip(points, points[1:]))


def near(value, expected, share=0.01):
    return abs(value - expected) <= expected * share


def build_town(data, service="Town", network=NETWORK):
    """Imports the town as service `service` and builds the `network` network over its lines."""
    features = [{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [list(p) for p in coordinates]},
                 "properties": {"STREET": name, "ONEWAY": oneway, "KMH": kmh, "RESTRICTED": restricted, "COST": cost}}
                for name, coordinates, oneway, kmh, restricted, cost in town_lines()]
    path = f"{data}/{service.lower()}.geojson"
    with open(path, "w") as file:
        json.dump({"type": "FeatureCollection", "features": features}, file)
    outpost("import", path, "--service", service, "--data", data)
    outpost("network", "create", "--name", network, "--service", service, "--layer", "0", "--field", "name=STREET",
            "--field", "oneway=ONEWAY", "--field", "speed=KMH", "--field", "restricted=RESTRICTED", "--field", "cost=COST",
            "--default-speed", "50", "--data", data)


def get(url, form=None):
    """The JSON answer of a GET (or, with `form`, a POST) over HTTP or HTTPS."""
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode() if form is not None else None)
    with urllib.request.urlopen(request, timeout=60, context=UNVERIFIED if url.startswith("https") else None) as response:
        assert response.status == 200
        return json.loads(response.read())


def solve(base, stops, network=NETWORK, **parameters):
    """`solve` over plain HTTP (GET) with stops as `x,y;x,y`."""
    query = {"f": "json", "stops": ";".join(f"{x},{y}" for x, y in stops), **parameters}
    return get(f"{base}/rest/services/{network}/NAServer/Route/solve?" + urllib.parse.urlencode(query))


def stop(name, point):
    """A stop as the ArcGIS API for Python takes it: a feature's dictionary."""
    return {"geometry": {"x": point[0], "y": point[1], "spatialReference": {"wkid": 4326}}, "attributes": {"Name": name}}


def route_of(answer):
    assert "routes" in answer, answer
    return answer["routes"]["features"][0]


def metres(answer):
    return route_of(answer)["attributes"]["Total_Length"]


def directions_of(answer):
    return [(f["attributes"]["text"], f["attributes"]["maneuverType"]) for f in answer["directions"][0]["features"]]


@pytest.fixture(scope="module")
def town(tmp_path_factory):
    """A server (HTTPS: the ArcGIS API for Python talks HTTPS only) of the town and its network."""
    data = str(tmp_path_factory.mktemp("roads"))
    build_town(data)
    with running_server(data, "--no-demo", tls=True) as base:
        gis = GIS(base, verify_cert=False)
        yield base, NetworkDataset(f"{base}/rest/services/{NETWORK}/NAServer", gis=gis).route_layers[0]


def test_the_arcgis_api_solves_a_route_through_named_stops_with_its_turns(town):
    _, layer = town
    a, b, c = at(1.5, 0), at(2, 0.5), at(2.5, 1)
    answer = layer.solve(stops=[stop("A", a), stop("B", b), stop("C", c)], impedance_attribute_name="Length", return_stops=True)
    # East along Main Street, left (north) up Third Lane to B, on north, right (east) on Mill Road to C.
    first_leg = along(a, at(2, 0), b)
    expected = first_leg + along(b, at(2, 1), c)
    route = route_of(answer)["attributes"]
    assert near(route["Total_Length"], expected), (route, expected)
    assert near(route["Total_Kilometers"], expected / 1000) and near(route["Total_Miles"], expected / 1609.344), route
    assert near(route["Shape_Length"], expected), route
    assert (route["Name"], route["StopCount"], route["FirstStopID"], route["LastStopID"]) == ("A - C", 3, 1, 3), route
    stops = [s["attributes"] for s in answer["stops"]["features"]]
    assert [(s["Name"], s["Sequence"], s["Status"]) for s in stops] == [("A", 1, 0), ("B", 2, 0), ("C", 3, 0)], stops
    assert stops[0]["Cumul_Length"] == 0 and near(stops[1]["Cumul_Length"], first_leg) and near(stops[2]["Cumul_Length"], expected), stops
    assert directions_of(answer) == [
        ("Start at A", "esriDMTDepart"), ("Go east on Main Street", "esriDMTStraight"), ("Turn left on Third Lane", "esriDMTTurnLeft"),
        ("Arrive at B", "esriDMTStop"), ("Depart B", "esriDMTDepart"), ("Go north on Third Lane", "esriDMTStraight"),
        ("Turn right on Mill Road", "esriDMTTurnRight"), ("Finish at C", "esriDMTStop")], answer["directions"]
    directions = answer["directions"][0]
    assert directions["routeName"] == "A - C" and near(directions["summary"]["totalLength"], expected / 1000), directions["summary"]
    lengths = [f["attributes"]["length"] for f in directions["features"]]
    assert near(lengths[1], along(a, at(2, 0)) / 1000) and near(lengths[2], along(at(2, 0), b) / 1000), lengths
    assert near(sum(lengths), expected / 1000), lengths


def test_a_one_way_is_gone_round_against_its_direction_and_straight_without_restrictions(town):
    _, layer = town
    west, east = at(0.2, 0), at(0.8, 0)
    with_it = layer.solve(stops=[stop("W", west), stop("E", east)], impedance_attribute_name="Length")
    assert near(metres(with_it), along(west, east)), route_of(with_it)
    # Westwards on the one-way block: on east to Second Lane, round by Mill Road and First Lane.
    backwards = [stop("E", east), stop("W", west)]
    against = layer.solve(stops=backwards, impedance_attribute_name="Length")
    round_about = along(east, at(1, 0), at(1, 1), at(0, 1), at(0, 0), west)
    assert near(metres(against), round_about), (route_of(against)["attributes"], round_about)
    lifted = layer.solve(stops=backwards, impedance_attribute_name="Length", restriction_attribute_names="")
    assert near(metres(lifted), along(east, west)), route_of(lifted)["attributes"]
    only_restricted = layer.solve(stops=backwards, impedance_attribute_name="Length", restriction_attribute_names="Restricted")
    assert near(metres(only_restricted), along(east, west)), route_of(only_restricted)["attributes"]


def test_a_barrier_forces_a_detour_and_the_restricted_line_is_avoided(town):
    base, layer = town
    a, b = at(0.5, 0), at(2.5, 0)
    assert near(metres(layer.solve(stops=[stop("A", a), stop("B", b)], impedance_attribute_name="Length")), along(a, b))
    barrier = {"geometry": {"x": at(1.5, 0)[0], "y": at(1.5, 0)[1], "spatialReference": {"wkid": 4326}}, "attributes": {"Name": "Roadworks"}}
    blocked = layer.solve(stops=[stop("A", a), stop("B", b)], barriers=[barrier], impedance_attribute_name="Length", return_barriers=True)
    detour = along(a, at(1, 0), at(1, 1), at(2, 1), at(2, 0), b)
    assert near(metres(blocked), detour), (route_of(blocked)["attributes"], detour)
    assert [f["attributes"]["Status"] for f in blocked["barriers"]["features"]] == [0], blocked["barriers"]
    # Fourth Lane's first block is restricted: round by Third Lane, unless only one-ways are obeyed.
    avoided = solve(base, [at(3, 0), at(3, 1)], impedanceAttributeName="Length")
    assert near(metres(avoided), along(at(3, 0), at(2, 0), at(2, 1), at(3, 1))), route_of(avoided)["attributes"]
    taken = solve(base, [at(3, 0), at(3, 1)], impedanceAttributeName="Length", restrictionAttributeNames="Oneway")
    assert near(metres(taken), along(at(3, 0), at(3, 1))), route_of(taken)["attributes"]
    # A stop beside the restricted line is placed on Main Street's end instead, not on it.
    beside = (13.403, 52.5004)
    placed = solve(base, [beside, at(2.5, 1)], impedanceAttributeName="Length")
    first = route_of(placed)["geometry"]["paths"][0][0]
    assert abs(first[0] - 13.403) < 1e-6 and abs(first[1] - 52.5) < 1e-6, first
    assert near(metres(placed), along(at(3, 0), at(2, 0), at(2, 1), at(2.5, 1))), route_of(placed)["attributes"]


def test_find_best_sequence_reorders_the_stops_between_the_preserved_ones(town):
    _, layer = town
    start, far, middle, end = at(0.2, 2), at(2.2, 2), at(1.2, 2), at(2.8, 2)
    stops = [stop("S", start), stop("Far", far), stop("Middle", middle), stop("End", end)]
    as_given = layer.solve(stops=stops, impedance_attribute_name="Length", return_stops=True)
    assert [s["attributes"]["Sequence"] for s in as_given["stops"]["features"]] == [1, 2, 3, 4], as_given["stops"]
    assert near(metres(as_given), along(start, far, middle, end)), route_of(as_given)["attributes"]
    ordered = layer.solve(stops=stops, impedance_attribute_name="Length", return_stops=True, find_best_sequence=True,
                          preserve_first_stop=True, preserve_last_stop=True)
    assert [s["attributes"]["Sequence"] for s in ordered["stops"]["features"]] == [1, 3, 2, 4], ordered["stops"]
    assert near(metres(ordered), along(start, end)) and route_of(ordered)["attributes"]["Name"] == "S - End", route_of(ordered)["attributes"]
    # With the last stop free, the far one comes last and names the route's end.
    free_end = layer.solve(stops=[stop("S", start), stop("Far", end), stop("Near", middle)], impedance_attribute_name="Length",
                           return_stops=True, find_best_sequence=True, preserve_first_stop=True, preserve_last_stop=False)
    assert [s["attributes"]["Sequence"] for s in free_end["stops"]["features"]] == [1, 3, 2], free_end["stops"]
    assert route_of(free_end)["attributes"]["Name"] == "S - Far" and near(metres(free_end), along(start, end))
    # With the first stop free too, the route starts at an end of the street (either end).
    free = layer.solve(stops=[stop("Middle", middle), stop("West", start), stop("East", end)], impedance_attribute_name="Length",
                       return_stops=True, find_best_sequence=True, preserve_first_stop=False, preserve_last_stop=False)
    assert route_of(free)["attributes"]["Name"] in ("West - East", "East - West"), route_of(free)["attributes"]
    assert near(metres(free), along(start, end)), route_of(free)["attributes"]


def test_travel_time_follows_each_streets_speed_and_cost_the_cost_field(town):
    _, layer = town
    minutes = lambda answer: route_of(answer)["attributes"]["Total_TravelTime"]  # noqa: E731
    fast = layer.solve(stops=[stop("W", at(0.2, 3)), stop("E", at(2.8, 3))], impedance_attribute_name="TravelTime")
    ring = along(at(0.2, 3), at(2.8, 3))
    assert near(minutes(fast), ring / 1000 / 100 * 60), route_of(fast)["attributes"]
    assert near(route_of(fast)["attributes"]["Total_Minutes"], ring / 1000 / 100 * 60)
    slow = layer.solve(stops=[stop("W", at(0.2, 2)), stop("E", at(2.8, 2))])
    assert near(minutes(slow), along(at(0.2, 2), at(2.8, 2)) / 1000 / 50 * 60), route_of(slow)["attributes"]
    # Between the lanes' points 0.4 blocks north of Park Avenue: shortest by Park Avenue, quickest by Ring Road.
    west, east = at(0, 2.4), at(3, 2.4)
    shortest = layer.solve(stops=[stop("W", west), stop("E", east)], impedance_attribute_name="Length")
    assert near(metres(shortest), along(west, at(0, 2), at(3, 2), east)), route_of(shortest)["attributes"]
    quickest = layer.solve(stops=[stop("W", west), stop("E", east)], impedance_attribute_name="TravelTime")
    lanes, ring = along(west, at(0, 3)) + along(at(3, 3), east), along(at(0, 3), at(3, 3))
    assert near(metres(quickest), lanes + ring), route_of(quickest)["attributes"]
    assert near(minutes(quickest), lanes / 1000 / 50 * 60 + ring / 1000 / 100 * 60), route_of(quickest)["attributes"]
    assert [t for t, _ in directions_of(quickest)][1:4] == ["Go north on First Lane", "Turn right on Ring Road", "Turn right on Fourth Lane"]
    # Cost: 5 a lane block (0.6 of one at each end), 1 a Ring Road block.
    cheapest = layer.solve(stops=[stop("W", west), stop("E", east)], impedance_attribute_name="Cost")
    assert near(route_of(cheapest)["attributes"]["Total_Cost"], 0.6 * 5 * 2 + 3 * 1), route_of(cheapest)["attributes"]


def distance_to_path(point, path):
    """Degrees from a point to the nearest segment of a path (planar, enough at this scale)."""
    best = math.inf
    for (ax, ay), (bx, by) in zip(path, path[1:]):
        dx, dy = bx - ax, by - ay
        t = 0 if dx == dy == 0 else max(0, min(1, ((point[0] - ax) * dx + (point[1] - ay) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(point[0] - ax - t * dx, point[1] - ay - t * dy))
    return best


def test_compressed_geometry_decodes_to_points_on_the_route(town):
    _, layer = town
    answer = layer.solve(stops=[stop("A", at(1.5, 0)), stop("C", at(2.5, 1))], impedance_attribute_name="Length")
    path = route_of(answer)["geometry"]["paths"][0]
    features = answer["directions"][0]["features"]
    decoded = [decode(f["compressedGeometry"]) for f in features]
    assert [kind for _, kind in directions_of(answer)] == [
        "esriDMTDepart", "esriDMTStraight", "esriDMTTurnLeft", "esriDMTTurnRight", "esriDMTStop"], answer["directions"]
    assert all(decoded), decoded
    for points in decoded:
        for point in points:
            assert distance_to_path(point, path) < 1e-5, (point, path)
    assert math.dist(decoded[1][0], path[0]) < 1e-5 and math.dist(decoded[0][0], path[0]) < 1e-5, (decoded, path)
    assert math.dist(decoded[-1][0], path[-1]) < 1e-5 and math.dist(decoded[3][-1], path[-1]) < 1e-5, (decoded, path)
    # Each instruction's line ends where the next begins: the corner of Main Street and Third Lane.
    assert math.dist(decoded[1][-1], at(2, 0)) < 1e-5 and math.dist(decoded[2][0], at(2, 0)) < 1e-5, decoded
    assert near(along(*map(tuple, decoded[1])), along(at(1.5, 0), at(2, 0))), decoded[1]


def test_errors_languages_out_sr_and_the_directory_over_http(town):
    base, _ = town
    service = f"{base}/rest/services/{NETWORK}/NAServer"
    assert get(f"{service}?f=json")["routeLayers"] == ["Route"]
    layer = get(f"{service}/Route?f=json")
    assert (layer["layerType"], layer["impedance"]) == ("esriNAServerRouteLayer", "TravelTime"), layer
    assert layer["restrictions"] == ["Oneway", "Restricted"] and layer["directionsSupportedLanguages"] == ["en", "de", "fr"], layer
    island = solve(base, [at(0.5, 0), (13.4205, 52.5003)])
    assert island["error"]["code"] == 400 and island["error"]["message"] == "Unable to complete operation.", island
    assert island["error"]["details"][0] == "No solution found.", island
    assert island["error"]["details"][1] == 'No route found between "Location 1" and "Location 2".', island
    # A stop at (0, 0), beyond the 5 km search tolerance, is not placed: one stop is too few.
    alone = solve(base, [at(0.5, 0), (0.0, 0.0)])
    assert alone["error"]["code"] == 400 and alone["error"]["details"] == ["No solution found.", "Need at least 2 valid stops."], alone
    assert solve(base, [at(0.5, 0), at(1.5, 0)], network="Nowhere")["error"]["code"] == 404
    assert get(f"{base}/rest/services/Nowhere/NAServer?f=json")["error"]["code"] == 404
    # German, with lengths in metres; any other language in English.
    a, b = at(1.5, 0), at(2, 0.5)
    german = solve(base, [a, b], impedanceAttributeName="Length", directionsLanguage="de", directionsLengthUnits="esriNAUMeters")
    assert [t for t, _ in directions_of(german)] == [
        "Start bei Location 1", "Fahren Sie nach Osten auf Main Street", "Biegen Sie links ab auf Third Lane", "Ziel: Location 2"], german
    assert near(german["directions"][0]["summary"]["totalLength"], along(a, at(2, 0), b)), german["directions"][0]["summary"]
    klingon = solve(base, [a, b], directionsLanguage="tlh")
    assert [t for t, _ in directions_of(klingon)][2] == "Turn left on Third Lane", klingon["directions"]
    # The same over POST, with the stops as a feature set of ArcGIS's JSON.
    features = {"features": [{"geometry": {"x": x, "y": y}, "attributes": {"Name": n}} for n, (x, y) in (("P", a), ("Q", b))],
                "spatialReference": {"wkid": 4326}}
    posted = get(f"{service}/Route/solve", {"f": "json", "stops": json.dumps(features), "impedanceAttributeName": "Length"})
    assert route_of(posted)["attributes"]["Name"] == "P - Q" and near(metres(posted), along(a, at(2, 0), b)), posted
    # Web Mercator out: the path and the instructions' geometry in metres.
    mercator = solve(base, [a, b], outSR="102100")
    assert mercator["routes"]["spatialReference"]["wkid"] in (102100, 3857), mercator["routes"]
    x, y = route_of(mercator)["geometry"]["paths"][0][0]
    assert abs(x - math.radians(a[0]) * 6_378_137) < 0.05, x
    assert abs(y - math.log(math.tan(math.pi / 4 + math.radians(a[1]) / 2)) * 6_378_137) < 0.05, y
    assert math.dist(decode(mercator["directions"][0]["features"][1]["compressedGeometry"])[0], (x, y)) < 0.05
    assert {"name": NETWORK, "type": "NAServer"} in get(f"{base}/rest/services?f=json")["services"]
    helper = get(f"{base}/sharing/rest/portals/self?f=json")["helperServices"]["route"]["url"]
    assert helper.endswith(f"/rest/services/{NETWORK}/NAServer/Route"), helper


def test_a_network_is_listed_and_a_removed_one_answers_404(tmp_path):
    data = str(tmp_path)
    build_town(data)
    assert NETWORK in outpost("network", "list", "--data", data).stdout
    with running_server(data, "--no-demo") as base:
        assert near(metres(solve(base, [at(0.5, 0), at(2.5, 0)], impedanceAttributeName="Length")), along(at(0.5, 0), at(2.5, 0)))
    outpost("network", "remove", NETWORK, "--data", data)
    assert NETWORK not in outpost("network", "list", "--data", data).stdout
    assert outpost("network", "remove", NETWORK, "--data", data, check=False).returncode != 0
    with running_server(data, "--no-demo") as base:
        assert solve(base, [at(0.5, 0), at(2.5, 0)])["error"]["code"] == 404
        assert {"name": NETWORK, "type": "NAServer"} not in get(f"{base}/rest/services?f=json")["services"]
        assert "route" not in get(f"{base}/sharing/rest/portals/self?f=json")["helperServices"]
        # The line layer stays.
        count = get(f"{base}/rest/services/Town/FeatureServer/0/query?f=json&where=1%3D1&returnCountOnly=true")
        assert count["count"] == len(town_lines()), count
