#!/usr/bin/env python3
"""Geocoding (issue 49's figures): N generated address points (default 1,000,000: seeded house
numbers on 4,000 streets in 40 towns) are imported, built into a point-address locator
(`outpost locator create`, timed) and geocoded over HTTP on loopback by single line
(`findAddressCandidates`, median and p95): exact addresses, and addresses with one letter of the
street changed (the trigram pass). The peer in the same run: PostgreSQL's own full text and
trigram search over the same rows (`to_tsvector('simple', …)` GIN and `gin_trgm_ops` indexes,
their build timed), queried in one persistent psql session with `\\timing`: the AND query for an
exact address, `<%` word similarity for a misspelt one. Each Outpost answer's best candidate must
be the asked address (exact ones): the benchmark checks what it times.

Needs the release build (`swift build -c release --product outpost`).
Usage: python3 bench/geocoding.py [--binary PATH] [--points 1000000] [--queries 60]. Writes
bench/out/geocoding.json.
"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.parse

from harness import OUT, ROOT, machine, start_server

FIRST = ["Oak", "Mill", "Church", "Station", "Hill", "Park", "Lake", "River", "Castle", "Market", "Bridge", "Garden", "Forest", "Meadow",
         "Spring", "Cedar", "Elm", "Maple", "Willow", "King", "Queen", "Prince", "North", "South", "High", "Long", "New", "Old", "Green",
         "Rose", "Victoria", "Albert", "George", "Baker", "Miller", "Fisher", "Cooper", "Turner", "Walker", "Harbour"]
SECOND = ["Street", "Road", "Lane", "Avenue", "Way", "Close", "Drive", "Court", "Place", "Terrace", "Crescent", "Grove", "Row", "Gardens",
          "Walk", "Hill", "Rise", "View", "Square", "Parade", "Mews", "Green", "Park", "Vale", "Yard"]
TOWNS = [f"{a}{b}" for a in ["Ash", "Bram", "Carl", "Dun", "El", "Fern", "Glen", "Hol"] for b in ["ford", "ton", "bury", "field", "wick"]]


def streets():
    """4,000 street names: every first and second word (1,000), then again with a number 2–4."""
    names = [f"{a} {b}" for a in FIRST for b in SECOND]
    return names + [f"{name} {n}" for n in (2, 3, 4) for name in names]


def addresses(count, seed=49):
    """(id, number, street, town, longitude, latitude): each street of each town numbered 1, 2, …"""
    rng = random.Random(seed)
    names = streets()
    combinations = len(names) * len(TOWNS)
    rows = []
    for i in range(count):
        street = names[i % len(names)]
        town = TOWNS[(i // len(names)) % len(TOWNS)]
        number = i // combinations + 1
        lon = 13.0 + (i % 1000) * 0.0008 + rng.random() * 0.0001
        lat = 52.2 + (i // 1000) % 1000 * 0.0008
        rows.append((i + 1, str(number), street, town, round(lon, 7), round(lat, 7)))
    return rows


def misspelt(street, rng):
    word = street.split(" ")[0]
    position = rng.randrange(1, len(word))
    changed = word[:position] + ("x" if word[position] != "x" else "y") + word[position + 1:]
    return street.replace(word, changed, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "outpost"))
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--port", type=int, default=55496)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="outpost-geocoding-bench-")
    os.chmod(work, 0o755)
    rows = addresses(args.points)
    geojson = os.path.join(work, "addresses.geojson")
    with open(geojson, "w") as out:
        out.write('{"type":"FeatureCollection","features":[\n')
        for i, (_, number, street, town, lon, lat) in enumerate(rows):
            out.write(("," if i else "") + json.dumps({"type": "Feature", "properties": {"NUM": number, "STREET": street, "TOWN": town},
                                                       "geometry": {"type": "Point", "coordinates": [lon, lat]}}) + "\n")
        out.write("]}\n")
    data = os.path.join(work, "data")
    os.makedirs(data)
    subprocess.run([args.binary, "import", geojson, "--service", "Addresses", "--data", data], check=True, capture_output=True)
    began = time.perf_counter()
    subprocess.run([args.binary, "locator", "create", "--name", "AddressPoints", "--service", "Addresses", "--layer", "0", "--kind", "pointAddress",
                    "--field", "houseNumber=NUM", "--field", "street=STREET", "--field", "locality=TOWN", "--data", data],
                   check=True, capture_output=True)
    build_seconds = time.perf_counter() - began

    rng = random.Random(7)
    asked = [rows[rng.randrange(len(rows))] for _ in range(args.queries)]
    exact = [f"{number} {street}, {town}" for _, number, street, town, _, _ in asked]
    typos = [f"{number} {misspelt(street, rng)}, {town}" for _, number, street, town, _, _ in asked]
    outpost = geocode_outpost(args.binary, data, exact, typos, asked)
    cluster = os.path.join(work, "cluster")
    script = os.path.join(ROOT, "scripts", "postgres.sh")
    url = subprocess.run([script, "start", cluster, str(args.port)], check=True, capture_output=True, text=True).stdout.strip()
    try:
        peer = search_postgres(url, work, rows, exact, typos)
    finally:
        subprocess.run([script, "stop", cluster], check=False, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)

    result = {"machine": machine(), "points": args.points, "queries": args.queries, "build_s": build_seconds,
              "postgres_index_s": peer["index_s"], "wrong_best": outpost["wrong"], "wrong_examples": outpost["wrong_examples"]}
    for name, times in (("outpost_exact", outpost["exact"]), ("outpost_misspelt", outpost["typos"]), ("postgres_fts", peer["exact"]),
                        ("postgres_trigram", peer["typos"])):
        ordered = sorted(times)
        result[name] = {"median_ms": statistics.median(times) * 1000, "p95_ms": ordered[max(int(len(ordered) * 0.95) - 1, 0)] * 1000}
    print(f"{args.points} addresses: locator built in {build_seconds:.1f} s; PostgreSQL's two indexes in {peer['index_s']:.1f} s")
    for name in ("outpost_exact", "postgres_fts", "outpost_misspelt", "postgres_trigram"):
        print(f"{name:18} median {result[name]['median_ms']:8.2f} ms   p95 {result[name]['p95_ms']:8.2f} ms")
    print(f"exact: Outpost over HTTP / PostgreSQL's full text {result['outpost_exact']['median_ms'] / result['postgres_fts']['median_ms']:.2f}x; "
          f"misspelt: / trigram {result['outpost_misspelt']['median_ms'] / result['postgres_trigram']['median_ms']:.2f}x; "
          f"{outpost['wrong']} exact addresses not found first")
    for example in outpost["wrong_examples"]:
        print(f"  asked {example['asked']!r}, best {example['best']!r}")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "geocoding.json"), "w") as out:
        json.dump(result, out, indent=1)


def geocode_outpost(binary, data, exact, typos, asked):
    process, _, connection = start_server(binary, data, "--no-demo")
    try:
        path = "/arcgis/rest/services/AddressPoints/GeocodeServer/findAddressCandidates"

        def ask(text):
            began = time.perf_counter()
            connection.request("GET", f"{path}?{urllib.parse.urlencode({'f': 'json', 'SingleLine': text, 'maxLocations': 10})}")
            answer = json.loads(connection.getresponse().read())
            return time.perf_counter() - began, answer

        for text in exact[:3]:
            ask(text)
        exact_times, typo_times, wrong, examples = [], [], 0, []
        for text, typo, (_, number, street, town, _, _) in zip(exact, typos, asked):
            seconds, answer = ask(text)
            exact_times.append(seconds)
            best = (answer.get("candidates") or [{}])[0].get("address", "")
            if not best.startswith(f"{number} {street}") or town not in best:
                wrong += 1
                examples.append({"asked": text, "best": best})
            typo_times.append(ask(typo)[0])
        return {"exact": exact_times, "typos": typo_times, "wrong": wrong, "wrong_examples": examples}
    finally:
        process.terminate()
        process.wait()


def search_postgres(url, work, rows, exact, typos):
    """The same rows' text in PostgreSQL with its own indexes; one session, `\\timing` per query."""
    path = os.path.join(work, "addresses.csv")
    with open(path, "w") as out:
        for identifier, number, street, town, _, _ in rows:
            out.write(f'{identifier},"{number} {street} {town}"\n')
    load = (f"CREATE EXTENSION IF NOT EXISTS pg_trgm;\nCREATE TABLE addresses (id bigint PRIMARY KEY, text text NOT NULL);\n"
            f"\\copy addresses FROM '{path}' WITH (FORMAT csv)\n")
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q"], input=load, text=True, check=True, capture_output=True)
    began = time.perf_counter()
    index = ("CREATE INDEX addresses_words ON addresses USING gin (to_tsvector('simple', text));\n"
             "CREATE INDEX addresses_trigrams ON addresses USING gin (text gin_trgm_ops);\nANALYZE addresses;\n")
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q"], input=index, text=True, check=True, capture_output=True)
    index_seconds = time.perf_counter() - began
    words = lambda text: " & ".join(re.findall(r"[a-z0-9]+", text.lower()))
    quote = lambda text: "'" + text.replace("'", "''") + "'"
    script = "\\timing on\nSET pg_trgm.word_similarity_threshold = 0.3;\n"
    for text in exact[:3] + exact:
        script += (f"SELECT id FROM addresses WHERE to_tsvector('simple', text) @@ to_tsquery('simple', {quote(words(text))}) "
                   f"ORDER BY ts_rank(to_tsvector('simple', text), to_tsquery('simple', {quote(words(text))})) DESC LIMIT 10;\n")
    for text in typos:
        plain = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
        script += f"SELECT id FROM addresses WHERE {quote(plain)} <% text ORDER BY word_similarity({quote(plain)}, text) DESC LIMIT 10;\n"
    output = subprocess.run(["psql", url, "-A", "-t", "-v", "ON_ERROR_STOP=1"], input=script, text=True, check=True, capture_output=True).stdout
    times = [float(t) / 1000 for t in re.findall(r"Time: ([0-9.]+) ms", output)][1:]  # the SET's
    return {"index_s": index_seconds, "exact": times[3:3 + len(exact)], "typos": times[3 + len(exact):]}


if __name__ == "__main__":
    main()
