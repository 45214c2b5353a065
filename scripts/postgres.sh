#!/usr/bin/env bash
# A throwaway PostgreSQL cluster with PostGIS on loopback, for the tests and benchmarks:
#   scripts/postgres.sh start DIR PORT   prints the URL of a fresh database `outpost_test`
#   scripts/postgres.sh stop DIR
#   scripts/postgres.sh restart DIR      (fast shutdown, then up again on the same port)
# fsync stays on (the tests check crash behaviour, the benchmarks compare with SQLite's).
set -euo pipefail
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_owner() {
    # initdb refuses to run as root: the cluster belongs to the postgres user then.
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "${1:-}" in
start)
    dir=$2 port=$3
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    as_owner "$BIN/initdb" -D "$dir/data" -U outpost --auth=trust -E UTF8 --no-instructions >/dev/null
    as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB -c max_wal_size=256MB -c min_wal_size=64MB" start >/dev/null
    "$BIN/psql" -q -h 127.0.0.1 -p "$port" -U outpost -d postgres -c "CREATE DATABASE outpost_test" >/dev/null
    echo "postgres://outpost@127.0.0.1:$port/outpost_test"
    ;;
restart)
    dir=$2
    as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w restart >/dev/null
    ;;
stop)
    dir=$2
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
    ;;
*)
    echo "usage: $0 start DIR PORT | stop DIR | restart DIR" >&2
    exit 2
    ;;
esac
