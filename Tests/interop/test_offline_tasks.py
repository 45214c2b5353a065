"""An offline map that carries the portal's locator and route service (docs/offline-map-format.md,
"Tasks"): a town's address locator and road network on a server, a web map that lets its users
find places and route taken offline with `outpost map take-offline`; the ArcGIS API for Python
geocodes, suggests, reverse geocodes and solves routes against the services (found through the
portal's helper services), and once every server has stopped, `outpost map
geocode|suggest|reverse|route` on the folder answer the same: the device with the network cut.
A web map without the viewing flags carries no tasks, and asking it for one fails plainly."""
import json
import math
import os
import urllib.error
import urllib.request

import pytest

from conftest import outpost, running_server
from test_geocoding import build_town as build_addresses
from test_geocoding import point_of
from test_routing import at
from test_routing import build_town as build_road_grid

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.geocoding import geocode, get_geocoders, reverse_geocode, suggest  # noqa: E402
from arcgis.gis import GIS  # noqa: E402
from arcgis.network import NetworkDataset  # noqa: E402

LOCATOR, NETWORK = "TownAddresses", "TownRoads"
# Both towns: the addresses (13.40–13.45, 52.52) and the road grid (13.40–13.42, 52.50–52.503).
AREA = "13.39,52.49,13.45,52.53"
VIEWING = {"viewing": {"search": {"enabled": True}, "routing": {"enabled": True}}}

# Exact, abbreviated, misspelt, another town's; a house number and a street both towns have
# (candidates of equal score), and nonsense, which nothing matches.
ADDRESSES = ["3 Hill Street, Springfield", "3 Hill St, Springfield", "3 Hil Street, Springfield", "2 Hill Street, Shelbyville",
             "1 Hill Street", "Hill Street", "qwzx vvvrrr"]
TYPED = ["3 Hill St", "Station R"]
# 5 m north of 5 Station Road; 12 m east of 4 Church Lane (5 Church Lane 18 m further east);
# kilometres from every address.
NEAR_STATION = (point_of(5, "Station Road")[0], round(point_of(5, "Station Road")[1] + 0.000045, 7))
NEAR_CHURCH = (round(point_of(4, "Church Lane")[0] + 0.00018, 7), point_of(4, "Church Lane")[1])
FAR = (13.6, 52.7)
REVERSE_METRES = 100


def build_roads(data):
    """The routing test's grid of streets as service `Roads`, built into the `TownRoads` network."""
    build_road_grid(data, service="Roads", network=NETWORK)


# Route solves: (stops as (name, point), barriers, impedance, findBestSequence, language, expected stop order).
ROUTES = {
    # East on Main Street, left up Third Lane to B, on north, right on Mill Road to C.
    "turns": ([("A", at(1.5, 0)), ("B", at(2, 0.5)), ("C", at(2.5, 1))], [], "Length", False, "en", ["A", "B", "C"]),
    # Main Street blocked between them: round by Mill Road.
    "barrier": ([("A", at(0.5, 0)), ("B", at(2.5, 0))], [at(1.5, 0)], "Length", False, "en", ["A", "B"]),
    # The far stop is visited after the middle one; quickest, in German.
    "sequence": ([("S", at(0.2, 2)), ("Far", at(2.2, 2)), ("Middle", at(1.2, 2)), ("End", at(2.8, 2))], [], "TravelTime", True, "de",
                 ["S", "Middle", "Far", "End"]),
    # Quickest by the 100 km/h Ring Road, not the shorter Park Avenue; in French.
    "quickest": ([("W", at(0, 2.4)), ("E", at(3, 2.4))], [], "TravelTime", False, "fr", ["W", "E"]),
}


def web_map(base, viewing):
    """A web map of the town's addresses layer, with the viewing flags or without."""
    document = {"operationalLayers": [{"id": "addresses", "title": "Addresses", "layerType": "ArcGISFeatureLayer",
                                       "url": f"{base}/rest/services/Town/FeatureServer/0"}],
                "baseMap": {"baseMapLayers": [], "title": "None"}, "spatialReference": {"wkid": 102100}, "version": "2.31"}
    if viewing:
        document["applicationProperties"] = VIEWING
    return document


def add_web_map(data, document, title):
    """Added beside the running server by the operator's CLI: public, offline-enabled; its id."""
    path = os.path.join(data, f"{title}.json")
    with open(path, "w") as file:
        json.dump(document, file)
    return outpost("webmap", "add", path, "--title", title, "--offline", "--access", "public", "--data", data).stdout.strip()


def feature(name, point):
    return {"geometry": {"x": point[0], "y": point[1], "spatialReference": {"wkid": 4326}}, "attributes": {"Name": name}}


def record_service_answers(gis):
    """What the ArcGIS API for Python gets from the portal's locator and route service."""
    geocoder = next(g for g in get_geocoders(gis) if g.url.endswith(f"/{LOCATOR}/GeocodeServer"))
    answers = {"geocoders": [g.url for g in get_geocoders(gis)], "route helper": gis.properties.helperServices.route.url}
    answers["geocode"] = {text: geocode(text, geocoder=geocoder, out_fields="*", max_locations=10, out_sr=4326) for text in ADDRESSES}
    answers["suggest"] = {text: suggest(text, geocoder=geocoder, max_suggestions=5)["suggestions"] for text in TYPED}
    answers["reverse"] = {}
    for point in (NEAR_STATION, NEAR_CHURCH, FAR):
        try:
            answers["reverse"][point] = reverse_geocode(list(point), distance=REVERSE_METRES, out_sr=4326, geocoder=geocoder)
        except Exception as error:  # the client raises the service's "Unable to find address"
            answers["reverse"][point] = str(error)
    layer = NetworkDataset(answers["route helper"].rsplit("/Route", 1)[0], gis=gis).route_layers[0]
    answers["route"] = {}
    for key, (stops, barriers, impedance, best, language, _) in ROUTES.items():
        answers["route"][key] = layer.solve(
            stops=[feature(name, point) for name, point in stops], barriers=[feature(f"Barrier {i + 1}", p) for i, p in enumerate(barriers)] or None,
            impedance_attribute_name=impedance, find_best_sequence=best, preserve_first_stop=True, preserve_last_stop=True,
            return_stops=True, directions_language=language, directions_length_units="esriNAUMeters", out_sr=4326)
    return answers


@pytest.fixture(scope="module")
def town(tmp_path_factory):
    """The town's folders taken offline and the service's answers recorded; every server stopped."""
    data = str(tmp_path_factory.mktemp("offline-tasks"))
    build_addresses(data)
    build_roads(data)
    offline = tmp_path_factory.mktemp("device")
    town = {"flagged": str(offline / "flagged"), "plain": str(offline / "plain")}
    # `take-offline` over HTTP (the client on Linux trusts no self-signed certificate).
    with running_server(data, "--no-demo") as base:
        for kind, viewing in (("flagged", True), ("plain", False)):
            item = add_web_map(data, web_map(base, viewing), f"Town {kind}")
            town[f"{kind} capabilities"] = outpost("map", "capabilities", item, "--server", base, "--area", AREA).stdout.splitlines()
            outpost("map", "take-offline", item, "--server", base, "--area", AREA, "--no-basemap", "--out", town[kind])
        town["http"] = base
    # The ArcGIS API for Python over HTTPS (it talks HTTPS only): the same services, the same data.
    with running_server(data, "--no-demo", tls=True) as base:
        town["answers"] = record_service_answers(GIS(base, verify_cert=False))
        town["https"] = base
    # The network is cut: neither server answers any more.
    for base in (town["http"], town["https"]):
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{base}/rest/info?f=json", timeout=2)
    yield town


def offline(command, folder, *arguments):
    answer = outpost("map", command, folder, *arguments)
    return json.loads(answer.stdout)


def same_location(a, b):
    return abs(a["x"] - b["x"]) <= 1e-6 and abs(a["y"] - b["y"]) <= 1e-6


def same_attributes(service, device):
    """The device's attributes are the service's text attributes (less Score, Status, X, Y …)."""
    assert device and set(device) <= set(service), (device, service)
    assert {"Match_addr", "Addr_type", "AddNum", "StName", "City", "Postal"} <= set(device), device
    assert {key: service[key] for key in device} == device, (service, device)


def test_the_offline_locator_geocodes_suggests_and_reverse_geocodes_as_the_service(town):
    answers, folder = town["answers"], town["flagged"]
    https = town["https"]
    assert answers["geocoders"] == [f"{https}/rest/services/{LOCATOR}/GeocodeServer"], answers["geocoders"]
    for text, service in answers["geocode"].items():
        device = offline("geocode", folder, "--text", text, "--max", "10", "--service", LOCATOR)["candidates"]
        assert (service != []) == (text != "qwzx vvvrrr"), (text, service)
        assert [c["address"] for c in device] == [c["address"] for c in service], (text, service, device)
        assert [c["score"] for c in device] == [c["score"] for c in service], (text, service, device)
        for one, other in zip(service, device):
            assert same_location(one["location"], other["location"]), (text, one, other)
            same_attributes(one["attributes"], other["attributes"])
    # The exact, abbreviated, misspelt and other town's best candidates, as the geocoding test knows them.
    best = {text: answers["geocode"][text][0] for text in ADDRESSES[:4]}
    assert [(c["address"], c["score"]) for c in best.values()] == [
        ("3 Hill Street, Springfield, 12345", 100), ("3 Hill Street, Springfield, 12345", 100),
        ("3 Hill Street, Springfield, 12345", 95), ("2 Hill Street, Shelbyville, 54321", 100)], best
    assert abs(best[ADDRESSES[0]]["location"]["x"] - point_of(3, "Hill Street")[0]) <= 1e-6
    assert sorted(c["address"] for c in answers["geocode"]["1 Hill Street"][:2]) == [
        "1 Hill Street, Shelbyville, 54321", "1 Hill Street, Springfield, 12345"], answers["geocode"]["1 Hill Street"]

    for text, service in answers["suggest"].items():
        device = offline("suggest", folder, "--text", text, "--max", "5", "--service", LOCATOR)["suggestions"]
        assert service and device == service, (text, service, device)
    assert answers["suggest"]["3 Hill St"][0]["text"] == "3 Hill Street, Springfield, 12345", answers["suggest"]

    for point, service in answers["reverse"].items():
        device = offline("reverse", folder, "--at", f"{point[0]},{point[1]}", "--distance", str(REVERSE_METRES), "--service", LOCATOR)["results"]
        if point == FAR:
            assert "Unable to find address" in service and device == [], (service, device)
            continue
        assert len(device) == 1, device
        assert device[0]["address"] == service["address"]["Match_addr"], (service, device)
        assert same_location(device[0]["location"], service["location"]), (service, device)
        same_attributes(service["address"], device[0]["attributes"])
    assert answers["reverse"][NEAR_STATION]["address"]["Match_addr"] == "5 Station Road, Springfield, 12345"
    assert answers["reverse"][NEAR_CHURCH]["address"]["Match_addr"] == "4 Church Lane, Springfield, 12345"


def relatively_equal(a, b, share=1e-6):
    return abs(a - b) <= share * max(abs(a), abs(b)) + 1e-12


def test_the_offline_network_solves_routes_as_the_service(town):
    answers, folder = town["answers"], town["flagged"]
    assert answers["route helper"] == f"{town['https']}/rest/services/{NETWORK}/NAServer/Route"
    for key, (stops, barriers, impedance, best, language, order) in ROUTES.items():
        service = answers["route"][key]
        route = service["routes"]["features"][0]["attributes"]
        service_order = [s["attributes"]["Name"] for s in sorted(service["stops"]["features"], key=lambda s: s["attributes"]["Sequence"])]
        assert service_order == order, (key, service["stops"])
        arguments = [f"--stop={name}={x},{y}" for name, (x, y) in stops] + [f"--barrier={x},{y}" for x, y in barriers]
        device = offline("route", folder, *arguments, "--impedance", impedance, "--language", language, "--service", NETWORK,
                         *(["--find-best-sequence"] if best else []))
        assert device["stopOrder"] == service_order and device["name"] == route["Name"], (key, device, route)
        assert relatively_equal(device["totalMetres"], route["Total_Length"]), (key, device["totalMetres"], route)
        assert relatively_equal(device["totalMinutes"], route["Total_TravelTime"]), (key, device["totalMinutes"], route)
        steps = [f["attributes"] for f in service["directions"][0]["features"]]
        assert len(steps) >= 4, (key, steps)
        assert [(d["text"], d["maneuverType"]) for d in device["directions"]] == [(s["text"], s["maneuverType"]) for s in steps], (key, device, steps)
        for one, other in zip(steps, device["directions"]):
            assert relatively_equal(one["length"], other["length"]) and relatively_equal(one["time"], other["time"]), (key, one, other)
    # The barrier's detour is longer than the way along Main Street (0.002° of longitude).
    detour = answers["route"]["barrier"]["routes"]["features"][0]["attributes"]["Total_Length"]
    assert detour > 2 * 0.002 * math.cos(math.radians(52.5)) * 111_195, detour
    texts = [f["attributes"]["text"] for f in answers["route"]["sequence"]["directions"][0]["features"]]
    assert any("Fahren Sie" in text for text in texts), texts


def test_the_folder_lists_its_tasks_and_capabilities_names_them(town):
    manifest = json.loads(open(os.path.join(town["flagged"], "package.json")).read())
    tasks = sorted((f["kind"], f["file"], f["serviceUrl"]) for f in manifest["files"] if f["kind"] in ("locator", "network"))
    http = town["http"]
    assert tasks == [("locator", f"tasks/{LOCATOR}.locator", f"{http}/rest/services/{LOCATOR}/GeocodeServer"),
                     ("network", f"tasks/{NETWORK}.network", f"{http}/rest/services/{NETWORK}/NAServer")], manifest["files"]
    assert manifest["errors"] == [], manifest["errors"]
    for _, file, _ in tasks:
        assert os.path.getsize(os.path.join(town["flagged"], file)) > 0, file
    task_lines = [line for line in town["flagged capabilities"] if line.startswith("task\t")]
    assert sorted(task_lines) == [f"task\toffline\t{http}/rest/services/{LOCATOR}/GeocodeServer",
                                  f"task\toffline\t{http}/rest/services/{NETWORK}/NAServer"], town["flagged capabilities"]
    assert [line.split("\t")[:2] for line in town["flagged capabilities"] if not line.startswith("task\t")] == [["addresses", "offline"]]
    assert not [line for line in town["plain capabilities"] if line.startswith("task\t")], town["plain capabilities"]


def test_a_map_without_the_viewing_flags_carries_no_tasks_and_says_so(town):
    folder = town["plain"]
    manifest = json.loads(open(os.path.join(folder, "package.json")).read())
    assert [f["kind"] for f in manifest["files"]] == ["geodatabase"], manifest["files"]
    tasks = os.path.join(folder, "tasks")
    assert not os.path.isdir(tasks) or os.listdir(tasks) == [], os.listdir(tasks)
    refused = outpost("map", "geocode", folder, "--text", ADDRESSES[0], check=False)
    assert refused.returncode != 0 and refused.stdout.strip() == "", refused
    assert "carries no locator" in refused.stderr, refused.stderr
    refused = outpost("map", "route", folder, f"--stop=A={at(0.5, 0)[0]},{at(0.5, 0)[1]}", f"--stop=B={at(2.5, 0)[0]},{at(2.5, 0)[1]}",
                      check=False)
    assert refused.returncode != 0 and "carries no route service" in refused.stderr, refused
    # Naming a locator the flagged map does not carry lists the ones it does.
    wrong = outpost("map", "geocode", town["flagged"], "--text", ADDRESSES[0], "--service", "Nowhere", check=False)
    assert wrong.returncode != 0 and "no locator 'Nowhere'" in wrong.stderr and LOCATOR in wrong.stderr, wrong
