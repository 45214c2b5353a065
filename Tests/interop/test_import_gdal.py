"""Bring your own data (issue 25): sources GDAL reads, imported through `ogr2ogr`, their field
domains kept, served as ArcGIS does, enforced on applyEdits and sync, and carried in replicas."""
import json
import os
import pty
import sqlite3
import subprocess
import urllib.parse
import urllib.request

import pytest

from conftest import ROOT, UNVERIFIED, on_backend, running_server, BINARY

# A File Geodatabase written by GDAL's OpenFileGDB driver (python3-gdal, Debian's GDAL), with a
# coded-value and a range domain, a relationship class to an inspections table and an attachment
# relationship class with its __ATTACH table, made by the system Python that has the bindings.
MAKE_FILEGDB = """
import sys
from osgeo import gdal, ogr, osr
gdal.UseExceptions()
ds = gdal.GetDriverByName("OpenFileGDB").Create(sys.argv[1], 0, 0, 0, gdal.GDT_Unknown)
ds.AddFieldDomain(ogr.CreateCodedFieldDomain("TreeSpecies", "Species", ogr.OFTInteger, ogr.OFSTNone, {1: "Oak", 2: "Lime", 3: "Maple"}))
ds.AddFieldDomain(ogr.CreateRangeFieldDomain("Height", "Height in m", ogr.OFTReal, ogr.OFSTNone, 0.0, True, 80.0, True))
srs = osr.SpatialReference()
srs.ImportFromEPSG(4326)
layer = ds.CreateLayer("trees", srs, ogr.wkbPoint)
for name, kind, domain in (("GlobalID", ogr.OFTString, None), ("species", ogr.OFTInteger, "TreeSpecies"),
                           ("height", ogr.OFTReal, "Height"), ("note", ogr.OFTString, None)):
    field = ogr.FieldDefn(name, kind)
    if domain:
        field.SetDomainName(domain)
    layer.CreateField(field)
inspections = ds.CreateLayer("inspections", None, ogr.wkbNone)
for name, kind in (("TreeGUID", ogr.OFTString), ("finding", ogr.OFTString)):
    inspections.CreateField(ogr.FieldDefn(name, kind))
attach = ds.CreateLayer("trees__ATTACH", None, ogr.wkbNone)
for name, kind in (("REL_GLOBALID", ogr.OFTString), ("CONTENT_TYPE", ogr.OFTString), ("ATT_NAME", ogr.OFTString),
                   ("DATA_SIZE", ogr.OFTInteger), ("DATA", ogr.OFTBinary)):
    attach.CreateField(ogr.FieldDefn(name, kind))
for i in range(12):
    tree = "{%08d-0000-4000-8000-%012d}" % (i, i)
    feature = ogr.Feature(layer.GetLayerDefn())
    feature.SetField("GlobalID", tree)
    feature.SetField("species", 1 + i % 3)
    feature.SetField("height", 4.5 + i)
    feature.SetField("note", f"tree {i}")
    feature.SetGeometry(ogr.CreateGeometryFromWkt(f"POINT (13.{i} 52.{i})"))
    layer.CreateFeature(feature)
    for n in range(i % 3):
        row = ogr.Feature(inspections.GetLayerDefn())
        row.SetField("TreeGUID", tree)
        row.SetField("finding", f"inspection {n} of tree {i}")
        inspections.CreateFeature(row)
    if i < 4:
        photo = bytes(range(256)) * (i + 1)
        row = ogr.Feature(attach.GetLayerDefn())
        row.SetField("REL_GLOBALID", tree)
        row.SetField("CONTENT_TYPE", "image/jpeg")
        row.SetField("ATT_NAME", f"tree{i}.jpg")
        row.SetField("DATA_SIZE", len(photo))
        row.SetFieldBinaryFromHexString("DATA", photo.hex())
        attach.CreateFeature(row)
ds = None
# Relationship classes are added to an existing geodatabase opened for update.
ds = gdal.OpenEx(sys.argv[1], gdal.OF_VECTOR | gdal.OF_UPDATE)
related = gdal.Relationship("trees_inspections", "trees", "inspections", gdal.GRC_ONE_TO_MANY)
related.SetLeftTableFields(["GlobalID"])
related.SetRightTableFields(["TreeGUID"])
related.SetType(gdal.GRT_COMPOSITE)
related.SetForwardPathLabel("inspections")
related.SetBackwardPathLabel("tree")
assert ds.AddRelationship(related)
photos = gdal.Relationship("trees__ATTACHREL", "trees", "trees__ATTACH", gdal.GRC_ONE_TO_MANY)
photos.SetLeftTableFields(["GlobalID"])
photos.SetRightTableFields(["REL_GLOBALID"])
photos.SetType(gdal.GRT_COMPOSITE)
photos.SetRelatedTableType("media")
assert ds.AddRelationship(photos)
ds = None
"""


def get(url):
    with urllib.request.urlopen(url, timeout=30, context=UNVERIFIED) as response:
        return json.loads(response.read())


def post(url, fields):
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode())
    with urllib.request.urlopen(request, timeout=60, context=UNVERIFIED) as response:
        return json.loads(response.read())


def outpost_import(source, data, service, *extra):
    result = subprocess.run(on_backend([BINARY, "import", source, "--service", service, "--data", data, *extra]),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def outpost_export(service, data, output, format):
    result = subprocess.run(on_backend([BINARY, "export", service, output, "--format", format, "--data", data]),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def filegdb(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("gdb") / "trees.gdb")
    subprocess.run(["/usr/bin/python3", "-c", MAKE_FILEGDB, path], check=True)
    return path


def test_a_file_geodatabase_keeps_its_domains_and_they_are_enforced(filegdb, tmp_path):
    data = str(tmp_path / "data")
    assert "Trees/FeatureServer/0 trees: 12 rows" in outpost_import(filegdb, data, "Trees")
    with running_server(data, "--no-demo", tls=True) as root:
        service = f"{root}/rest/services/Trees/FeatureServer"
        fields = {f["name"]: f for f in get(f"{service}/0?f=json")["fields"]}
        assert fields["species"]["domain"] == {"type": "codedValue", "name": "TreeSpecies", "codedValues": [
            {"name": "Oak", "code": 1}, {"name": "Lime", "code": 2}, {"name": "Maple", "code": 3}]}
        assert fields["height"]["domain"] == {"type": "range", "name": "Height", "range": [0, 80]}
        assert fields["note"]["domain"] is None

        # The ArcGIS API for Python reads the pick list from the layer.
        arcgis = pytest.importorskip("arcgis")
        from arcgis.features import FeatureLayer
        from arcgis.gis.server import ServicesDirectory
        layer = FeatureLayer(f"{service}/0", gis=ServicesDirectory(url=root, verify_cert=False))
        species = next(f for f in layer.properties.fields if f["name"] == "species")
        assert [c["name"] for c in species["domain"]["codedValues"]] == ["Oak", "Lime", "Maple"]
        # An edit outside a domain is refused; the request's other edits follow rollbackOnFailure.
        refused = layer.edit_features(adds=[{"attributes": {"species": 2, "height": 3}, "geometry": {"x": 13, "y": 52}},
                                            {"attributes": {"species": 7, "height": 3}, "geometry": {"x": 13, "y": 52}}],
                                      rollback_on_failure=False)
        assert [r["success"] for r in refused["addResults"]] == [True, False]
        assert refused["addResults"][1]["error"]["code"] == 1000 and "TreeSpecies" in refused["addResults"][1]["error"]["description"]
        assert get(f"{service}/0/query?where=1%3D1&returnCountOnly=true&f=json")["count"] == 13

        # Through sync: a replica's add outside the range domain fails, its good one lands.
        replica = post(f"{service}/createReplica", {"f": "json", "layers": "0", "replicaName": "crew", "syncModel": "perLayer",
                                                    "transportType": "esriTransportTypeEmbedded"})
        generation = replica["layerServerGens"][0]["serverGen"]
        edits = [{"id": 0, "features": {"adds": [
            {"attributes": {"GlobalID": "{A7C3F0D2-4B1E-4C55-9E6A-1F2B3C4D5E60}", "species": 1, "height": 90},
             "geometry": {"x": 13, "y": 52}},
            {"attributes": {"GlobalID": "{A7C3F0D2-4B1E-4C55-9E6A-1F2B3C4D5E61}", "species": 1, "height": 9},
             "geometry": {"x": 13, "y": 52}}]}}]
        answer = post(f"{service}/synchronizeReplica", {
            "f": "json", "replicaID": replica["replicaID"], "transportType": "esriTransportTypeEmbedded", "rollbackOnFailure": "false",
            "syncLayers": json.dumps([{"id": 0, "serverGen": generation, "syncDirection": "bidirectional"}]), "edits": json.dumps(edits)})
        results = answer["edits"][0]["addResults"]
        assert [r["success"] for r in results] == [False, True], answer
        assert "Height" in results[0]["error"]["description"]

        # A replica carries the domains as GeoPackage constraints, which GDAL reads as field domains.
        sqlite_replica = post(f"{service}/createReplica", {"f": "json", "layers": "0", "replicaName": "offline", "syncModel": "perLayer",
                                                           "dataFormat": "sqlite"})
        gpkg = str(tmp_path / "offline.gpkg")
        with urllib.request.urlopen(sqlite_replica["URL"], timeout=60, context=UNVERIFIED) as response, open(gpkg, "wb") as out:
            out.write(response.read())
    info = subprocess.run(["ogrinfo", "-so", gpkg, "trees"], capture_output=True, text=True, check=True).stdout
    assert "species: Integer (0.0), domain name=TreeSpecies" in info and "height: Real (0.0), domain name=Height" in info
    domains = subprocess.run(["ogrinfo", "-so", gpkg, "-fielddomain", "TreeSpecies"], capture_output=True, text=True, check=True).stdout
    assert "1: Oak" in domains and "3: Maple" in domains
    ranges = subprocess.run(["ogrinfo", "-so", gpkg, "-fielddomain", "Height"], capture_output=True, text=True, check=True).stdout
    assert "Minimum value: 0" in ranges and "Maximum value: 80" in ranges


def test_a_file_geodatabase_keeps_its_relationships_attachments_and_global_ids(filegdb, tmp_path):
    data = str(tmp_path / "data")
    printed = outpost_import(filegdb, data, "Trees")
    assert "Trees/FeatureServer/0 trees: 12 rows" in printed and "Trees/FeatureServer/1 inspections: 12 rows" in printed
    assert "ATTACH" not in printed, "the attachment table is no layer of its own"
    with running_server(data, "--no-demo", tls=True) as root:
        service = f"{root}/rest/services/Trees/FeatureServer"
        trees, inspections = get(f"{service}/0?f=json"), get(f"{service}/1?f=json")
        assert trees["hasAttachments"] is True and inspections["type"] == "Table"
        assert trees["relationships"] == [{"id": 0, "name": "inspections", "relatedTableId": 1, "cardinality": "esriRelCardinalityOneToMany",
                                           "role": "esriRelRoleOrigin", "keyField": "GlobalID", "composite": True}]
        assert inspections["relationships"] == [{"id": 0, "name": "tree", "relatedTableId": 0, "cardinality": "esriRelCardinalityOneToMany",
                                                 "role": "esriRelRoleDestination", "keyField": "TreeGUID", "composite": True}]
        # The geodatabase's GlobalIDs are kept, so the inspections' keys still name their trees.
        rows = get(f"{service}/0/query?where=1%3D1&outFields=OBJECTID,GlobalID,note&orderByFields=OBJECTID&f=json")["features"]
        by_note = {r["attributes"]["note"]: r["attributes"] for r in rows}
        assert by_note["tree 2"]["GlobalID"] == "{00000002-0000-4000-8000-000000000002}"
        keyed = get(f"{service}/1/query?" + urllib.parse.urlencode(
            {"where": "TreeGUID = '{00000002-0000-4000-8000-000000000002}'", "outFields": "finding", "f": "json"}))["features"]
        assert sorted(r["attributes"]["finding"] for r in keyed) == ["inspection 0 of tree 2", "inspection 1 of tree 2"]
        # The __ATTACH rows are the trees' attachments, byte for byte.
        for i in range(12):
            oid = by_note[f"tree {i}"]["OBJECTID"]
            infos = get(f"{service}/0/{oid}/attachments?f=json")["attachmentInfos"]
            if i >= 4:
                assert infos == []
                continue
            assert [(a["name"], a["contentType"], a["size"]) for a in infos] == [(f"tree{i}.jpg", "image/jpeg", 256 * (i + 1))]
            with urllib.request.urlopen(f"{service}/0/{oid}/attachments/{infos[0]['id']}", timeout=30, context=UNVERIFIED) as response:
                assert response.read() == bytes(range(256)) * (i + 1)

        # queryRelatedRecords follows the relationship both ways, grouped by feature.
        oids = {i: by_note[f"tree {i}"]["OBJECTID"] for i in range(12)}
        related = get(f"{service}/0/queryRelatedRecords?" + urllib.parse.urlencode(
            {"objectIds": f"{oids[2]},{oids[3]},{oids[4]}", "relationshipId": 0, "outFields": "finding", "f": "json"}))
        assert [f["name"] for f in related["fields"]] == ["finding"]
        assert {g["objectId"]: sorted(r["attributes"]["finding"] for r in g["relatedRecords"]) for g in related["relatedRecordGroups"]} == {
            oids[2]: ["inspection 0 of tree 2", "inspection 1 of tree 2"], oids[4]: ["inspection 0 of tree 4"]}
        counted = get(f"{service}/0/queryRelatedRecords?" + urllib.parse.urlencode(
            {"objectIds": f"{oids[2]},{oids[5]}", "relationshipId": 0, "returnCountOnly": "true",
             "definitionExpression": "finding LIKE 'inspection 1%'", "f": "json"}))
        assert counted["relatedRecordGroups"] == [{"objectId": oids[2], "count": 1}, {"objectId": oids[5], "count": 1}]
        inspection = get(f"{service}/1/query?where=finding%3D%27inspection%201%20of%20tree%205%27&f=json")["features"][0]
        back = get(f"{service}/1/queryRelatedRecords?" + urllib.parse.urlencode(
            {"objectIds": inspection["attributes"]["OBJECTID"], "relationshipId": 0, "outFields": "note", "f": "json"}))
        assert back["geometryType"] == "esriGeometryPoint"
        assert [r["attributes"]["note"] for r in back["relatedRecordGroups"][0]["relatedRecords"]] == ["tree 5"]
        assert back["relatedRecordGroups"][0]["relatedRecords"][0]["geometry"]["x"] == pytest.approx(13.5)
        missing = get(f"{service}/0/queryRelatedRecords?objectIds=1&relationshipId=7&f=json")
        assert missing["error"]["code"] == 400 and "relationship 7" in json.dumps(missing["error"])

        # The ArcGIS API for Python reads the relationship and follows it.
        arcgis = pytest.importorskip("arcgis")
        from arcgis.features import FeatureLayer
        from arcgis.gis.server import ServicesDirectory
        layer = FeatureLayer(f"{service}/0", gis=ServicesDirectory(url=root, verify_cert=False))
        assert layer.properties.relationships[0]["relatedTableId"] == 1
        answer = layer.query_related_records(object_ids=str(oids[2]), relationship_id="0", out_fields="finding")
        assert sorted(r["attributes"]["finding"] for r in answer["relatedRecordGroups"][0]["relatedRecords"]) == [
            "inspection 0 of tree 2", "inspection 1 of tree 2"]


def test_a_geopackage_attach_table_is_its_parents_attachments_and_orphans_are_named(filegdb, tmp_path):
    # The geodatabase copied to a GeoPackage by GDAL: the __ATTACH table and its columns come
    # along, the relationship classes do not; one attachment row names no tree.
    gpkg = str(tmp_path / "trees.gpkg")
    subprocess.run(["ogr2ogr", "-f", "GPKG", gpkg, filegdb], check=True)
    with sqlite3.connect(gpkg) as db:
        db.execute("INSERT INTO trees__ATTACH (REL_GLOBALID, CONTENT_TYPE, ATT_NAME, DATA) "
                   "VALUES ('{99999999-0000-4000-8000-000000000000}', 'text/plain', 'lost.txt', x'00')")
    data = str(tmp_path / "data")
    result = subprocess.run(on_backend([BINARY, "import", gpkg, "--service", "Copied", "--data", data]),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning: trees__ATTACH: 1 attachments without a parent feature were not imported" in result.stderr
    assert "ATTACH" not in result.stdout
    with running_server(data, "--no-demo") as root:
        service = f"{root}/rest/services/Copied/FeatureServer"
        assert get(f"{service}/0?f=json")["hasAttachments"] is True
        assert get(f"{service}/0?f=json")["relationships"] == [], "a GeoPackage of GDAL 3.6 carries no relationship classes"
        rows = get(f"{service}/0/query?where=1%3D1&outFields=OBJECTID,note&f=json")["features"]
        sizes = {}
        for row in rows:
            infos = get(f"{service}/0/{row['attributes']['OBJECTID']}/attachments?f=json")["attachmentInfos"]
            sizes[row["attributes"]["note"]] = [a["size"] for a in infos]
        assert sizes == {f"tree {i}": ([256 * (i + 1)] if i < 4 else []) for i in range(12)}
    # Trees whose GlobalIDs are no GUIDs get new ones: nothing links the attachments to them.
    # (through GDAL, whose SQL functions the GeoPackage's R-tree triggers call)
    subprocess.run(["ogrinfo", gpkg, "-sql", "UPDATE trees SET GlobalID = 'tree-' || OBJECTID"], check=True, capture_output=True)
    result = subprocess.run(on_backend([BINARY, "import", gpkg, "--service", "Unlinked", "--data", data]),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning: trees__ATTACH: trees has no GlobalIDs to link its attachments to; they are not imported" in result.stderr
    with running_server(data, "--no-demo") as root:
        assert get(f"{root}/rest/services/Unlinked/FeatureServer/0?f=json")["hasAttachments"] is False


def test_import_draws_a_progress_bar_on_a_terminal_only(filegdb, tmp_path):
    # A pseudo-terminal for the import's standard output; everything it drew is read back.
    controller, terminal = pty.openpty()
    process = subprocess.Popen(on_backend([BINARY, "import", filegdb, "--service", "Bars", "--data", str(tmp_path / "tty")]),
                               stdin=subprocess.DEVNULL, stdout=terminal, stderr=subprocess.DEVNULL)
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the import closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    assert process.wait(timeout=300) == 0
    drawn = b"".join(chunks).decode("utf-8", errors="replace")
    assert "\rGDAL trees.gdb [" in drawn and "] 100%" in drawn
    assert "\rtrees [##############################] 100% 12/12 rows" in drawn
    assert "\rinspections [##############################] 100% 12/12 rows" in drawn
    plain = outpost_import(filegdb, str(tmp_path / "plain"), "Plain")
    assert "[#" not in plain and "\r" not in plain


def test_shapefile_csv_and_kml_import_with_their_counts_types_and_geometries(tmp_path):
    countries = os.path.join(ROOT, "testdata", "naturalearth_countries.geojson")
    shapefile = str(tmp_path / "countries.shp")
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", shapefile, countries, "-lco", "ENCODING=UTF-8"], check=True)
    kml = str(tmp_path / "countries.kml")
    subprocess.run(["ogr2ogr", "-f", "KML", kml, countries, "-select", "name"], check=True)
    csv = str(tmp_path / "stations.csv")
    with open(csv, "w") as out:
        out.write("name,longitude,latitude,elevation,opened\n")
        for i in range(25):
            out.write(f"Station {i},{10 + i / 10},{50 + i / 20},{100 + i},2020-01-{1 + i % 28:02d}\n")
    data = str(tmp_path / "data")
    assert "Countries/FeatureServer/0 countries: 177 rows" in outpost_import(shapefile, data, "Countries")
    assert ": 177 rows" in outpost_import(kml, data, "CountriesKML")
    assert "Stations/FeatureServer/0 stations: 25 rows" in outpost_import(csv, data, "Stations")
    with running_server(data, "--no-demo") as root:
        base = f"{root}/rest/services"
        layer = get(f"{base}/Countries/FeatureServer/0?f=json")
        assert layer["geometryType"] == "esriGeometryPolygon"
        france = get(f"{base}/Countries/FeatureServer/0/query?where=iso_a3%3D%27FRA%27&outFields=name&f=json")["features"]
        assert france[0]["attributes"]["name"] == "France" and france[0]["geometry"]["rings"]
        stations = get(f"{base}/Stations/FeatureServer/0?f=json")
        types = {f["name"]: f["type"] for f in stations["fields"]}
        assert stations["geometryType"] == "esriGeometryPoint"
        assert types["elevation"] == "esriFieldTypeInteger" and types["name"] == "esriFieldTypeString"
        assert types["opened"] == "esriFieldTypeDate"
        first = get(f"{base}/Stations/FeatureServer/0/query?where=name%3D%27Station%203%27&outFields=*&f=json")["features"][0]
        assert first["geometry"] == {"x": 10.3, "y": 50.15} and first["attributes"]["elevation"] == 103
        assert get(f"{base}/CountriesKML/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")["count"] == 177


def test_a_postgis_table_imports_through_a_pg_connection_string(tmp_path):
    admin = os.environ.get("OUTPOST_TEST_POSTGRES")
    if not admin:
        pytest.fail("no test PostgreSQL: run scripts/test.sh, or set OUTPOST_TEST_POSTGRES")
    name = "outpost_source_" + os.urandom(6).hex()
    subprocess.run(["psql", "-q", admin, "-c", f"CREATE DATABASE {name}"], check=True)
    source = f"{admin.rsplit('/', 1)[0]}/{name}"
    try:
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", source, "-c", """
            CREATE EXTENSION postgis;
            CREATE TABLE parks (id serial PRIMARY KEY, name text, area_ha double precision, opened date,
                                geom geometry(Polygon, 4326));
            INSERT INTO parks (name, area_ha, opened, geom) SELECT 'Park ' || n, n * 1.5, DATE '2001-01-01' + n,
                ST_MakeEnvelope(13 + n / 10.0, 52, 13.05 + n / 10.0, 52.05, 4326) FROM generate_series(1, 7) n;
            CREATE TABLE ignored (id serial PRIMARY KEY, note text);
            """], check=True)
        host, port, user = "127.0.0.1", admin.split(":")[-1].split("/")[0], admin.split("//")[1].split("@")[0]
        connection = f"PG:host={host} port={port} user={user} dbname={name} tables=parks"
        assert "Parks/FeatureServer/0 parks: 7 rows" in outpost_import(connection, str(tmp_path / "data"), "Parks")
        with running_server(str(tmp_path / "data"), "--no-demo") as root:
            layer = get(f"{root}/rest/services/Parks/FeatureServer/0?f=json")
            types = {f["name"]: f["type"] for f in layer["fields"]}
            assert layer["geometryType"] == "esriGeometryPolygon" and len(get(f"{root}/rest/services/Parks/FeatureServer?f=json")["layers"]) == 1
            assert types["name"] == "esriFieldTypeString" and types["area_ha"] == "esriFieldTypeDouble" and types["opened"] == "esriFieldTypeDate"
            park = get(f"{root}/rest/services/Parks/FeatureServer/0/query?where=name%3D%27Park%203%27&outFields=*&f=json")["features"][0]
            assert park["attributes"]["area_ha"] == 4.5
            xs = [x for ring in park["geometry"]["rings"] for x, _ in ring]
            assert min(xs) == pytest.approx(13.3) and max(xs) == pytest.approx(13.35)
    finally:
        subprocess.run(["psql", "-q", admin, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


# Reads every feature of a file's one layer with GDAL (the system Python's bindings), as JSON.
READ_FEATURES = """
import json, sys
from osgeo import ogr
source = ogr.Open(sys.argv[1])
layer = source.GetLayer(0)
rows = []
for feature in layer:
    geometry = feature.GetGeometryRef()
    rows.append({"name": feature.GetField("name"), "iso_a3": feature.GetField("iso_a3"), "pop_est": feature.GetField("pop_est"),
                 "area": round(geometry.GetArea(), 6) if geometry else None})
print(json.dumps({"count": layer.GetFeatureCount(), "rows": sorted(rows, key=lambda r: (r["name"], r["iso_a3"]))}))
"""


@pytest.mark.parametrize("format,extension", [("GPKG", "gpkg"), ("FileGDB", "gdb"), ("Shapefile", "shp"), ("GeoJSON", "geojson"),
                                              ("CSV", "csv")])
def test_outpost_export_round_trips_a_service(tmp_path, format, extension):
    countries = os.path.join(ROOT, "testdata", "naturalearth_countries.geojson")
    data = str(tmp_path / "data")
    outpost_import(countries, data, "Countries")
    output = str(tmp_path / f"countries.{extension}")
    outpost_export("Countries", data, output, format)
    # CSV carries the geometry as WKT text: its names and numbers are compared, not its areas.
    read = output if format != "CSV" else f"CSV:{output}"
    exported = json.loads(subprocess.run(["/usr/bin/python3", "-c", READ_FEATURES, read], capture_output=True, text=True, check=True).stdout)
    original = json.loads(subprocess.run(["/usr/bin/python3", "-c", READ_FEATURES, countries], capture_output=True, text=True,
                                         check=True).stdout)
    assert exported["count"] == original["count"] == 177
    for theirs, ours in zip(original["rows"], exported["rows"]):
        assert (ours["name"], ours["iso_a3"]) == (theirs["name"], theirs["iso_a3"])
        assert float(ours["pop_est"]) == pytest.approx(float(theirs["pop_est"]))
        if format != "CSV":
            assert ours["area"] == pytest.approx(theirs["area"], rel=1e-6)


def test_srs_reprojects_a_gdal_source_and_a_missing_gdal_is_named(tmp_path):
    csv = str(tmp_path / "points.csv")
    with open(csv, "w") as out:
        out.write("name,longitude,latitude\nnull island,0,0\neast,1,0\n")
    data = str(tmp_path / "data")
    outpost_import(csv, data, "Mercator", "--srs", "3857")
    with running_server(data, "--no-demo") as root:
        service = f"{root}/rest/services/Mercator/FeatureServer"
        assert get(f"{service}/0?f=json")["extent"]["spatialReference"]["latestWkid"] == 3857
        east = get(f"{service}/0/query?where=name%3D%27east%27&returnGeometry=true&f=json")["features"][0]["geometry"]
        assert east["x"] == pytest.approx(111319.49, abs=0.01) and east["y"] == pytest.approx(0, abs=1e-6)
    # Without GDAL's tools on the PATH, the import says which package brings them, and makes nothing.
    result = subprocess.run(on_backend([BINARY, "import", csv, "--service", "Nothing", "--data", data]),
                            capture_output=True, text=True, timeout=60, env={**os.environ, "PATH": "/nonexistent"})
    assert result.returncode != 0 and "gdal-bin" in result.stdout + result.stderr
    with running_server(data, "--no-demo") as root:
        assert [s["name"] for s in get(f"{root}/rest/services?f=json")["services"]] == ["Mercator"]


@pytest.mark.parametrize("format,extension", [("GPKG", "gpkg"), ("FileGDB", "gdb")])
def test_an_export_keeps_the_field_domains(filegdb, tmp_path, format, extension):
    data = str(tmp_path / "data")
    outpost_import(filegdb, data, "Trees")
    output = str(tmp_path / f"trees.{extension}")
    outpost_export("Trees", data, output, format)
    info = subprocess.run(["ogrinfo", "-so", output, "trees"], capture_output=True, text=True, check=True).stdout
    assert "domain name=TreeSpecies" in info and "domain name=Height" in info
    domains = subprocess.run(["ogrinfo", "-so", output, "-fielddomain", "TreeSpecies"], capture_output=True, text=True, check=True).stdout
    assert "2: Lime" in domains
