#!/usr/bin/env python3
"""Importing what organisations have (issue 25): 1,000,000 generated points as a Shapefile and
as a File Geodatabase (both written by GDAL from the generator of `run.py`), each imported by
`outpost import` (through `ogr2ogr` to a GeoPackage, then Outpost's GeoPackage import) beside
`ogr2ogr` alone writing the same data to a GeoPackage, in the same run, rounds rotating which
goes first; medians of `--rounds`, and each import's peak RSS.
Usage: python3 bench/import_gdal.py [--binary PATH] [--rounds N]. Writes bench/out/import_gdal.json.
"""
import json
import os
import shutil
import statistics
import subprocess
import time

from harness import OUT, arguments, machine
from run import generate


def timed(command):
    """(seconds, peak RSS MiB) of a command, its own and its children's."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, command
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def main():
    args = arguments()
    source = os.path.join(OUT, "points-1000000.geojson")
    if not os.path.exists(source):
        generate(source, 1_000_000)
    sources = {"shapefile": os.path.join(OUT, "gdal-points.shp"), "filegdb": os.path.join(OUT, "gdal-points.gdb")}
    if not os.path.exists(sources["shapefile"]):
        subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", sources["shapefile"], source, "-nln", "points"], check=True)
    if not os.path.exists(sources["filegdb"]):
        subprocess.run(["ogr2ogr", "-f", "OpenFileGDB", sources["filegdb"], source, "-nln", "points"], check=True)
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "points": 1_000_000}
    for kind, path in sources.items():
        target = os.path.join(OUT, "gdal-target.gpkg")
        data = os.path.join(OUT, "gdal-import-data")

        def ogr2ogr():
            if os.path.exists(target):
                os.remove(target)
            return timed(["ogr2ogr", "-f", "GPKG", target, path])

        def outpost():
            shutil.rmtree(data, ignore_errors=True)
            return timed([args.binary, "import", path, "--service", "Points", "--data", data])

        runs = {"ogr2ogr": [], "outpost": []}
        for run in range(args.rounds):
            for name, step in ((("ogr2ogr", ogr2ogr), ("outpost", outpost)) if run % 2 == 0 else (("outpost", outpost), ("ogr2ogr", ogr2ogr))):
                runs[name].append(step())
                print(f"{kind} {name} round {run + 1}: {runs[name][-1][0]:.1f} s, peak {runs[name][-1][1]:.0f} MiB", flush=True)
        seconds = {name: statistics.median(t for t, _ in values) for name, values in runs.items()}
        results[kind] = {
            "ogr2ogr_to_geopackage_s": round(seconds["ogr2ogr"], 2), "outpost_import_s": round(seconds["outpost"], 2),
            "ratio": round(seconds["outpost"] / seconds["ogr2ogr"], 2),
            "outpost_peak_rss_mib": round(max(m for _, m in runs["outpost"]), 1),
            "runs": {name: [[round(t, 2), round(m, 1)] for t, m in values] for name, values in runs.items()},
        }
        shutil.rmtree(data, ignore_errors=True)
        if os.path.exists(target):
            os.remove(target)
    with open(os.path.join(OUT, "import_gdal.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps({k: v for k, v in results.items() if k not in ("machine",)}, indent=2))


if __name__ == "__main__":
    main()
