"""Feature tiles as the ArcGIS Maps SDK for JavaScript fetches them (its drill-down feature
source, documented parameters): for every zoom level 0-10 over the demo Trees layer (2,500
points), the Web Mercator tiles covering the layer's extent are queried with `resultType=tile`,
`returnExceededLimitFeatures=false`, the SDK's `maxRecordCountFactor` and the tile's
`quantizationParameters`; a tile answered with `exceededTransferLimit` is split into its four
children (which keep their parent's quantization, as the SDK's do). The union of the tiles'
object ids must be what a plain query of the view's envelope holds, each point in one tile
only, and every decoded coordinate within half a cell of the stored one.

The desktop SDK sends factor 3 (a zoom-0 tile then holds every tree), the mobile SDK factor 1
(the tiles split down to zoom 12 or so): both are walked."""
import json
import urllib.parse
import urllib.request

import pytest

ORIGIN = 20037508.342787
RESOLUTION_0 = 156543.03392800014
TILE_PIXELS = 256
ZOOMS = range(0, 11)


def post(url, **params):
    body = urllib.parse.urlencode({"f": "json", **params}).encode()
    with urllib.request.urlopen(url, data=body, timeout=30) as response:
        answer = json.load(response)
    assert "error" not in answer, answer
    return answer


def tile_size(level):
    return TILE_PIXELS * RESOLUTION_0 / 2**level


def envelope(level, row, column):
    size = tile_size(level)
    xmin = -ORIGIN + column * size
    ymax = ORIGIN - row * size
    return {"xmin": xmin, "ymin": ymax - size, "xmax": xmin + size, "ymax": ymax, "spatialReference": {"wkid": 102100}}


def covering_tiles(level, extent):
    size = tile_size(level)
    columns = range(int((extent["xmin"] + ORIGIN) // size), int((extent["xmax"] + ORIGIN) // size) + 1)
    rows = range(int((ORIGIN - extent["ymax"]) // size), int((ORIGIN - extent["ymin"]) // size) + 1)
    return [(level, row, column) for row in rows for column in columns]


@pytest.fixture(scope="module")
def trees(server):
    layer = f"{server}/services/Demo/FeatureServer/2"
    info = post(layer)
    # What the SDK reads before it asks for tiles, and that it would not ask for PBF.
    assert info["supportsCoordinatesQuantization"] is True
    assert info["advancedQueryCapabilities"]["supportsQueryWithResultType"] is True
    assert info["advancedQueryCapabilities"]["supportsMaxRecordCountFactor"] is True
    assert info["advancedQueryCapabilities"]["supportsPagination"] is True
    assert "pbf" not in info["supportedQueryFormats"].lower()
    extent = post(f"{layer}/query", where="1=1", returnExtentOnly="true", outSR="102100")["extent"]
    stored = post(f"{layer}/query", where="1=1", outSR="102100", outFields="OBJECTID", maxRecordCountFactor="3")
    assert len(stored["features"]) == 2500 and not stored.get("exceededTransferLimit")
    points = {f["attributes"]["OBJECTID"]: (f["geometry"]["x"], f["geometry"]["y"]) for f in stored["features"]}
    return layer, info["tileMaxRecordCount"], extent, points


def walk(layer, level, extent, factor, page_limit, points):
    """Every tile of `level` over `extent`, split where the answer says the limit is exceeded.
    Returns the object ids found (with repeats) and the number of splits."""
    found, splits, requests = [], 0, 0
    for root in covering_tiles(level, extent):
        quantization = {"mode": "view", "originPosition": "upperLeft", "tolerance": tile_size(level) / TILE_PIXELS,
                        "extent": envelope(*root)}
        pending = [root]
        while pending:
            tile = pending.pop()
            assert tile[0] <= 24, f"tile {tile} still over the limit"
            answer = post(
                f"{layer}/query", where="1=1", geometry=json.dumps(envelope(*tile)), geometryType="esriGeometryEnvelope",
                spatialRel="esriSpatialRelIntersects", outFields="OBJECTID", returnGeometry="true", outSR="102100",
                resultType="tile", returnExceededLimitFeatures="false", maxRecordCountFactor=str(factor),
                quantizationParameters=json.dumps(quantization))
            requests += 1
            if answer.get("exceededTransferLimit"):
                assert answer["features"] == [], "an over-limit tile answers no features"
                splits += 1
                lower, row, column = tile
                pending += [(lower + 1, 2 * row + dr, 2 * column + dc) for dr in (0, 1) for dc in (0, 1)]
                continue
            assert len(answer["features"]) <= page_limit
            transform = answer["transform"]
            assert transform["originPosition"] == "upperLeft"
            (scale_x, scale_y), (x0, y0) = transform["scale"][:2], transform["translate"][:2]
            assert scale_x == pytest.approx(quantization["tolerance"]) and x0 == pytest.approx(quantization["extent"]["xmin"])
            for feature in answer["features"]:
                oid = feature["attributes"]["OBJECTID"]
                column, row = feature["geometry"]["x"], feature["geometry"]["y"]
                assert isinstance(column, int) and isinstance(row, int), feature
                x, y = points[oid]
                assert abs(x0 + column * scale_x - x) <= scale_x / 2 + 1e-6
                assert abs(y0 - row * scale_y - y) <= scale_y / 2 + 1e-6
                found.append(oid)
    return found, splits, requests


@pytest.mark.parametrize("factor", [3, 1], ids=["desktop-factor-3", "mobile-factor-1"])
def test_every_zoom_level_draws_every_tree_once(trees, factor):
    layer, tile_max, extent, points = trees
    page_limit = tile_max * factor
    total_splits = total_requests = 0
    for level in ZOOMS:
        tiles = covering_tiles(level, extent)
        view = {"xmin": min(envelope(*t)["xmin"] for t in tiles), "ymin": min(envelope(*t)["ymin"] for t in tiles),
                "xmax": max(envelope(*t)["xmax"] for t in tiles), "ymax": max(envelope(*t)["ymax"] for t in tiles),
                "spatialReference": {"wkid": 102100}}
        expected = post(f"{layer}/query", geometry=json.dumps(view), geometryType="esriGeometryEnvelope", returnIdsOnly="true")
        found, splits, requests = walk(layer, level, extent, factor, page_limit, points)
        total_splits += splits
        total_requests += requests
        assert len(found) == len(set(found)), f"zoom {level}: a point came in two tiles"
        assert set(found) == set(expected["objectIds"]) == set(points), f"zoom {level}: {len(set(found))} of {len(points)} trees"
    print(f"factor {factor}: {total_requests} tile requests, {total_splits} splits over zoom levels 0-{ZOOMS[-1]}")
    if page_limit < len(points):
        assert total_splits > 0, "tiles over the limit were split"
    else:
        assert total_splits == 0
