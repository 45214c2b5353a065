"""A PostgreSQL database restored from `pg_dump` into a new cluster (docs/operations.md,
"PostgreSQL"): rows are stamped with transaction ids and generations are snapshots of them, so
in a cluster whose transaction counter is behind the dump's, every change written later would
look older than the devices' generations. Outpost refuses to open such a database, and the
runbook's remedy, advancing the new cluster's counter with `pg_resetwal -x`, makes it serve
with every later change reaching the devices. Two throwaway clusters of the test's own."""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import uuid

from conftest import BINARY, ROOT, free_port, running_server, spatialite_pass_only
from test_backup import create, has, new_id, sync
from test_import_gdal import post

POSTGRES = os.path.join(ROOT, "scripts", "postgres.sh")
BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
SEGMENT = 1 << 20  # transaction ids per pg_xact segment: pg_resetwal -x takes a multiple


def cluster(folder):
    return subprocess.run([POSTGRES, "start", folder, str(free_port())], check=True, capture_output=True, text=True).stdout.strip()


def reset_transaction_ids(folder, next_id):
    """Stops the cluster, sets its next transaction id, starts it again."""
    subprocess.run([POSTGRES, "stop", folder], check=True)
    owner = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(owner + [os.path.join(BIN, "pg_resetwal"), "-x", str(next_id), "-D", os.path.join(folder, "data")],
                   check=True, capture_output=True)
    subprocess.run([POSTGRES, "restart", folder], check=True)


@spatialite_pass_only("it makes its two PostgreSQL clusters itself")
def test_a_dump_restored_into_a_cluster_behind_it_is_refused_until_its_transaction_ids_are_advanced():
    work = tempfile.mkdtemp(prefix="outpost-pg-restore-")
    os.chmod(work, 0o755)  # the clusters belong to the postgres user, which must reach them
    old, new = os.path.join(work, "old-cluster"), os.path.join(work, "new-cluster")
    try:
        # The cluster the data lived on has come a long way: its transaction ids are far ahead.
        source = cluster(old)
        reset_transaction_ids(old, 4 * SEGMENT)
        data = os.path.join(work, "data")
        os.mkdir(data)
        with running_server(data, "--database", source) as root:
            service = f"{root}/rest/services/Demo/FeatureServer"
            replica, generation = create(service, "field device")
            answer = sync(service, replica, generation, adds=[new_id()])
            generation = answer["layerServerGens"][0]["serverGen"]
        dump = os.path.join(work, "outpost.dump")
        subprocess.run(["pg_dump", "--format=custom", "--no-owner", f"--file={dump}", source], check=True)

        # The disk died: a new cluster, the dump restored into it, the files copied.
        target = cluster(new)
        subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--single-transaction", f"--dbname={target}", dump], check=True)
        restored = os.path.join(work, "restored")
        shutil.copytree(data, restored, ignore=shutil.ignore_patterns("server.log", "tmp", "cache"))

        refused = subprocess.run([BINARY, "replicas", "list", "--data", restored, "--database", target], capture_output=True, text=True)
        assert refused.returncode != 0 and "pg_basebackup" in refused.stderr, refused.stderr
        newest = int(re.search(r"past (\d+)", refused.stderr).group(1))

        # The runbook: the new cluster's counter moved past the newest generation.
        reset_transaction_ids(new, (newest // SEGMENT + 1) * SEGMENT)
        with running_server(restored, "--database", target) as root:
            service = f"{root}/rest/services/Demo/FeatureServer"
            online = new_id()
            added = post(f"{service}/2/applyEdits", {"f": "json", "adds": json.dumps([
                {"attributes": {"GlobalID": online, "species": "after the restore"}, "geometry": {"x": 13.22, "y": 52.42}}])})
            assert added["addResults"][0]["success"], added
            assert has(service, online)
            # The device that synced before the dump receives the change made after the restore.
            answer = sync(service, replica, generation)
            received = [feature["attributes"]["GlobalID"] for layer in answer.get("edits", [])
                        for feature in layer.get("features", {}).get("adds", []) + layer.get("features", {}).get("updates", [])]
            assert online in received, answer
    finally:
        for folder in (old, new):
            subprocess.run([POSTGRES, "stop", folder], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
