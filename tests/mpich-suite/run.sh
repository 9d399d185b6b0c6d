#!/usr/bin/env bash
# tests/mpich-suite/run.sh: MPICH's own conformance suite (test/mpi of the
# MPICH 4.0.2 tarball) on both installs, install/vanilla then install/vaced,
# and a comparison of what each passes.  The patched build must pass every
# test the unpatched one passes, with the same process counts.
#
#   tests/mpich-suite/run.sh                  the full chosen set (hours on 2 cores)
#   tests/mpich-suite/run.sh --subset         the quick subset for CI (tests/mpich-suite/subset.txt)
#   tests/mpich-suite/run.sh --dirs pt2pt,coll
#
# Options:
#   --subset         only the tests listed in tests/mpich-suite/subset.txt
#   --rank-lines     run vaced with every rank's line on (VACED_QUIET=0): the
#                    filter drops those whole lines, so a line of the program's
#                    that one of them split would fail its test
#   --dirs A,B,...   only these directories of test/mpi (default: the full set below)
#   --timeout S      per-test time limit for tests whose testlist line sets none (default 180;
#                    60 with --subset, whose tests take at most a few seconds)
#   --stall S        end a test whose processes have all used no CPU time for S seconds
#                    (a deadlock; mpiexec-filter.sh's watchdog), instead of waiting for
#                    its time limit (default 60; 0: off)
#   --maxnp N        cap every test's process count at N (default: the testlists' counts)
#   --target T       VACED_TARGET for the patched build (default paper-1024, 1024 cores)
#   --out PREFIX     write PREFIX.md and PREFIX.csv (default results/mpich-suite for the
#                    full set, results/mpich-suite-subset for --subset, build/mpich-suite/last
#                    for --dirs)
#   --jobs N         parallel make when building the test programs (default: nproc)
#   --work DIR       work directory (default build/mpich-suite; a new one starts cold)
#   --reuse-vanilla  keep the vanilla results of the last run if it had the same settings
#                    and the same vanilla install (vanilla does not change when vaced does)
#   -h, --help       this text
#
# Needs ./build.sh to have made both installs; it does not run build.sh.
# Work files (test sources, the two configured test trees, runtests logs and
# JUnit files) are in build/mpich-suite/.  The tests run one at a time
# (runtests is serial), vanilla first, then vaced with VACED_QUIET=1 (unless
# VACED_QUIET is set; 0 with --rank-lines) and the target above.  runtests fails a test whose
# output has any line besides "No Errors", so both builds run through
# mpiexec-filter.sh, which drops rank 0's "vaced: prediction ..." line and
# vaced's warnings that a prediction is approximate, nothing else.  The
# filter is copied to the work directory when the run starts, so editing it
# during a run does not break a test that starts it at that moment.
#
# Prints per-directory counts for both builds, every regression (passes on
# vanilla, not on vaced) and every test that passes on vaced only, and ends
# with "N passed, M failed" (a test passes unless it is a regression).
# Exits 1 if there is a regression, 2 on a usage or setup error.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$ROOT/build/mpich-suite
TARBALL=$ROOT/build/download/mpich_4.0.2.orig.tar.xz
TARBALL_DIR=mpich-4.0.2/test/mpi

# The full set: the test directories of test/mpi that apply to ch3:sock
# without ROMIO (both installs provide MPI_THREAD_MULTIPLE, so threads too),
# then the language bindings (Fortran 77, 90 and C++ tests over the same
# library).  Left out (README.md says why): io, basic, util, dtpools, perf,
# ft, ckpoint, and f08 (configure leaves it out: f08dir is empty).
SUBSET_FILE=$HERE/subset.txt
FULL_DIRS=pt2pt,coll,comm,datatype,group,init,topo,errhan,attr,info,rma,spawn,mpi_t,part,threads,errors,impls,f77,f90,cxx

CONFIGURE_OPTS=(--disable-romio --disable-ft-tests --disable-perftest --enable-threads=multiple)
# The subset has C tests only: without the Fortran and C++ checks configure
# takes half the time (37 s instead of 66 s on the 2-core VM).
SUBSET_CONFIGURE_OPTS=(--enable-fortran=no --disable-cxx)

say() { printf '[mpich-suite] %s\n' "$*"; }
die() { printf '[mpich-suite] error: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
# VACED_QUIET for the patched build: every rank's line with --rank-lines,
# else rank 0's job line only (unless VACED_QUIET is set).
vaced_quiet() { if [ "${rank_lines:-0}" = 1 ]; then echo 0; else echo "${VACED_QUIET:-1}"; fi; }

# test/mpi sources, extracted once from the tarball (its size and mtime as stamp).
extract_sources() {
    local stamp
    stamp=$(stat -c '%s %Y' "$TARBALL")
    if [ "$(cat "$WORK/src/.tarball-stamp" 2>/dev/null)" = "$stamp" ]; then
        return
    fi
    say "extracting test/mpi from $(basename "$TARBALL")"
    rm -rf "$WORK/src" "$WORK/vanilla" "$WORK/vaced"
    mkdir -p "$WORK/src"
    tar -xf "$TARBALL" -C "$WORK/src" --strip-components=3 "$TARBALL_DIR"
    [ -x "$WORK/src/configure" ] || die "the tarball has no $TARBALL_DIR/configure"
    echo "$stamp" >"$WORK/src/.tarball-stamp"
}

# What identifies an install: build.sh's stamp and the library's mtime.
install_stamp() {
    echo "$(cat "$ROOT/install/$1/.vaced-stamp" 2>/dev/null) $(stat -L -c '%Y %s' "$ROOT/install/$1/lib/libmpi.so")"
}

# Configures test/mpi against install/$1 in build/mpich-suite/$1 (a VPATH
# build).  A rebuilt install gets a fresh tree, so no test program built
# against the old one is run.
configure_tree() {
    local b=$1 prefix=$ROOT/install/$1 obj=$WORK/$1
    local args=(--with-mpi="$prefix" "${CONFIGURE_OPTS[@]}")
    local want
    want="$(install_stamp "$b") ${args[*]}"
    if [ -f "$obj/config.status" ] && [ "$(cat "$obj/.suite-stamp" 2>/dev/null)" = "$want" ]; then
        return
    fi
    say "$b: configuring test/mpi against $prefix (about a minute)"
    local t0=$SECONDS
    rm -rf "$obj" && mkdir -p "$obj"
    if ! (cd "$obj" && "$WORK/src/configure" "${args[@]}" >"$obj/configure.log" 2>&1); then
        tail -n 30 "$obj/configure.log" >&2
        die "$b: configure failed; full log: $obj/configure.log"
    fi
    echo "$want" >"$obj/.suite-stamp"
    t_configure=$((t_configure + SECONDS - t0))
}

# The testlists runtests reads in $obj/$d, as MPICH's own "make testing":
# the directory's testlist, then the generated testlist.dtp (DTPools
# datatypes) and testlist.cvar (every collective algorithm, in coll) where
# configure made them.  For --subset, the lines of the directory's testlist
# that subset.txt names ("dir/program [np]", or "dir/*" for all of them;
# dir may be a subdirectory such as threads/pt2pt).
# subset.txt without comments and blank lines.
subset_lines() {
    sed 's/#.*//' "$SUBSET_FILE" | awk 'NF'
}

testlists_for() {
    local obj=$1 d=$2 list
    if [ $subset -eq 0 ]; then
        echo testlist,testlist.dtp,testlist.cvar
        return
    fi
    list=$obj/$d/testlist
    [ -f "$list" ] || list=$WORK/src/$d/testlist
    [ -f "$list" ] || die "$d has no testlist"
    subset_lines | awk -v d="$d" '{ n = split($1, p, "/"); dir = p[1]; for (i = 2; i < n; i++) dir = dir "/" p[i];
                                    if (dir == d) print }' |
        while read -r prog np; do
            prog=${prog##*/}
            if [ "$prog" = "*" ]; then
                grep -v '^\s*#' "$list" | grep .
            else
                awk -v p="$prog" -v n="$np" '$1 == p && (n == "" || $2 == n)' "$list" | grep . ||
                    die "subset.txt: no line '$d/$prog${np:+ $np}' in $list"
            fi
        done >"$obj/$d/testlist.subset" || exit 2
    echo testlist.subset
}

# Test programs built in parallel up front (runtests would build them one
# by one), also in the subdirectories a testlist names (threads/pt2pt...);
# a program that does not build is reported by runtests as a failure.
build_dir() {
    local obj=$1 d=$2 lists=$3 list entries progs=() e
    entries=$(IFS=,; for list in $lists; do
                  if [ -f "$obj/$d/$list" ]; then
                      cat "$obj/$d/$list"
                  elif [ -f "$WORK/src/$d/$list" ]; then
                      cat "$WORK/src/$d/$list"
                  fi
              done | sed 's/#.*//' | awk 'NF && $1 !~ /^!/ {print $1}' | sort -u)
    for e in $entries; do
        if [ -d "$obj/$d/$e" ]; then
            build_dir "$obj" "$d/$e" "$lists"
        else
            progs+=("$e")
        fi
    done
    [ ${#progs[@]} -gt 0 ] || return 0
    make -k -j"$jobs" -C "$obj/$d" "${progs[@]}" >"$obj/$d/build.log" 2>&1 || true
}

# Processes left behind by a test of this tree (a timeout that hydra did not
# clean up): ended by pid, only if their program is in $1.
kill_strays() {
    local obj=$1 p exe pids=()
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$obj"/*) pids+=("${p#/proc/}") ;; esac
    done
    [ ${#pids[@]} -gt 0 ] || return 0
    say "ending ${#pids[@]} leftover test processes: ${pids[*]}"
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

run_build() {
    local b=$1 obj=$WORK/$1 res=$WORK/results/$1 d f list t0 t1 rc
    mkdir -p "$res"
    : >"$res/times.tsv"
    say "$b: building the utility libraries"
    local t_start=$SECONDS
    make -j"$jobs" -C "$obj/util" >"$obj/util/build.log" 2>&1 || die "$b: test/mpi/util does not build; see $obj/util/build.log"
    make -j"$jobs" -C "$obj/dtpools" >"$obj/dtpools/build.log" 2>&1 || die "$b: test/mpi/dtpools does not build; see $obj/dtpools/build.log"
    t_build=$((t_build + SECONDS - t_start))
    local env=(env -u VACED_TARGET -u VACED_QUIET -u VACED_JSON -u VACED_TOPO_DIR)
    if [ "$b" = vaced ]; then
        env=(env -u VACED_JSON VACED_TARGET="$target" VACED_QUIET="$(vaced_quiet)")
        [ "$rank_lines" = 1 ] && env+=(MPICH_SUITE_RANK_LINES=1)
    fi
    for d in "${DIRS[@]}"; do
        [ -d "$obj/$d" ] || die "$b: no directory '$d' in test/mpi (configured out?)"
        f=${d//\//_}
        list=$(testlists_for "$obj" "$d")
        say "$b: $d: building"
        t_start=$SECONDS
        build_dir "$obj" "$d" "$list"
        t_build=$((t_build + SECONDS - t_start))
        say "$b: $d: running (built in $((SECONDS - t_start)) s)"
        t0=$(date +%s.%N)
        set +e
        (cd "$obj" && "${env[@]}" MPITEST_TIMEOUT="$timeout" MPICH_SUITE_MPIEXEC="$ROOT/install/$b/bin/mpiexec" \
            MPICH_SUITE_DROPPED="$res/$f.dropped" MPICH_SUITE_STALL="$stall" \
            ./runtests -srcdir="$WORK/src" -tests="$list" -testdirs="$d" ${maxnp:+-maxnp=$maxnp} \
            -mpiexec="$WORK/mpiexec-filter.sh" -junitfile="$res/$f.junit.xml" >"$res/$f.log" 2>&1)
        rc=$?
        set -e
        t1=$(date +%s.%N)
        kill_strays "$obj"
        printf '%s\t%.1f\t%d\n' "$d" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$rc" >>"$res/times.tsv"
        if [ -f "$res/$f.junit.xml" ]; then
            say "$b: $d: $(grep -E 'tests (passed|failed)' "$res/$f.log" | tail -n 1 | sed 's/^ *//') ($(tail -n 1 "$res/times.tsv" | cut -f2) s)"
        else
            say "$b: $d: runtests did not run (exit $rc): $(tail -n 1 "$res/$f.log")"
        fi
    done
}

parse_args() {
    subset=0
    dirs=""
    timeout=""
    stall=60
    maxnp=""
    target=paper-1024
    out=""
    jobs=$(nproc)
    reuse_vanilla=0
    rank_lines=0
    while [ $# -gt 0 ]; do
        case $1 in
            --subset) subset=1 ;;
            --rank-lines) rank_lines=1 ;;
            --reuse-vanilla) reuse_vanilla=1 ;;
            --work) [ $# -ge 2 ] || die "--work needs a directory"; WORK=$2; shift ;;
            --work=*) WORK=${1#*=} ;;
            --dirs) [ $# -ge 2 ] || die "--dirs needs a list"; dirs=$2; shift ;;
            --dirs=*) dirs=${1#*=} ;;
            --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout=$2; shift ;;
            --timeout=*) timeout=${1#*=} ;;
            --stall) [ $# -ge 2 ] || die "--stall needs seconds"; stall=$2; shift ;;
            --stall=*) stall=${1#*=} ;;
            --maxnp) [ $# -ge 2 ] || die "--maxnp needs a number"; maxnp=$2; shift ;;
            --maxnp=*) maxnp=${1#*=} ;;
            --target) [ $# -ge 2 ] || die "--target needs a name"; target=$2; shift ;;
            --target=*) target=${1#*=} ;;
            --out) [ $# -ge 2 ] || die "--out needs a prefix"; out=$2; shift ;;
            --out=*) out=${1#*=} ;;
            --jobs|-j) [ $# -ge 2 ] || die "$1 needs a number"; jobs=$2; shift ;;
            --jobs=*) jobs=${1#*=} ;;
            -j[0-9]*) jobs=${1#-j} ;;
            -h|--help) usage; exit 0 ;;
            *) die "unknown argument '$1' (see --help)" ;;
        esac
        shift
    done
    case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
    if [ -z "$timeout" ]; then
        timeout=180
        [ $subset -eq 1 ] && timeout=60
    fi
    [ $subset -eq 1 ] && CONFIGURE_OPTS+=("${SUBSET_CONFIGURE_OPTS[@]}")
    [[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds, not '$timeout'"
    [[ $stall =~ ^[0-9]+$ ]] || die "--stall wants seconds (0: off), not '$stall'"
    [[ -z $maxnp || $maxnp =~ ^[1-9][0-9]*$ ]] || die "--maxnp wants a positive number, not '$maxnp'"
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, not '$jobs'"

    if [ -z "$dirs" ]; then
        if [ $subset -eq 1 ]; then
            [ -f "$SUBSET_FILE" ] || die "no $SUBSET_FILE"
            dirs=$(subset_lines | awk '{ n = split($1, p, "/"); dir = p[1]; for (i = 2; i < n; i++) dir = dir "/" p[i];
                                         if (!seen[dir]++) print dir }' | paste -sd,)
        else
            dirs=$FULL_DIRS
        fi
    fi
    IFS=, read -r -a DIRS <<<"$dirs"
    [ ${#DIRS[@]} -gt 0 ] || die "no directories to run"
    if [ -z "$out" ]; then
        if [ $subset -eq 1 ]; then
            out=$ROOT/results/mpich-suite-subset
        elif [ "$dirs" = "$FULL_DIRS" ]; then
            out=$ROOT/results/mpich-suite
        else
            out=$WORK/last
        fi
    fi
    case $out in /*) ;; *) out=$PWD/$out ;; esac

    for tool in perl python3 make tar xz flock; do
        command -v "$tool" >/dev/null || die "needs '$tool' (apt-get install $tool)"
    done
    [ -f "$TARBALL" ] || die "no MPICH tarball at $TARBALL: run ./build.sh first"
    for b in vanilla vaced; do
        for f in bin/mpicc bin/mpiexec lib/libmpi.so; do
            [ -e "$ROOT/install/$b/$f" ] || die "install/$b/$f is missing: run ./build.sh (or wait for the build running now)"
        done
    done
}

# What a build's results depend on, for --reuse-vanilla.  Not --stall: the
# watchdog only ends deadlocked jobs, which would fail at their time limit.
run_key() {
    local lists=all
    [ $subset -eq 1 ] && lists="subset $(sha256sum <"$SUBSET_FILE" | cut -c1-16)"
    echo "install $(install_stamp "$1"); configure ${CONFIGURE_OPTS[*]}; dirs $dirs; lists $lists;" \
         "timeout $timeout; maxnp ${maxnp:-none}"
}

main() {
    local command="tests/mpich-suite/run.sh${*:+ $*}"
    parse_args "$@"
    mkdir -p "$WORK"
    exec 9>"$WORK/.lock"
    flock -n 9 || die "another run.sh is using $WORK (lock $WORK/.lock)"
    local start stamps elapsed mode rc changed=""
    t_configure=0
    t_build=0
    start=$(date +%s)
    install -m 755 "$HERE/mpiexec-filter.sh" "$WORK/mpiexec-filter.sh"
    stamps="$(install_stamp vanilla) $(install_stamp vaced)"
    extract_sources
    local reused="" todo=()
    for b in vanilla vaced; do
        if [ "$b" = vanilla ] && [ $reuse_vanilla -eq 1 ] &&
           [ "$(head -n 1 "$WORK/results/$b/run-key" 2>/dev/null)" = "$(run_key "$b")" ]; then
            reused="vanilla results reused from the run of $(sed -n 2p "$WORK/results/$b/run-key") (--reuse-vanilla)"
            say "$reused"
            continue
        fi
        [ "$b" = vanilla ] && [ $reuse_vanilla -eq 1 ] && say "vanilla: no earlier results with the same settings: running it"
        rm -rf "${WORK:?}/results/$b"
        configure_tree "$b"
        todo+=("$b")
    done
    for b in "${todo[@]}"; do
        run_build "$b"
        { run_key "$b"; date -u '+%Y-%m-%d %H:%M UTC'; } >"$WORK/results/$b/run-key"
    done
    elapsed=$(( $(date +%s) - start ))
    if [ "$(install_stamp vanilla) $(install_stamp vaced)" != "$stamps" ]; then
        changed="WARNING: an install was rebuilt during this run; its results are not trustworthy"
        say "$changed"
    fi

    local lists_text="lists testlist, testlist.dtp, testlist.cvar as in MPICH's make testing"
    [ $subset -eq 1 ] && lists_text="the lines of the directories' testlists that subset.txt names"
    mode="full set"
    [ $subset -eq 1 ] && mode="subset (tests/mpich-suite/subset.txt)"
    [ $subset -eq 0 ] && [ "$dirs" != "$FULL_DIRS" ] && mode="directories $dirs"
    set +e
    python3 "$HERE/compare.py" --results "$WORK/results" --dirs "$(IFS=,; echo "${DIRS[*]}")" --out "$out" \
        --diagnoses "$HERE/diagnoses.txt" --append "$HERE/analysis.md" \
        --settings "command: \`$command\`" \
        --settings "run: $mode, $(date -u '+%Y-%m-%d %H:%M UTC'), install built from commit $(cat "$ROOT/install/vaced/.vaced-commit" 2>/dev/null || echo '?'), $(nproc) cores" \
        --settings "MPICH 4.0.2 test/mpi, configured with ${CONFIGURE_OPTS[*]}; $lists_text; xfail tests not run" \
        --settings "per-test timeout ${timeout} s unless the testlist sets one; a test whose processes all used no CPU time for ${stall} s ended as a hang (0: off); process counts: ${maxnp:+at most $maxnp, else }the testlists'" \
        --settings "vaced run with VACED_TARGET=$target VACED_QUIET=$(vaced_quiet); both builds through mpiexec-filter.sh" \
        --settings "total time including configure and builds: ${elapsed} s (configure ${t_configure} s, building the test programs and their libraries ${t_build} s)" \
        ${reused:+--settings "$reused"} ${changed:+--settings "$changed"}
    rc=$?
    set -e
    if [ -n "$changed" ] && [ $rc -eq 0 ]; then
        rc=2
    fi
    return $rc
}

# One line, so that bash has read all of it before running: editing this
# file during a run does not disturb the run.
main "$@"; exit $?
