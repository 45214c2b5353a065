#!/usr/bin/env python3
"""Backups while devices sync (issue 26), on a 1,000,000-point store (release build):
  1. `outpost backup` of the data folder while 10 clients sync in a loop (each sync: 10 adds
     and a download), against `sqlite3 .backup` of the same database file with nothing
     running, in the same run, rounds rotating which goes first (goal <= 1.5x);
  2. the clients' sync p99 while the backup runs, against their p99 for as long with no
     backup (goal <= 2x).
  3. the machine's own slowdown under that load: `sqlite3 .backup` of a copy of the database
     that nobody writes, while the clients sync, against the same idle (what any copy of this
     size loses to ten busy clients and a server on two cores).
  4. what `--keep 1` adds: removing the previous backup, while the clients sync.
Last, once: `sqlite3 .backup` while the clients sync, stopped after 30 s. Its backup copies
100 pages a step and starts over whenever another process writes in between, so under steady
syncs it may never finish (recorded as null). It runs after the rounds: its restarts leave the
server busy for a while, which would weigh on the rounds after it.
Medians of --rounds. Usage: python3 bench/backup.py [--binary PATH] [--rounds N].
Writes bench/out/backup.json.
"""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import threading
import time

from harness import OUT, arguments, imported_data, machine, post, start_server
from sync import SERVICE, current_generation, gid, register

CLIENTS = 10


def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.99 * len(ordered))) - 1)] if ordered else None


class Clients:
    """CLIENTS devices syncing 10 adds each, one sync after another, until stopped."""

    def __init__(self, port, replicas, generation):
        self.port, self.replicas = port, replicas
        # Each device's server generation, kept from one round of syncs to the next as a device
        # keeps it: a device that started over from its registration's generation every round
        # would download every earlier round's adds, and its first sync of a round would take
        # seconds (what the earlier "stalled rounds" were).
        self.generations = [generation] * len(replicas)
        self.latencies, self.errors, self.lock = [], [], threading.Lock()
        # (when the answer arrived, the GlobalIDs it acknowledged) for every successful sync.
        self.acknowledged = []
        self.stop = threading.Event()
        self.recording = False

    def run(self, index):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        while not self.stop.is_set():
            generation = self.generations[index]
            edits = [{"id": 0, "features": {"adds": [
                {"attributes": {"GlobalID": gid(), "name": f"device{index}", "value": index}, "geometry": {"x": index, "y": 20}}
                for _ in range(10)]}}]
            started = time.perf_counter()
            answer = post(connection, f"{SERVICE}/synchronizeReplica", {
                "f": "json", "replicaID": self.replicas[index], "transportType": "esriTransportTypeEmbedded",
                "syncLayers": json.dumps([{"id": 0, "serverGen": generation, "syncDirection": "bidirectional"}]),
                "edits": json.dumps(edits)})
            answered = time.perf_counter()
            elapsed = answered - started
            with self.lock:
                if "error" in answer or not all(r["success"] for r in answer["edits"][0]["addResults"]):
                    self.errors.append(answer)
                    continue
                self.acknowledged.append((answered, [add["attributes"]["GlobalID"] for add in edits[0]["features"]["adds"]]))
                if self.recording:
                    self.latencies.append(elapsed)
            self.generations[index] = answer.get("layerServerGens", [{"serverGen": generation}])[0]["serverGen"]

    def measure(self, seconds=None, during=None):
        """Latencies of the syncs made for `seconds`, or while `during()` runs (its result returned)."""
        with self.lock:
            self.latencies, self.recording = [], True
        result = during() if during else time.sleep(seconds)
        with self.lock:
            self.recording = False
            return list(self.latencies), result


def timed(command, limit=None):
    """Seconds the command took; None when it ran past `limit` and was stopped."""
    started = time.perf_counter()
    try:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - started


def main():
    args = arguments()
    data = imported_data(args.binary, "backup-bench", [("Million", 1_000_000)])
    backups = os.path.join(OUT, "backup-bench-backups")
    copy = os.path.join(OUT, "backup-bench-sqlite3.sqlite")
    quiet, quiet_out = os.path.join(OUT, "backup-bench-quiet.sqlite"), os.path.join(OUT, "backup-bench-quiet-out.sqlite")
    process, port, connection = start_server(args.binary, data)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "points": 1_000_000, "clients": CLIENTS}
    try:
        generation = current_generation(connection)
        clients = Clients(port, [register(connection, f"device-{i}", generation) for i in range(CLIENTS)], generation)
        runs = {"outpost_backup_while_syncing_s": [], "sqlite3_backup_idle_s": [], "p99_without_s": [], "p99_during_s": [],
                "sqlite3_backup_of_a_quiet_copy_while_syncing_s": [], "keep_1_removing_the_previous_backup_s": []}
        subprocess.run(["sqlite3", os.path.join(data, "outpost.sqlite"), f".backup '{quiet}'"], check=True)

        def sqlite3_quiet_copy():
            if os.path.exists(quiet_out):
                os.remove(quiet_out)
            return timed(["sqlite3", quiet, f".backup '{quiet_out}'"])

        def outpost_backup():
            # Both sides time writing a backup: sqlite3's previous copy is removed before it is
            # timed, and the previous round's backup after that round (`rotation`), timed on
            # its own, which is what `--keep 1` adds.
            return timed([args.binary, "backup", backups, "--data", data])

        def rotation():
            """Seconds `--keep 1` spends removing the previous backup, while the clients sync."""
            older = sorted(os.listdir(backups))[:-1]
            started = time.perf_counter()
            for name in older:
                shutil.rmtree(os.path.join(backups, name))
            return time.perf_counter() - started

        def sqlite3_idle(limit=None):
            if os.path.exists(copy):
                os.remove(copy)
            return timed(["sqlite3", os.path.join(data, "outpost.sqlite"), f".backup '{copy}'"], limit)

        for round_ in range(args.rounds):
            # Odd rounds copy idle first, even rounds after the busy backup.
            idle = sqlite3_idle() if round_ % 2 else None
            threads = [threading.Thread(target=clients.run, args=(i,)) for i in range(CLIENTS)]
            clients.stop.clear()
            for thread in threads:
                thread.start()
            time.sleep(2)
            during, seconds = clients.measure(during=outpost_backup)
            without, _ = clients.measure(seconds=seconds)
            loaded = sqlite3_quiet_copy()
            removed = rotation()
            clients.stop.set()
            for thread in threads:
                thread.join()
            if idle is None:
                idle = sqlite3_idle()
            runs["outpost_backup_while_syncing_s"].append(seconds)
            runs["sqlite3_backup_idle_s"].append(idle)
            runs["p99_during_s"].append(p99(during))
            runs["p99_without_s"].append(p99(without))
            runs["sqlite3_backup_of_a_quiet_copy_while_syncing_s"].append(loaded)
            runs["keep_1_removing_the_previous_backup_s"].append(removed)
            print(f"round {round_ + 1}: outpost backup while syncing {seconds:.2f} s, sqlite3 .backup idle {idle:.2f} s, "
                  f"sync p99 {p99(during):.3f} s during / {p99(without):.3f} s without ({len(during)}/{len(without)} syncs), "
                  f"sqlite3 .backup of a quiet copy while syncing {loaded:.2f} s, removing the previous backup {removed:.2f} s", flush=True)
        # Once, last: sqlite3's own backup while the clients sync.
        threads = [threading.Thread(target=clients.run, args=(i,)) for i in range(CLIENTS)]
        clients.stop.clear()
        for thread in threads:
            thread.start()
        time.sleep(2)
        busy = sqlite3_idle(limit=30)
        clients.stop.set()
        for thread in threads:
            thread.join()
        results["sqlite3_backup_while_syncing_s"] = None if busy is None else round(busy, 3)
        print(f"sqlite3 .backup while syncing: {'not done in 30 s' if busy is None else f'{busy:.2f} s'}", flush=True)
        medians = {name: statistics.median(values) for name, values in runs.items()}
        results.update({name: round(value, 3) for name, value in medians.items()})
        results["backup_ratio"] = round(medians["outpost_backup_while_syncing_s"] / medians["sqlite3_backup_idle_s"], 2)
        results["p99_ratio"] = round(medians["p99_during_s"] / medians["p99_without_s"], 2)
        results["load_slowdown_of_a_quiet_copy"] = round(
            medians["sqlite3_backup_of_a_quiet_copy_while_syncing_s"] / medians["sqlite3_backup_idle_s"], 2)
        results["sync_errors"] = len(clients.errors)
        results["runs"] = runs
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(backups, ignore_errors=True)
        for leftover in (copy, quiet, quiet_out):
            if os.path.exists(leftover):
                os.remove(leftover)
    with open(os.path.join(OUT, "backup.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps({k: v for k, v in results.items() if k not in ("machine", "runs")}, indent=2))


if __name__ == "__main__":
    main()
