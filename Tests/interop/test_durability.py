"""What Outpost says is done survives a power loss (issue 26): a file is flushed before it is
renamed into place and its folder after, as SQLite flushes its own commits. Watched with
strace, since a power loss cannot be pulled on loopback: the order of fsync, fdatasync,
rename and link calls is the contract (docs/reliability.md, "Crash safety"; docs/operations.md,
"Backups")."""
import os
import re
import subprocess
import time

import pytest

from conftest import BINARY, running_server, spatialite_pass_only
from test_adversarial import server_pid
from test_object_storage import multipart, post

DEMO_MAP = "de3000000000000000000000000000a1"

pytestmark = spatialite_pass_only("attachment files and backups of a data folder")

CALLS = "trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat"
LINE = re.compile(r'^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)')


def calls(log):
    """(call, [paths]) of each successful call in an `strace -y` log: the descriptors' paths
    for fsync and fdatasync, the paths given for rename and link."""
    found = []
    for line in open(log):
        match = LINE.match(line)
        if not match or match.group(3) != "0":
            continue
        name, arguments = match.group(1), match.group(2)
        if name in ("fsync", "fdatasync"):
            found.append(("sync", re.findall(r"<([^>]*)>", arguments)))
        else:
            found.append(("name", re.findall(r'"([^"]*)"', arguments)))
    return found


def synced_before(found, index, path):
    return any(kind == "sync" and path in paths for kind, paths in found[:index])


def synced_after(found, index, path):
    return any(kind == "sync" and path in paths for kind, paths in found[index + 1:])


def traced(pid, log):
    """Attaches strace to a running process; returns it once attached."""
    tracer = subprocess.Popen(["strace", "-f", "-y", "-qq", "-e", CALLS, "-o", log, "-p", str(pid)])
    deadline = time.time() + 10
    while "TracerPid:\t0" in open(f"/proc/{pid}/status").read():
        assert time.time() < deadline, "strace did not attach"
        time.sleep(0.05)
    return tracer


@pytest.fixture(autouse=True)
def strace_installed():
    if subprocess.run(["which", "strace"], capture_output=True).returncode != 0:
        pytest.fail("strace is not installed: scripts/setup.sh installs it")


def served_and_traced(tmp_path, request):
    """The strace log of a new server while `request(root)` runs."""
    data, log = str(tmp_path / "data"), str(tmp_path / "server.strace")
    os.makedirs(data)
    with running_server(data) as root:
        tracer = traced(server_pid(data), log)
        try:
            request(root)
        finally:
            tracer.terminate()
            tracer.wait(timeout=10)
    return calls(log)


def assert_placed_durably(found, place):
    """Each file renamed or linked from a temporary name into a path containing `place` was
    flushed before, its folder after, and the WAL flushed after that (the row's commit)."""
    placed = [(index, paths) for index, (kind, paths) in enumerate(found)
              if kind == "name" and len(paths) == 2 and ".partial" in paths[0] and place in paths[1]]
    assert placed, f"no file was renamed or linked into {place}: {found}"
    for index, (staged, target) in placed:
        assert synced_before(found, index, staged), f"{staged} was not flushed before it became {target}"
        assert synced_after(found, index, os.path.dirname(target)), f"{os.path.dirname(target)} was not flushed after {target}"
    last_placed = placed[-1][0]
    assert any(kind == "sync" and any(path.endswith("outpost.sqlite-wal") for path in paths) for kind, paths in found[last_placed + 1:])


def renamed_to(found, name):
    """The index of the rename to `name` and the name it had before."""
    [(index, paths)] = [(index, paths) for index, (kind, paths) in enumerate(found) if kind == "name" and paths[-1:] == [name]]
    return index, paths[0]


def assert_folder_durable(found, renamed, staged, final, parent):
    """Every file and folder of `final` was flushed under its staging name `staged` before the
    rename into place (call `renamed`), and `parent` after it."""
    files, folders = [], [staged]
    for directory, subfolders, names in os.walk(final):
        relative = os.path.relpath(directory, final)
        folders += [os.path.normpath(os.path.join(staged, relative, sub)) for sub in subfolders]
        files += [os.path.normpath(os.path.join(staged, relative, entry)) for entry in names]
    assert any("/attachments/" in path for path in files), files
    for path in files + folders:
        assert synced_before(found, renamed, path), f"{os.path.relpath(path, staged)} was not flushed before {final} took its name"
    assert synced_after(found, renamed, parent), f"{parent} was not flushed after the rename"


def test_an_attachment_file_is_on_disk_before_its_row_commits(tmp_path):
    def add(root):
        added = multipart(f"{root}/rest/services/Demo/FeatureServer/0/10/addAttachment", {"f": "json"},
                          {"attachment": ("photo.jpg", os.urandom(50_000))})
        assert added["addAttachmentResult"]["success"], added
    assert_placed_durably(served_and_traced(tmp_path, add), "/attachments/")


def test_a_portal_item_file_is_on_disk_before_its_row_commits(tmp_path):
    def add(root):
        added = post(f"{root}/sharing/rest/content/users/outpost/items/{DEMO_MAP}/addResources",
                     {"f": "json", "text": "field notes", "fileName": "notes.txt"})
        assert added["success"] is True, added
    found = served_and_traced(tmp_path, add)
    assert_placed_durably(found, "/resources/notes.txt")
    resource = next(paths[1] for kind, paths in found if kind == "name" and paths[-1].endswith("/resources/notes.txt"))
    # The item's folders may be new: each on the way up to items/ is flushed.
    for folder in (os.path.dirname(resource), os.path.dirname(os.path.dirname(resource))):
        assert any(kind == "sync" and folder in paths for kind, paths in found), f"{folder} was not flushed"


def test_a_backup_and_its_restore_are_on_disk_before_they_take_their_names(tmp_path):
    data, backups = str(tmp_path / "data"), str(tmp_path / "backups")
    os.makedirs(data)
    with running_server(data) as root:
        multipart(f"{root}/rest/services/Demo/FeatureServer/0/10/addAttachment", {"f": "json"},
                  {"attachment": ("photo.jpg", os.urandom(50_000))})
    log = str(tmp_path / "backup.strace")
    subprocess.run(["strace", "-f", "-y", "-qq", "-e", CALLS, "-o", log, BINARY, "backup", backups, "--data", data],
                   check=True, capture_output=True)
    [name] = [entry for entry in os.listdir(backups) if entry.startswith("outpost-backup-")]
    folder = os.path.join(backups, name)
    found = calls(log)
    renamed, staged = renamed_to(found, folder)
    assert_folder_durable(found, renamed, staged, folder, backups)

    # The restore, into a folder named relative to the working directory, as an operator types it.
    log = str(tmp_path / "restore.strace")
    subprocess.run(["strace", "-f", "-y", "-qq", "-e", CALLS, "-o", log, BINARY, "restore", folder, "--data", "restored"],
                   check=True, capture_output=True, cwd=tmp_path)
    restored = str(tmp_path / "restored")
    found = calls(log)
    renamed, staged = renamed_to(found, restored)
    assert_folder_durable(found, renamed, staged, restored, str(tmp_path))
