#!/usr/bin/env python3
"""Outpost request-body benchmarks over HTTP on loopback (release builds), as ratios against a
baseline binary run in the same invocation (the machine is shared and noisy):
  1. a 64 MiB file through `uploads/upload` (multipart, streamed to disk);
  2. a 64 MiB attachment through `addAttachment` (multipart);
  3. `applyEdits` with 10,000 point adds (a form-encoded body of ~2 MiB);
  4. server peak memory (VmHWM) after the runs.
Each figure is the median of --runs requests, the two binaries taking turns.

Usage: python3 bench/uploads.py --baseline PATH [--binary PATH] [--runs N]
Writes bench/out/uploads.json.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import time
import urllib.parse

from harness import machine, start_server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
SERVICE = "/arcgis/rest/services/Demo/FeatureServer"
MiB = 1024 * 1024


def multipart(fields, file_field, name, data):
    boundary = "----outpost-bench-boundary"
    head = "".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in fields)
    head += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{file_field}\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    return f"multipart/form-data; boundary={boundary}", head.encode() + data + f"\r\n--{boundary}--\r\n".encode()


def timed(port, path, content_type, body):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    started = time.perf_counter()
    connection.request("POST", path, body=body, headers={"Content-Type": content_type})
    answer = connection.getresponse().read()
    elapsed = time.perf_counter() - started
    connection.close()
    parsed = json.loads(answer)
    assert "error" not in parsed, parsed
    return elapsed, parsed


def peak_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class Target:
    def __init__(self, label, binary):
        self.label, self.binary = label, binary
        self.data = os.path.join(OUT, f"uploads-{label}")
        shutil.rmtree(self.data, ignore_errors=True)
        self.process, self.port, connection = start_server(binary, self.data, "--max-upload-mb", "256", cwd=ROOT)
        connection.close()
        self.times = {"upload": [], "attachment": [], "applyEdits": []}

    def run_once(self, payload, adds_body):
        content_type, body = multipart([("f", "json")], "file", "bench.bin", payload)
        elapsed, answer = timed(self.port, f"{SERVICE}/uploads/upload", content_type, body)
        self.times["upload"].append(elapsed)
        timed(self.port, f"{SERVICE}/uploads/{answer['item']['itemID']}/delete", "application/x-www-form-urlencoded", b"f=json")
        content_type, body = multipart([("f", "json")], "attachment", "bench.bin", payload)
        elapsed, _ = timed(self.port, f"{SERVICE}/0/1/addAttachment", content_type, body)
        self.times["attachment"].append(elapsed)
        elapsed, _ = timed(self.port, f"{SERVICE}/2/applyEdits", "application/x-www-form-urlencoded", adds_body)
        self.times["applyEdits"].append(elapsed)

    def stop(self):
        self.peak = peak_kib(self.process.pid) / 1024
        self.process.terminate()
        self.process.wait(timeout=30)
        shutil.rmtree(self.data, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--baseline", required=True, help="a release build of the commit to compare with")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    payload = random.Random(7).randbytes(64 * MiB)
    rng = random.Random(5)
    adds = [{"attributes": {"species": "bench", "height_m": rng.uniform(2, 30), "healthy": 1},
             "geometry": {"x": 13.2 + rng.random() * 0.4, "y": 52.4 + rng.random() * 0.2}} for _ in range(10_000)]
    adds_body = urllib.parse.urlencode({"f": "json", "adds": json.dumps(adds)}).encode()
    targets = [Target("baseline", args.baseline), Target("current", args.binary)]
    try:
        for _ in range(args.runs):
            for target in targets:
                target.run_once(payload, adds_body)
    finally:
        for target in targets:
            target.stop()
    results = {"machine": machine(), "runs": args.runs, "figures": {}}
    for kind in ("upload", "attachment", "applyEdits"):
        base, current = (statistics.median(t.times[kind]) for t in targets)
        results["figures"][kind] = {"baseline_s": round(base, 4), "current_s": round(current, 4), "ratio": round(current / base, 3)}
        print(f"{kind:12s} baseline {base * 1000:8.1f} ms   current {current * 1000:8.1f} ms   ratio {current / base:.2f}")
    results["peak_rss_mib"] = {t.label: round(t.peak) for t in targets}
    print(f"peak RSS     baseline {targets[0].peak:8.0f} MiB  current {targets[1].peak:8.0f} MiB")
    print(results["machine"])
    with open(os.path.join(OUT, "uploads.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
