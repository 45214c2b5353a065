"""`outpost restore` given the folder `outpost backup` was given (issue 44): it names the
backups inside, newest first with their time, and `--latest` restores the newest
(docs/operations.md, "Restore")."""
import json
import os
import re
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import BACKEND, BINARY, running_server

pytestmark = pytest.mark.skipif(BACKEND == "postgres", reason="a PostgreSQL database is backed up with its own tools (docs/operations.md)")


def run(*arguments):
    return subprocess.run([BINARY, *arguments], capture_output=True, text=True, timeout=300)


def count(root, species):
    query = urllib.parse.urlencode({"where": f"species = '{species}'", "returnCountOnly": "true", "f": "json"})
    with urllib.request.urlopen(f"{root}/rest/services/Demo/FeatureServer/2/query?{query}", timeout=30) as response:
        return json.loads(response.read())["count"]


def test_restore_of_the_backups_folder_names_them_and_latest_takes_the_newest(tmp_path):
    data, backups = str(tmp_path / "data"), str(tmp_path / "backups")
    os.makedirs(data)
    with running_server(data) as root:
        folders = []
        for species in ("first", "second"):
            edit = urllib.parse.urlencode({"f": "json", "adds": json.dumps(
                [{"attributes": {"species": species}, "geometry": {"x": 13.21, "y": 52.41}}])}).encode()
            with urllib.request.urlopen(f"{root}/rest/services/Demo/FeatureServer/2/applyEdits", data=edit) as response:
                assert json.loads(response.read())["addResults"][0]["success"]
            made = run("backup", backups, "--data", data)
            assert made.returncode == 0, made.stderr
            folders.append(made.stdout.split(":")[0])
            time.sleep(0.01)  # backups are named to the millisecond

    # Without --latest: refused, naming both, newest first, each with its UTC time; nothing made.
    refused = run("restore", backups, "--data", str(tmp_path / "refused"))
    assert refused.returncode != 0 and "no Outpost backup" not in refused.stderr, refused.stderr
    assert "holds 2 backups, not one: name one, or add --latest for the newest" in refused.stderr, refused.stderr
    listed = [line.split()[0] for line in refused.stderr.splitlines() if line.strip().startswith(backups)]
    assert listed == folders[::-1], refused.stderr
    assert len(re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", refused.stderr)) == 2, refused.stderr
    assert not os.path.exists(tmp_path / "refused")

    # --latest restores the newest: it holds both edits.
    restored = str(tmp_path / "restored")
    done = run("restore", backups, "--latest", "--data", restored)
    assert done.returncode == 0, done.stderr
    assert f"restoring the newest backup in {backups}: {folders[1]}" in done.stdout, done.stdout
    with running_server(restored) as root:
        assert count(root, "first") == 1 and count(root, "second") == 1

    # A backup named directly is restored as before, with or without --latest.
    older = str(tmp_path / "older")
    assert run("restore", folders[0], "--latest", "--data", older).returncode == 0
    with running_server(older) as root:
        assert count(root, "first") == 1 and count(root, "second") == 0
