"""A `where` LIKE's ESCAPE (issue 44), on both backends: one character in quotes escapes as
SQL-92 says, NULL makes the LIKE unknown, and an escape of another length or not in quotes is
a 400 naming it, where it was a database error (500) while the query ran."""
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import running_server


def query(layer, where):
    body = urllib.parse.urlencode({"f": "json", "where": where, "returnCountOnly": "true"}).encode()
    try:
        with urllib.request.urlopen(f"{layer}/query", data=body, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def layer():
    with running_server() as base:
        layer = f"{base}/rest/services/Demo/FeatureServer/2"
        adds = [{"attributes": {"species": name}, "geometry": {"x": 13.21, "y": 52.41}} for name in ("100% oak", "100 oaks", "a_b", "axb")]
        body = urllib.parse.urlencode({"f": "json", "adds": json.dumps(adds)}).encode()
        with urllib.request.urlopen(f"{layer}/applyEdits", data=body) as response:
            assert all(result["success"] for result in json.loads(response.read())["addResults"])
        yield layer


@pytest.mark.parametrize("where, expected", [
    ("species LIKE '100!%%' ESCAPE '!'", 1),
    ("species LIKE '100%'", 2),
    ("species LIKE 'a!_b' ESCAPE '!'", 1),
    ("species LIKE 'a_b'", 2),
    ("species NOT LIKE 'a!_b' ESCAPE '!' AND species LIKE 'a_b'", 1),
    ("species LIKE '100%' ESCAPE NULL", 0),
    ("species NOT LIKE '100%' ESCAPE NULL", 0),
])
def test_one_character_or_null_escapes_as_sql_says(layer, where, expected):
    status, answer = query(layer, where)
    assert status == 200 and answer.get("count") == expected, answer


@pytest.mark.parametrize("where, reason", [
    ("species LIKE 'a%' ESCAPE 'xy'", "not 2"),
    ("species LIKE 'a%' ESCAPE ''", "not 0"),
    ("species NOT LIKE 'a%' ESCAPE '!!'", "not 2"),
    ("species LIKE 'a%' ESCAPE species", "in quotes"),
    ("species LIKE 'a%' ESCAPE '!' || ''", "in quotes"),
    ("species LIKE 'a%' ESCAPE 1", "in quotes"),
])
def test_any_other_escape_is_a_400_naming_it(layer, where, reason):
    status, answer = query(layer, where)
    error = answer.get("error", {})
    assert error.get("code") == 400, (status, answer)
    assert "ESCAPE takes one character" in error["details"][0] and reason in error["details"][0], answer
