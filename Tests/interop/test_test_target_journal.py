"""`serve --test-target --seed 42`: the request journal of an `outpost map take-offline`
(docs/testing-your-app.md, "Journal"). Two servers on fresh data folders, the same client run
against each: each journal lists exactly the client's requests, in order; the two hold the
same ids (all drawn from the seed) and, service by service, the same requests but for timings;
`outpost test journal` prints them.

The client takes the map's services offline concurrently: how requests of different services
interleave is the machine's, but each service's requests draw their ids from the service's own
seeded stream (`IdentifierSeed`), so service by service the requests, ids included, are equal."""
import itertools
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.request

from conftest import BINARY, ROOT, on_backend, outpost

DEMO_MAP = "de3000000000000000000000000000a1"
TIMINGS = {"time", "durationMs"}


def start_target(data):
    """`outpost serve --test-target --seed 42 --port 0 --ready-file F`: the process and its URL
    (read from the ready file: nothing polls the server, so nothing but the client is journaled)."""
    ready = os.path.join(data, "ready")
    arguments = on_backend([BINARY, "serve", "--test-target", "--seed", "42", "--port", "0", "--data", data,
                            "--testdata", os.path.join(ROOT, "testdata"), "--ready-file", ready])
    log = open(os.path.join(data + ".log"), "wb")
    process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 90
    while not os.path.exists(ready):
        if process.poll() is not None or time.time() > deadline:
            process.kill()
            raise RuntimeError("outpost did not start:\n" + open(data + ".log", errors="replace").read())
        time.sleep(0.1)
    with open(ready) as file:
        return process, file.readline().strip()


def journal(url):
    with urllib.request.urlopen(f"{url}/_outpost/journal?f=json") as response:
        return json.loads(response.read())["entries"]


def without_timings(entry):
    return {key: value for key, value in entry.items() if key not in TIMINGS}


# A GlobalID, a replica or job id, a result file's name: 32 hex digits, with or without hyphens and braces.
ID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")


def ids(entries):
    """Every id the journal holds, as 32 lowercase hex digits."""
    return {found.replace("-", "").lower() for found in ID.findall(json.dumps(entries))}


def by_service(entries):
    """Each service's requests (the portal's under None), ids as drawn, consecutive identical
    ones (a client polling a job's status: how many polls a job takes depends on the machine's
    speed) as one, timings and `seq` (services interleave) left out."""
    services = {}
    for entry in entries:
        services.setdefault(entry["service"], []).append(entry)
    canonical = {}
    for service, requests in services.items():
        texts = [json.dumps({**without_timings(e), "seq": None}, sort_keys=True) for e in requests]
        canonical[service] = [text for text, _ in itertools.groupby(texts)]
    return canonical


def take_offline_journal(tmp_path, run):
    data = tempfile.mkdtemp(prefix=f"outpost-journal-{run}-")
    process, url = start_target(data)
    try:
        folder = tmp_path / f"offline-{run}"
        taken = outpost("map", "take-offline", DEMO_MAP, "--server", f"{url}/arcgis", "--area", "13.2,52.4,13.26,52.46", "--no-basemap",
                        "--out", str(folder))
        assert "not taken" not in taken.stdout, taken.stdout
        entries = journal(url)
        printed = subprocess.run([BINARY, "test", "journal", "--url", url], capture_output=True, text=True, timeout=60, check=True).stdout
        return entries, printed
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_a_take_offline_is_journaled_the_same_on_two_seeded_servers(tmp_path):
    first, printed = take_offline_journal(tmp_path, 1)
    second, _ = take_offline_journal(tmp_path, 2)

    # Exactly the client's requests: numbered from 1 without a gap, in the order answered (`time`
    # is when each arrived: concurrent ones may finish out of that order),
    # every one an ArcGIS request (the control API's own are not journaled).
    assert [entry["seq"] for entry in first] == list(range(1, len(first) + 1))
    assert all(entry["path"].startswith("/arcgis/") for entry in first), [e["path"] for e in first]
    operations = [entry["operation"] for entry in first]
    assert operations[0] == "portal", operations
    for expected in ("createReplica", "replicaFile"):
        assert expected in operations, operations
    assert all(entry["status"] in (200, 206) and entry["errorCode"] is None for entry in first), [(e["path"], e["status"], e["errorCode"]) for e in first]
    replicas = {entry["replicaId"] for entry in first if entry["operation"] == "createReplica"}
    assert replicas and None not in replicas, replicas

    # The same run on another seeded server journals the same requests with the same ids,
    # service by service, timings aside.
    assert ids(first) == ids(second), ids(first) ^ ids(second)
    left, right = by_service(first), by_service(second)
    assert left.keys() == right.keys()
    for service in left:
        differing = [(a, b) for a, b in zip(left[service], right[service]) if a != b]
        assert len(left[service]) == len(right[service]) and not differing, (service, differing[:2] or (left[service], right[service]))

    # `outpost test journal` prints a line per request: seq, time, method, operation, service, status, error, ms.
    lines = printed.splitlines()
    assert len(lines) == len(first), printed
    for line, entry in zip(lines, first):
        fields = line.split("\t")
        assert fields[0] == str(entry["seq"]) and fields[2] == entry["method"] and fields[3] == entry["operation"], line
        assert fields[5] == str(entry["status"]) and fields[7].endswith("ms"), line
