"""What Outpost says is done survives a power loss (issue 26): a file is flushed before it is
renamed into place and its folder after, as SQLite flushes its own commits. Watched with
strace, since a power loss cannot be pulled on loopback: the order of fsync, fdatasync,
rename and link calls is the contract (docs/reliability.md, "Files on disk")."""
import os
import re
import subprocess
import time

import pytest

from conftest import BINARY, outpost, running_server, spatialite_pass_only
from test_adversarial import server_pid
from test_object_storage import multipart

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


def test_an_attachment_file_is_on_disk_before_its_row_commits(tmp_path):
    data, log = str(tmp_path / "data"), str(tmp_path / "server.strace")
    os.makedirs(data)
    with running_server(data) as root:
        tracer = traced(server_pid(data), log)
        try:
            added = multipart(f"{root}/rest/services/Demo/FeatureServer/0/10/addAttachment", {"f": "json"},
                              {"attachment": ("photo.jpg", os.urandom(50_000))})
            assert added["addAttachmentResult"]["success"], added
        finally:
            tracer.terminate()
            tracer.wait(timeout=10)
    found = calls(log)
    placed = [(index, paths) for index, (kind, paths) in enumerate(found)
              if kind == "name" and len(paths) == 2 and ".partial" in paths[0] and "/attachments/" in paths[1]]
    assert placed, f"no attachment file was renamed or linked into place: {found}"
    for index, (staged, target) in placed:
        assert synced_before(found, index, staged), f"{staged} was not flushed before it became {target}"
        assert synced_after(found, index, os.path.dirname(target)), f"{os.path.dirname(target)} was not flushed after {target}"
    # The row naming it commits after the file is in place: SQLite's flush of the WAL follows.
    last_placed = placed[-1][0]
    assert any(kind == "sync" and any(path.endswith("outpost.sqlite-wal") for path in paths) for kind, paths in found[last_placed + 1:])


def test_a_backup_is_on_disk_before_it_takes_its_name(tmp_path):
    data, backups, log = str(tmp_path / "data"), str(tmp_path / "backups"), str(tmp_path / "backup.strace")
    os.makedirs(data)
    with running_server(data) as root:
        multipart(f"{root}/rest/services/Demo/FeatureServer/0/10/addAttachment", {"f": "json"},
                  {"attachment": ("photo.jpg", os.urandom(50_000))})
    subprocess.run(["strace", "-f", "-y", "-qq", "-e", CALLS, "-o", log, BINARY, "backup", backups, "--data", data],
                   check=True, capture_output=True)
    [name] = [entry for entry in os.listdir(backups) if entry.startswith("outpost-backup-")]
    folder = os.path.join(backups, name)
    found = calls(log)
    [renamed] = [index for index, (kind, paths) in enumerate(found) if kind == "name" and paths[-1:] == [folder]]
    partial = found[renamed][1][0]
    files, folders = [], [partial]
    for parent, subfolders, names in os.walk(folder):
        relative = os.path.relpath(parent, folder)
        folders += [os.path.normpath(os.path.join(partial, relative, sub)) for sub in subfolders]
        files += [os.path.normpath(os.path.join(partial, relative, entry)) for entry in names]
    assert any("/attachments/" in path for path in files), files
    for path in files + folders:
        assert synced_before(found, renamed, path), f"{os.path.relpath(path, partial)} was not flushed before the backup took its name"
    assert synced_after(found, renamed, backups), "the backups folder was not flushed after the rename"
    # And the backup restores.
    outpost("restore", folder, "--data", str(tmp_path / "restored"))
