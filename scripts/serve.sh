#!/usr/bin/env bash
# Installs what is missing, builds, and runs `outpost serve` on the embedded default
# (./outpost-data, seeded with the demo services on first start). Extra arguments go to serve.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product outpost --static-swift-stdlib -Xlinker --strip-debug
exec .build/release/outpost serve "$@"
