#!/usr/bin/env bash
# The binary the container image test packs (test_image.py; the Dockerfile's `prebuilt` stage,
# `OUTPOST_BINARY=.build/image/outpost`): the debug build's `outpost` objects linked again with
# the Swift runtime in, then stripped of debug information (symbols kept). It runs SwiftPM's own
# link command for `outpost` (from .build/debug.yaml) with `-static-stdlib` and the libraries a
# static Foundation needs named, and writes nothing of the debug build: `swift build
# --static-swift-stdlib` would recompile modules against the static Foundation and leave them
# so, breaking the next ordinary build. A release build of its own took 16 of CI's 60 minutes.
#
#   scripts/image-binary.sh        after `swift build` (scripts/test.sh runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/image
python3 - <<'PY'
import json, re, subprocess

description = open(".build/debug.yaml").read()
# `outpost` for this machine's triple (`outpost-bench` and the like are other products).
start = re.search(r'^\s*"C\.outpost-[a-z0-9_]+-unknown-linux-gnu-debug\.exe":', description, re.M).start()
line = re.search(r"^\s*args: (\[.*\])$", description[start:], re.M)
arguments = json.loads(line.group(1))
output = arguments.index("-o") + 1
arguments[output] = ".build/image/outpost.linked"
# The static Foundation's own libraries, which its dynamic twin carries inside.
arguments += ["-static-stdlib", "-lCoreFoundation", "-l_FoundationCShims", "-l_FoundationCollections", "-l_FoundationICU",
              "-l_CFXMLInterface", "-lxml2", "-l_CFURLSessionInterface", "-lcurl"]
subprocess.run(arguments, check=True)
PY
objcopy --strip-debug .build/image/outpost.linked .build/image/outpost
rm .build/image/outpost.linked
