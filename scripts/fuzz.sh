#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of the parsers of untrusted input (FuzzTesting/).
#
#   scripts/fuzz.sh [TARGET...]        every target, or those named (FuzzWhere or where)
#   scripts/fuzz.sh --build-only       builds, runs nothing (scripts/test.sh builds first,
#                                      then fuzzes beside an interop pass)
#   scripts/fuzz.sh --built [TARGET...]  runs what the last build made
#
# Builds FuzzTesting once with the address sanitizer, then runs each target for
# FUZZ_SECONDS (default 300) seconds, FUZZ_JOBS (default 2) at a time, from a scratch copy of
# its seed corpus (FuzzTesting/Corpus/<target>: new inputs stay out of the repository) with its
# dictionary (FuzzTesting/<target>.dict). A crash, a sanitizer report, a broken property, an
# input that takes longer than the target's timeout or more than 2 GiB is a finding: its input
# is kept under FuzzTesting/.build/findings/<target>/ and the script exits non-zero. It ends
# with each target's executions and a line "N passed, M failed".
#
# Reproduce a finding:   FuzzTesting/.build/debug/<target> <finding file>
# Minimise it:           FuzzTesting/.build/debug/<target> -minimize_crash=1 -runs=100000 <finding file>
set -euo pipefail
cd "$(dirname "$0")/../FuzzTesting"

BUILD=yes
case "${1:-}" in
--build-only) BUILD=only; shift ;;
--built) BUILD=no; shift ;;
esac

SECONDS_EACH="${FUZZ_SECONDS:-300}"
# Times each target's timeout per input: run beside other work at the lowest priority (as
# scripts/test.sh runs it), an input may wait seconds for a core, which is no finding.
TIMEOUT_FACTOR="${FUZZ_TIMEOUT_FACTOR:-1}"
JOBS="${FUZZ_JOBS:-2}"
# Debug: half the build time of release (3.7 against 7.5 minutes from clean on 2 cores; the
# sanitizer flags apply to every dependency too) for a half to a quarter of the executions,
# and it finds the same bugs. FUZZ_CONFIGURATION=release for long runs.
CONFIGURATION="${FUZZ_CONFIGURATION:-debug}"

# Target, then its timeout per input in seconds: the pure parsers must answer well within the
# one second of CPU a request may take (a sanitized debug build runs several times slower
# than the server); opening a GeoPackage does file and SQLite work.
TARGETS=(
    FuzzWhere:2 FuzzItemSearch:2 FuzzGeometry:2 FuzzTileAddress:2 FuzzRefreshSchedule:2
    FuzzForms:2 FuzzWebMap:2 FuzzBackupManifest:2 FuzzGeoPackage:10 FuzzTileExport:2 FuzzQuantization:2 FuzzRequestHead:2 FuzzOAuth:2
    FuzzIDToken:2 FuzzZipDirectory:2 FuzzHome:2 FuzzCSV:2 FuzzGeocode:2 FuzzRoute:2 FuzzLocatorFile:10
)

selected=()
if [ $# -eq 0 ]; then
    selected=("${TARGETS[@]}")
else
    for wanted in "$@"; do
        found=""
        for entry in "${TARGETS[@]}"; do
            name="${entry%%:*}"
            # `where`, `item-search`, `FuzzWhere` all name FuzzWhere.
            short=$(echo "${name#Fuzz}" | tr '[:upper:]' '[:lower:]')
            if [ "$wanted" = "$name" ] || [ "$(echo "$wanted" | tr -d '_-' | tr '[:upper:]' '[:lower:]')" = "$short" ]; then
                found="$entry"
            fi
        done
        if [ -z "$found" ]; then
            echo "fuzz.sh: no target '$wanted' (targets: ${TARGETS[*]%%:*})" >&2
            exit 2
        fi
        selected+=("$found")
    done
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/outpost-fuzz.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

if [ "$BUILD" != no ]; then
    echo "== building FuzzTesting ($CONFIGURATION, -sanitize=fuzzer,address)"
    build_start=$(date +%s)
    # The targets' own files are compiled again every run (a few seconds): an incremental build
    # kept a target's object made against an older layout of Outpost's types, and ASan reported
    # a stack-buffer-overflow in a value witness that a clean build does not have.
    touch Sources/Fuzz*/*.swift
    if ! swift build -c "$CONFIGURATION" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$SCRATCH/build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$SCRATCH/build.log" | tail -40
        echo "fuzz.sh: the build failed" >&2
        exit 1
    fi
    echo "== built in $(($(date +%s) - build_start)) s"
fi
[ "$BUILD" = only ] && exit 0
BIN="$PWD/.build/$CONFIGURATION"

FINDINGS="$PWD/.build/findings"
# The Swift runtime's backtracer would race libFuzzer's own crash handling; ASan's leak check
# runs through libFuzzer (-detect_leaks).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:symbolize=1}"

# Runs one target; its libFuzzer output goes to $SCRATCH/<target>.log, its status to .status.
run_target() {
    local name="$1" timeout="$2"
    local corpus="$SCRATCH/$name/corpus" artifacts="$FINDINGS/$name"
    mkdir -p "$corpus" "$artifacts"
    cp -R "Corpus/$name/." "$corpus/"
    local dict=()
    [ -f "$name.dict" ] && dict=(-dict="$PWD/$name.dict")
    local status=0
    "$BIN/$name" "$corpus" "${dict[@]}" -max_total_time="$SECONDS_EACH" -timeout="$((timeout * TIMEOUT_FACTOR))" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" >"$SCRATCH/$name.log" 2>&1 || status=$?
    echo "$status" >"$SCRATCH/$name.status"
}

echo "== fuzzing ${#selected[@]} target(s) for $SECONDS_EACH s each, $JOBS at a time"
running=0
for entry in "${selected[@]}"; do
    name="${entry%%:*}"
    rm -rf "${FINDINGS:?}/$name"
    run_target "$name" "${entry##*:}" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

passed=0
failed=0
printf '\n%-22s %14s  %s\n' target executions result
for entry in "${selected[@]}"; do
    name="${entry%%:*}"
    log="$SCRATCH/$name.log"
    status=$(cat "$SCRATCH/$name.status" 2>/dev/null || echo "?")
    executions=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    findings=$(find "$FINDINGS/$name" -type f 2>/dev/null | sort)
    if [ "$status" = "0" ] && [ -z "$findings" ]; then
        passed=$((passed + 1))
        printf '%-22s %14s  %s\n' "$name" "${executions:-?}" "passed"
    else
        failed=$((failed + 1))
        printf '%-22s %14s  %s\n' "$name" "${executions:-?}" "FAILED (libFuzzer exit $status)"
        for finding in $findings; do echo "    finding: $finding"; done
        # What broke, for the log: the report's first lines and the top of its stack.
        grep -aE "FUZZ PROPERTY BROKEN|Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY|^ +#[0-9]+ " "$log" |
            grep -avE "fuzzer::|__sanitizer_|libc\.so|libswiftCore|FuzzCommon|compiler-rt" | head -12 | cut -c1-300 | sed 's/^/    | /'
        cp "$log" "$FINDINGS/$name.log" 2>/dev/null || true
    fi
done
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
