#!/usr/bin/env bash
# The whole test suite: unit tests of vaced/ (no MPICH needed), then MPI
# integration tests against the patched install, which it first brings up
# to date with ./build.sh (seconds when nothing changed).
# Ends with one line "N passed, M failed"; exits non-zero if any failed.
#
#   tests/run.sh            everything
#   tests/run.sh unit       unit tests only (no MPICH build)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
TEST_PACKAGES=(libmpich-dev python3 iproute2 util-linux procps perl make xz-utils libsimgrid-dev chromium clang libclang-rt-dev)
passed=0
failed=0
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT

# Runs one suite that ends with "N passed, M failed" and adds its counts;
# a suite that dies without that line counts as one failure.
suite() {
    local name=$1; shift
    local log summary
    log=$(mktemp)
    echo "== $name"
    set +e
    "$@" 2>&1 | tee "$log"
    set -e
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
    # failing checks are repeated at the end, where a truncated log still shows them
    grep -E '^FAIL|CHECK failed' "$log" | sed "s|^|[$name] |" >>"$failures" || true
    if [ -z "$summary" ]; then
        echo "FAIL $name: ended without a summary line"
        echo "[$name] ended without a summary line" >>"$failures"
        failed=$((failed + 1))
    else
        passed=$((passed + ${summary%% passed*}))
        failed=$((failed + $(echo "$summary" | sed -E 's/.* ([0-9]+) failed$/\1/')))
    fi
    rm -f "$log"
}

# Debian's mpicc (for the relinking test) and python3 for the MPI driver;
# perl, make and xz-utils for MPICH's own test suite (its runtests is perl);
# SimGrid's SMPI for the export to SimGrid; Chromium to look at the report;
# clang for a second compiler's view of libvaced, and with libFuzzer's
# runtime (libclang-rt-dev, only recommended by clang) for the fuzzers.
install_test_packages() {
    local missing=()
    for p in "${TEST_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return
    if [ "$(id -u)" -ne 0 ]; then
        echo "note: missing Debian packages ${missing[*]}: their tests will fail (install them as root)"
        return
    fi
    echo "installing test packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >"$BUILD/apt-tests.log" 2>&1 ||
        { apt-get update -q >>"$BUILD/apt-tests.log" 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >>"$BUILD/apt-tests.log" 2>&1; } ||
        echo "note: could not install ${missing[*]} (see $BUILD/apt-tests.log)"
}

mkdir -p "$BUILD"
# libvaced's headers come from Debian packages (libpfm4-dev) that build.sh
# installs: on a fresh machine the unit tests build only after them.
"$ROOT/build.sh" packages || echo "note: build.sh could not install its Debian packages; the unit tests may not build"
echo "== building unit tests"
if make -s -C "$ROOT/vaced" O="$BUILD/vaced" units; then
    for t in "$BUILD"/vaced/unit/test_*; do
        [ "${t%.d}" = "$t" ] || continue        # make's dependency files
        suite "unit: $(basename "$t")" "$t" "$ROOT"
    done
else
    echo "FAIL: unit tests do not build" | tee -a "$failures"
    failed=$((failed + 1))
fi
suite "unit: the simulator calls no libm function" "$ROOT/tests/tools/test_no_libm.sh" "$ROOT" "$BUILD/vaced/libvaced.a"
suite "unit: the program's clocks tell target time" "$ROOT/tests/tools/test_program_clocks.sh" "$ROOT" "$BUILD/vaced/libvaced.a"
suite "unit: vaced-calibrate's fits" python3 "$ROOT/tests/tools/test_calibrate_fits.py" "$ROOT"
suite "unit: the validation report's arithmetic" python3 "$ROOT/tests/tools/test_report.py" "$ROOT"
suite "unit: the microbenchmark report's arithmetic" python3 "$ROOT/tests/tools/test_micro_report.py" "$ROOT"
suite "unit: the weak-scaling and host-invariance reports' arithmetic" python3 "$ROOT/tests/tools/test_host_reports.py" "$ROOT"
suite "unit: the record-and-replay benchmark's report and record sizes" python3 "$ROOT/tests/tools/test_replay_report.py" "$ROOT"
suite "unit: the harnesses' check of the localhost description (bench/lib/topo-c.sh)" "$ROOT/tests/tools/test_topo_c.sh" "$ROOT"
suite "unit: vaced run's checks of the host's limits for large jobs" python3 "$ROOT/tests/tools/test_jobsize.py" "$ROOT"

if [ "${1:-all}" != unit ]; then
    echo "== ./build.sh"
    if "$ROOT/build.sh"; then
        install_test_packages
        suite "unit: libvaced and its unit tests built with clang" "$ROOT/tests/tools/test_units_clang.sh" "$ROOT" \
            "$BUILD/vaced-clang"
        # each fuzzer a fixed number of executions (tens of seconds); longer: tests/fuzz/run.sh
        suite "fuzzers, a short run" "$ROOT/tests/fuzz/ci.sh" "$ROOT"
        suite "MPI integration" python3 "$ROOT/tests/mpi/test_predictions.py" "$ROOT"
        suite "per-call and per-call-site tables (C, Fortran)" python3 "$ROOT/tests/mpi/test_calls.py" "$ROOT"
        # MPI_THREAD_MULTIPLE, 20 runs: the call tables go off, not corrupt
        suite "MPI from several threads at once" python3 "$ROOT/tests/mpi/test_threads.py" "$ROOT"
        # a record re-timed on its own target and on others, against live runs
        suite "record and replay" python3 "$ROOT/tests/mpi/test_replay.py" "$ROOT"
        suite "vaced front end" "$ROOT/tests/tools/test_vaced_cli.sh" "$ROOT"
        # 1024 ranks on one host, and a job the host's limits refuse (about a minute)
        suite "a 1024-rank job through vaced run" python3 "$ROOT/tests/mpi/test_large.py" "$ROOT"
        # a record's files truncated, corrupted, missing or foreign: vaced replay refuses them
        suite "vaced replay on bad records" python3 "$ROOT/tests/tools/test_record_input.py" "$ROOT"
        suite "vaced sweep: replays of a record over targets" python3 "$ROOT/tests/tools/test_sweep.py" "$ROOT"
        suite "vaced otf2: traces of real programs as OTF2, read back" python3 "$ROOT/tests/tools/test_otf2.py" "$ROOT"
        suite "vaced report: the page in headless Chromium" python3 "$ROOT/tests/tools/test_html_report.py" "$ROOT"
        # pipelines, a token ring and an imbalanced allreduce, whose critical path is known
        suite "the critical path of programs built to have a known one" python3 "$ROOT/tests/mpi/test_critical_path.py" "$ROOT"
        suite "the export to SimGrid, and SMPI on it" python3 "$ROOT/tests/tools/test_export_simgrid.py" "$ROOT"
        suite "calibration on this host" "$ROOT/tests/tools/test_calibrate_local.sh" "$ROOT"
        suite "one binary for both builds (bench/lib/apps.sh)" "$ROOT/tests/tools/test_apps_lib.sh" "$ROOT"
        suite "compute segments, vanilla and vaced (bench/segtime.c)" "$ROOT/tests/tools/test_segtime.sh" "$ROOT"
        # several host nodes as network namespaces (real TCP between them)
        suite "hosts in network namespaces" "$ROOT/tests/netns/test_multihost.sh" "$ROOT"
        suite "calibration on an emulated link" "$ROOT/tests/netns/test_calibrate.sh" "$ROOT"
        # 10^6 messages with flat memory and a closed-form prediction (seconds:
        # long enough for samples to 90 % of the messages over shared-memory
        # rings; tests/longrun/longrun.sh alone runs 10^7)
        suite "long run, 10^6 messages" "$ROOT/tests/longrun/longrun.sh" --messages 1000000
        # MPICH's own test/mpi, a CI subset, on install/vanilla and install/vaced
        # (about 6 minutes cold); fails only what vanilla passes and vaced does not
        suite "MPICH test suite (subset)" "$ROOT/tests/mpich-suite/run.sh" --subset --rank-lines --out "$BUILD/mpich-suite/subset"
    else
        echo "FAIL: ./build.sh" | tee -a "$failures"
        failed=$((failed + 1))
    fi
fi

if [ -s "$failures" ]; then
    echo "== failed checks"
    cat "$failures"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
