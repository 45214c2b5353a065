"""Subtypes of a File Geodatabase (issue 25): read from its own definitions, served as ArcGIS
serves them (`typeIdField`, `types`, `templates`, `subtypes`), their defaults given to adds that
omit fields and their domains enforced on applyEdits and sync, on both backends."""
import json
import subprocess

import pytest

from conftest import running_server
from test_import_gdal import MAKE_FILEGDB, get, outpost_import, post

# GDAL cannot write subtypes, but it hands a geodatabase's definitions back whole and writes
# them again: the trees' definition gains subtypes by `species`, in Esri's geodatabase XML
# schema, through the OpenFileGDB driver in update mode (which gives the item a new UUID).
# Oak has its own height domain and defaults, Lime keeps the field's Height domain and is the
# default subtype, Maple has no height domain at all.
ADD_SUBTYPES = """
import sys
from osgeo import gdal, ogr
gdal.UseExceptions()
def info(field, domain=None, default=None):
    text = f"<SubtypeFieldInfo xsi:type='typens:SubtypeFieldInfo'><FieldName>{field}</FieldName>"
    if domain:
        text += f"<DomainName>{domain}</DomainName>"
    if default is not None:
        kind = "xs:double" if isinstance(default, float) else "xs:string"
        text += f"<DefaultValue xsi:type='{kind}'>{default}</DefaultValue>"
    return text + "</SubtypeFieldInfo>"
def subtype(name, code, *infos):
    return (f"<Subtype xsi:type='typens:Subtype'><SubtypeName>{name}</SubtypeName><SubtypeCode>{code}</SubtypeCode>"
            f"<FieldInfos xsi:type='typens:ArrayOfSubtypeFieldInfo'>{''.join(infos)}</FieldInfos></Subtype>")
SUBTYPES = ("<SubtypeFieldName>species</SubtypeFieldName><DefaultSubtypeCode>2</DefaultSubtypeCode>"
            "<Subtypes xsi:type='typens:ArrayOfSubtype'>"
            + subtype("Oak", 1, info("height", "OakHeight", 10.0), info("note", None, "an oak"))
            + subtype("Lime", 2, info("height", "Height"), info("note", None, "a lime"))
            + subtype("Maple", 3, info("height"))
            + "</Subtypes>")
ds = gdal.OpenEx(sys.argv[1], gdal.OF_VECTOR | gdal.OF_UPDATE)
assert ds.AddFieldDomain(ogr.CreateRangeFieldDomain("OakHeight", "Oaks in m", ogr.OFTReal, ogr.OFSTNone, 0.0, True, 40.0, True))
ds = None
ds = gdal.OpenEx(sys.argv[1], gdal.OF_VECTOR | gdal.OF_UPDATE, open_options=["LIST_ALL_TABLES=YES"])
items = ds.GetLayerByName("GDB_Items")
patched = 0
for item in items:
    if item.GetField("Name") == "trees":
        close = "</typens:DEFeatureClassInfo>"
        item.SetField("Definition", item.GetField("Definition").replace(close, SUBTYPES + close))
        items.SetFeature(item)
        patched += 1
assert patched == 1
ds = None
"""


@pytest.fixture(scope="module")
def subtyped_filegdb(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("gdb") / "trees.gdb")
    subprocess.run(["/usr/bin/python3", "-c", MAKE_FILEGDB, path], check=True)
    subprocess.run(["/usr/bin/python3", "-c", ADD_SUBTYPES, path], check=True, capture_output=True)
    return path


def test_a_file_geodatabase_keeps_its_subtypes_with_their_defaults_and_domains(subtyped_filegdb, tmp_path):
    data = str(tmp_path / "data")
    printed = outpost_import(subtyped_filegdb, data, "Trees")
    assert "Trees/FeatureServer/0 trees: 12 rows" in printed
    with running_server(data, "--no-demo", tls=True) as root:
        service = f"{root}/rest/services/Trees/FeatureServer"
        layer = get(f"{service}/0?f=json")
        assert layer["typeIdField"] == "species" and layer["templates"] == []
        assert layer["subtypeField"] == "species" and layer["defaultSubtypeCode"] == 2
        types = {t["id"]: t for t in layer["types"]}
        assert {code: t["name"] for code, t in types.items()} == {1: "Oak", 2: "Lime", 3: "Maple"}
        assert types[1]["domains"]["height"] == {"type": "range", "name": "OakHeight", "range": [0, 40]}
        assert types[2]["domains"]["height"] == {"type": "inherited"}
        assert "height" not in types[3]["domains"], "Maple has no height domain"
        assert types[1]["templates"][0]["prototype"]["attributes"] == {"height": 10, "note": "an oak", "species": 1}
        assert types[1]["templates"][0]["drawingTool"] == "esriFeatureEditToolPoint"

        # The ArcGIS API for Python reads the types and their templates from the layer.
        arcgis = pytest.importorskip("arcgis")
        from arcgis.features import FeatureLayer
        from arcgis.gis.server import ServicesDirectory
        client = FeatureLayer(f"{service}/0", gis=ServicesDirectory(url=root, verify_cert=False))
        assert client.properties.typeIdField == "species"
        assert [t["templates"][0]["name"] for t in client.properties.types] == ["Oak", "Lime", "Maple"]

        # Adds that omit fields take their subtype's defaults; each value meets its subtype's domain.
        point = {"x": 13, "y": 52}
        adds = [{"attributes": {}, "geometry": point}, {"attributes": {"species": 1}, "geometry": point},
                {"attributes": {"species": 1, "height": 50}, "geometry": point},
                {"attributes": {"species": 3, "height": 500}, "geometry": point},
                {"attributes": {"species": 2, "height": 90}, "geometry": point},
                {"attributes": {"species": 4}, "geometry": point}]
        results = post(f"{service}/0/applyEdits", {"f": "json", "adds": json.dumps(adds), "rollbackOnFailure": "false"})["addResults"]
        assert [r["success"] for r in results] == [True, True, False, True, False, False], results
        assert "OakHeight" in results[2]["error"]["description"] and "Height" in results[4]["error"]["description"]
        assert "not a subtype" in results[5]["error"]["description"]
        added = ",".join(str(r["objectId"]) for r in results if r["success"])
        rows = get(f"{service}/0/query?objectIds={added}&outFields=species,height,note&orderByFields=OBJECTID&f=json")["features"]
        assert [{k: v for k, v in r["attributes"].items() if k != "OBJECTID"} for r in rows] == [
            {"species": 2, "height": None, "note": "a lime"}, {"species": 1, "height": 10, "note": "an oak"},
            {"species": 3, "height": 500, "note": None}]
        # An update that keeps the subtype is checked in the one the feature has.
        oak = results[1]["objectId"]
        updated = post(f"{service}/0/applyEdits", {"f": "json", "updates": json.dumps([{"attributes": {"OBJECTID": oak, "height": 45}}])})
        assert updated["updateResults"][0]["success"] is False and "OakHeight" in updated["updateResults"][0]["error"]["description"]

        # Through sync: an oak taller than its domain fails, a maple of any height lands.
        replica = post(f"{service}/createReplica", {"f": "json", "layers": "0", "replicaName": "crew", "syncModel": "perLayer",
                                                    "transportType": "esriTransportTypeEmbedded"})
        edits = [{"id": 0, "features": {"adds": [
            {"attributes": {"GlobalID": "{B7C3F0D2-4B1E-4C55-9E6A-1F2B3C4D5E60}", "species": 1, "height": 45}, "geometry": point},
            {"attributes": {"GlobalID": "{B7C3F0D2-4B1E-4C55-9E6A-1F2B3C4D5E61}", "species": 3, "height": 45}, "geometry": point}]}}]
        answer = post(f"{service}/synchronizeReplica", {
            "f": "json", "replicaID": replica["replicaID"], "transportType": "esriTransportTypeEmbedded", "rollbackOnFailure": "false",
            "syncLayers": json.dumps([{"id": 0, "serverGen": replica["layerServerGens"][0]["serverGen"], "syncDirection": "bidirectional"}]),
            "edits": json.dumps(edits)})
        synced = answer["edits"][0]["addResults"]
        assert [r["success"] for r in synced] == [False, True], answer
        assert "OakHeight" in synced[0]["error"]["description"]
