"""The administration commands against a PostgreSQL + PostGIS database (docs/postgres.md):
`outpost migrate-to-postgres`, `users`, `replicas` and `compact` with `--database`, and GDAL
reading what the move wrote."""
import json
import os
import subprocess
import tempfile
import uuid

import pytest

from conftest import outpost, spatialite_pass_only


@pytest.fixture()
def database():
    """A new empty database on the suite's PostgreSQL (scripts/test.sh starts it)."""
    admin = os.environ.get("OUTPOST_TEST_POSTGRES")
    if not admin:
        pytest.fail("no test PostgreSQL: run scripts/test.sh, or set OUTPOST_TEST_POSTGRES")
    name = "outpost_cli_" + uuid.uuid4().hex[:12]
    base = admin.rsplit("/", 1)[0]
    subprocess.run(["psql", "-q", admin, "-c", f"CREATE DATABASE {name}"], check=True)
    yield f"{base}/{name}"
    subprocess.run(["psql", "-q", admin, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


@spatialite_pass_only("it moves a SpatiaLite folder into PostgreSQL itself (runs in the SpatiaLite pass)")
def test_a_data_folder_moves_to_postgresql_and_is_administered_there(database):
    work = tempfile.mkdtemp(prefix="outpost-pg-cli-")
    source = os.path.join(work, "trees.geojson")
    features = [{"type": "Feature", "properties": {"name": f"tree {n}", "height": n},
                 "geometry": {"type": "Point", "coordinates": [13.3 + n / 100, 52.5]}} for n in range(5)]
    with open(source, "w") as out:
        json.dump({"type": "FeatureCollection", "features": features}, out)
    data = os.path.join(work, "data")
    outpost("import", source, "--data", data, "--service", "Trees")
    moved = outpost("migrate-to-postgres", data, database).stdout
    assert "moved 1 services, 5 features" in moved, moved
    # Into a database that holds services already: refused, nothing changed.
    again = outpost("migrate-to-postgres", data, database, check=False)
    assert again.returncode != 0 and "already holds services" in again.stderr + again.stdout

    # GDAL reads the moved layer from PostGIS as it read the GeoJSON.
    host, port, name = database.split("@")[1].split(":")[0], database.rsplit(":", 1)[1].split("/")[0], database.rsplit("/", 1)[1]
    info = subprocess.run(["ogrinfo", "-ro", "-so", f"PG:host={host} port={port} user=outpost dbname={name}", "f_trees_0"],
                          capture_output=True, text=True, check=True).stdout
    assert "Feature Count: 5" in info and "Point" in info, info

    env_password = {"OUTPOST_PASSWORD": "long enough"}
    added = subprocess.run([*outpost_command(), "users", "add", "ada", "--role", "editor", "--database", database],
                           capture_output=True, text=True, env={**os.environ, **env_password})
    assert added.returncode == 0 and "added editor ada" in added.stdout, added.stderr
    taken = subprocess.run([*outpost_command(), "users", "add", "ADA", "--role", "admin", "--database", database],
                           capture_output=True, text=True, env={**os.environ, **env_password})
    assert taken.returncode != 0 and "exists already" in taken.stderr
    assert outpost("users", "list", "--database", database).stdout.split() == ["ada", "editor"]
    # The data folder has no users: the command went to the database.
    assert outpost("users", "list", "--data", data).stdout.strip() == ""
    outpost("users", "remove", "ada", "--database", database)
    assert outpost("users", "list", "--database", database).stdout.strip() == ""

    assert outpost("replicas", "list", "--database", database).stdout.strip() == "service\treplicaID\tname\towner\tlastActivity"
    assert "removed 0 tombstone(s) and 0 retry receipt(s)" in outpost("compact", "--database", database).stdout
    bad = outpost("compact", "--database", "mysql://nowhere/x", check=False)
    assert bad.returncode != 0 and "--database" in bad.stderr


def outpost_command():
    from conftest import BINARY
    return [BINARY]
