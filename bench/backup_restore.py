#!/usr/bin/env python3
"""A backup taken while 50 devices sync restores whole (issue 26), on the 1,000,000-point store
(release build): 50 clients sync 10 adds at a time, as in bench/sync.py's 50-client phase;
`outpost backup` starts while they run; `outpost restore` puts it in a new folder, which must
pass `PRAGMA integrity_check`, hold every add acknowledged before the backup began, and serve.
Usage: python3 bench/backup_restore.py [--binary PATH]. Writes bench/out/backup_restore.json.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time

from backup import Clients
from harness import OUT, arguments, imported_data, machine, post, start_server
from sync import SERVICE, current_generation, register

CLIENTS = 50


def present(connection, global_ids):
    """How many of the GlobalIDs the server holds (queries of 200 at a time)."""
    found = 0
    for start in range(0, len(global_ids), 200):
        chunk = global_ids[start:start + 200]
        where = "GlobalID IN (" + ",".join(f"'{g}'" for g in chunk) + ")"
        found += post(connection, f"{SERVICE}/0/query", {"f": "json", "where": where, "returnCountOnly": "true"})["count"]
    return found


def main():
    args = arguments(rounds=1)
    data = imported_data(args.binary, "backup-restore-bench", [("Million", 1_000_000)])
    backups, restored = os.path.join(OUT, "backup-restore-backups"), os.path.join(OUT, "backup-restore-restored")
    shutil.rmtree(backups, ignore_errors=True)
    shutil.rmtree(restored, ignore_errors=True)
    process, port, connection = start_server(args.binary, data)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "points": 1_000_000, "clients": CLIENTS}
    try:
        generation = current_generation(connection)
        clients = Clients(port, [register(connection, f"device-{i}", generation) for i in range(CLIENTS)], generation)
        threads = [threading.Thread(target=clients.run, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        time.sleep(5)
        began = time.perf_counter()
        backup = subprocess.run([args.binary, "backup", backups, "--data", data], capture_output=True, text=True, check=True)
        finished = time.perf_counter()
        time.sleep(2)
        clients.stop.set()
        for thread in threads:
            thread.join()
    finally:
        process.terminate()
        process.wait(timeout=30)
    before = [g for answered, ids in clients.acknowledged if answered < began for g in ids]
    during = [g for answered, ids in clients.acknowledged if began <= answered < finished for g in ids]
    folder = backup.stdout.split(":", 1)[0]
    subprocess.run([args.binary, "restore", folder, "--data", restored], check=True, stdout=subprocess.DEVNULL)
    with sqlite3.connect(os.path.join(restored, "outpost.sqlite")) as db:
        integrity = db.execute("PRAGMA integrity_check").fetchall()
    process, port, connection = start_server(args.binary, restored, "--no-demo")
    try:
        kept = present(connection, before)
        kept_during = present(connection, during)
        count = post(connection, f"{SERVICE}/0/query", {"f": "json", "where": "1=1", "returnCountOnly": "true"})["count"]
    finally:
        process.terminate()
        process.wait(timeout=30)
    results.update({
        "backup_s": round(finished - began, 3), "sync_errors": len(clients.errors),
        "acknowledged_before_backup": len(before), "restored_of_those": kept,
        "acknowledged_while_backing_up": len(during), "restored_of_those_while_backing_up": kept_during,
        "integrity_check": [row[0] for row in integrity], "restored_features": count})
    shutil.rmtree(backups, ignore_errors=True)
    shutil.rmtree(restored, ignore_errors=True)
    with open(os.path.join(OUT, "backup_restore.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps({k: v for k, v in results.items() if k != "machine"}, indent=2))
    assert integrity == [("ok",)] and kept == len(before) and not clients.errors, "the restore lost an acknowledged edit"


if __name__ == "__main__":
    main()
