"""Attacks on the issue-44 query parameters over a real server (either backend, per
OUTPOST_INTEROP_BACKEND): quantization, distinct values, paging. Tests whose docstring starts
with "Was a finding (fixed)" document a bug the review found, fixed since (see
Tests/OutpostServerTests/QueryAttackTests.swift and CoordinateDomainTests.swift for the same
cases in Swift)."""
import json
import urllib.parse
import urllib.request

from conftest import running_server


def call(url, method="GET", **params):
    body = urllib.parse.urlencode({"f": "json", **params})
    if method == "GET":
        request = urllib.request.Request(f"{url}?{body}")
    else:
        request = urllib.request.Request(url, data=body.encode())
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def layer(server, layer_id):
    return f"{server}/services/Demo/FeatureServer/{layer_id}"


def rows(answer):
    return [tuple(sorted(feature["attributes"].items())) for feature in answer["features"]]


def test_edit_mode_in_a_geographic_reference_is_full_resolution(server):
    """Was a finding (fixed): edit-mode quantization chose 1e-9 only for EPSG 4000-4999, so an
    answer in GDA2020 (EPSG 7844, degrees) was on a 0.0001-degree grid and decoded metres away.
    The reference's kind now comes from PROJ's database."""
    base = {"where": "OBJECTID < 4", "outFields": "OBJECTID", "outSR": "7844"}
    plain = call(f"{layer(server, 0)}/query", **base)
    edit = {"mode": "edit", "originPosition": "upperLeft", "extent": {"xmin": -180, "ymin": -90, "xmax": 180, "ymax": 90}}
    quantized = call(f"{layer(server, 0)}/query", **base, quantizationParameters=json.dumps(edit))
    scale = quantized["transform"]["scale"][0]
    assert scale == 1e-9 and len(plain["features"]) == len(quantized["features"]) == 3, (scale, quantized)
    for stored, cell in zip(plain["features"], quantized["features"]):
        decoded = -180 + cell["geometry"]["x"] * scale
        assert abs(decoded - stored["geometry"]["x"]) <= 1e-8, (scale, decoded, stored["geometry"])


def test_paged_grouped_statistics_neither_overlap_nor_stop_silently(server):
    """Was a finding (fixed): supportsPaginationOnAggregatedQueries is advertised, but a grouped
    page never said exceededTransferLimit, and on PostgreSQL pages ordered by a non-unique field
    overlapped and skipped groups (the ORDER BY had no tie-breaker). Groups are now ordered by
    orderByFields then every group field, and paged by the layer's page size."""
    statistics = json.dumps([{"statisticType": "count", "onStatisticField": "OBJECTID", "outStatisticFieldName": "n"}])
    base = {"where": "1=1", "outStatistics": statistics, "groupByFieldsForStatistics": "healthy,species", "orderByFields": "healthy"}
    whole = rows(call(f"{layer(server, 2)}/query", **base))
    assert len(whole) == 16
    paged, flags = [], []
    for offset in range(0, 16, 3):
        page = call(f"{layer(server, 2)}/query", **base, resultRecordCount=3, resultOffset=offset)
        paged += rows(page)
        flags.append(page.get("exceededTransferLimit", False))
    assert sorted(paged) == sorted(whole), "pages overlap or skip groups"
    assert flags == [True] * 5 + [False], flags
    # One group per tree: more groups than the layer's maximum (1000) are paged.
    per_tree = call(f"{layer(server, 2)}/query", outStatistics=statistics, groupByFieldsForStatistics="OBJECTID")
    assert len(per_tree["features"]) == 1000 and per_tree.get("exceededTransferLimit") is True


def test_one_out_of_domain_point_does_not_break_the_layer():
    """Was a finding (fixed): applyEdits accepted x=1e300 in a WGS 84 layer; afterwards a
    quantized query without a spatial filter was a 400 on both backends and an outSR query a
    500 on PostgreSQL. Such an edit is now refused with error 1000, and the layer answers."""
    with running_server() as base:
        cities = f"{base}/rest/services/Demo/FeatureServer/0"
        outside = [{"x": 1e300, "y": 0}, {"x": 0, "y": 91}, {"x": 1e300, "y": 0, "spatialReference": {"wkid": 102100}}]
        adds = [{"attributes": {"name": "Nowhere"}, "geometry": geometry} for geometry in outside]
        added = call(f"{cities}/applyEdits", "POST", adds=json.dumps(adds), rollbackOnFailure="false")
        assert [(r["success"], r.get("error", {}).get("code")) for r in added["addResults"]] == [(False, 1000)] * 3, added
        view = {"mode": "view", "tolerance": 0.01, "extent": {"xmin": -180, "ymin": -90, "xmax": 180, "ymax": 90}}
        problems = []
        try:
            answer = call(f"{cities}/query", where="1=1", outFields="OBJECTID", outSR="102100")
            if "error" in answer:
                problems.append(("outSR", answer["error"]))
        except urllib.error.HTTPError as error:
            problems.append(("outSR", error.code))
        answer = call(f"{cities}/query", where="1=1", outFields="OBJECTID", quantizationParameters=json.dumps(view))
        if "error" in answer:
            problems.append(("quantized", answer["error"]))
        assert not problems, problems


def test_default_sr_leaves_geojson_in_wgs84(server):
    """GeoJSON is WGS 84 (RFC 7946): defaultSR does not change a GeoJSON answer, outSR does;
    an Esri JSON answer takes defaultSR."""
    cities = f"{layer(server, 0)}/query"
    base = {"where": "OBJECTID = 1", "outFields": "OBJECTID", "defaultSR": "102100"}
    geojson = call(cities, **base, f="geojson")
    esri = call(cities, **base)
    longitude = geojson["features"][0]["geometry"]["coordinates"][0]
    assert abs(longitude) <= 180, geojson
    assert esri["spatialReference"]["wkid"] == 102100 and abs(esri["features"][0]["geometry"]["x"]) > 180, esri
    asked = call(cities, **base, f="geojson", outSR="3857")
    assert asked["features"][0]["geometry"]["coordinates"][0] == esri["features"][0]["geometry"]["x"]


def test_distinct_pages_are_exact_at_the_boundaries(server):
    """Held: distinct rows paged at exactly a page, the end, past it, and as a tile over the limit."""
    countries = f"{layer(server, 1)}/query"
    distinct = {"outFields": "continent", "returnDistinctValues": "true", "returnGeometry": "false"}
    for extra, count, exceeded in [
        ({"resultRecordCount": 8}, 8, False),
        ({"resultRecordCount": 7}, 7, True),
        ({"resultOffset": 7}, 1, False),
        ({"resultOffset": 2**63 - 1}, 0, False),
        ({"resultRecordCount": 10**15}, 8, False),
        ({"resultType": "tile", "returnExceededLimitFeatures": "false", "resultRecordCount": 7}, 0, True),
    ]:
        page = call(countries, **distinct, **extra)
        assert len(page["features"]) == count and page.get("exceededTransferLimit", False) == exceeded, (extra, page)
    assert call(countries, **distinct, returnCountOnly="true") == {"count": 8}


def test_hostile_quantization_numbers_are_400s(server):
    """Held: NaN, Infinity, overflow, -0, denormals and oversized grids are the 400 envelope."""
    countries = f"{layer(server, 1)}/query"
    for text in [
        '{"tolerance":NaN,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}',
        '{"tolerance":Infinity,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}',
        '{"tolerance":1e999,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}',
        '{"tolerance":-0.0,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}',
        '{"tolerance":5e-324,"extent":{"xmin":0,"ymin":0,"xmax":0,"ymax":0}}',
        '{"extent":{"xmin":0,"ymin":0,"xmax":5e-320,"ymax":5e-320}}',
        '{"tolerance":1e308,"extent":{"xmin":-1.7e308,"ymin":0,"xmax":1.7e308,"ymax":1}}',
    ]:
        answer = call(countries, where="OBJECTID < 5", quantizationParameters=text)
        assert answer.get("error", {}).get("code") == 400, (text, answer)
    assert call(countries, f="pbf").get("error", {}).get("code") == 400
