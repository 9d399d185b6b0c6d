# One executable per program for both MPICH builds (sourced by
# bench/validate.sh and bench/run.sh).
#
# Why: the same binary can run slower from one file than from a
# byte-identical copy, until the page cache is dropped: the file's pages,
# not its code, make the difference, and it lasts as long as the file stays
# cached (measured: results/history.md).
# Built once per build, vanilla's apps and VACED's apps were two files, so a
# comparison of the two builds carried whatever the two placements did.
# Now the apps are built once (install/vanilla's compilers; both installs
# have identical headers, which apps_build checks), every run of either
# build executes the same file, and the build's libmpi is chosen with
# LD_LIBRARY_PATH (it overrides the compilers' DT_RUNPATH).  apps_stage
# copies the binaries to new files before each repetition, so that no single
# placement decides all the repetitions.
#
# Needs ROOT (the project) and a die function.

# apps_build OUT LOG [EXTRA.c...]: tests/apps and the extra C programs into
# OUT/build with install/vanilla's compilers
apps_build() {
    local out=$1 log=$2 src b; shift 2
    diff -rq "$ROOT/install/vanilla/include" "$ROOT/install/vaced/include" > /dev/null ||
        die "install/vanilla and install/vaced have different MPI headers: one binary cannot serve both (rebuild with ./build.sh)"
    make -s -C "$ROOT/tests/apps" PREFIX="$ROOT/install/vanilla" OUT="$out/build" > "$log" 2>&1 ||
        die "building the apps failed: see $log"
    for src in "$@"; do
        b=$out/build/$(basename "$src" .c)
        if [[ ! $b -nt $src || ! $b -nt $ROOT/install/vanilla/lib/libmpi.so ]]; then
            "$ROOT/install/vanilla/bin/mpicc" -O2 -Wall -Wextra -o "$b" "$src" >> "$log" 2>&1 ||
                die "building $src failed: see $log"
        fi
    done
    # the switch must reach the loader: the ep binary resolves to each build's libmpi
    local v
    for v in vanilla vaced; do
        env LD_LIBRARY_PATH="$ROOT/install/$v/lib" ldd "$out/build/ep" | grep "$ROOT/install/$v/lib/libmpi.so" > /dev/null ||
            die "LD_LIBRARY_PATH=install/$v/lib does not select install/$v's libmpi for $out/build/ep"
    done
}

# apps_stage OUT: fresh copies of OUT/build/* in OUT/run (new files, so new
# page-cache pages); every run uses OUT/run/PROGRAM
apps_stage() {
    local out=$1 f
    mkdir -p "$out/run"
    for f in "$out"/build/*; do
        [[ -f $f && -x $f ]] || continue
        cp "$f" "$out/run/.staging" && mv -f "$out/run/.staging" "$out/run/$(basename "$f")"
    done
}

# mpi_lib BUILD: the environment assignment that selects install/BUILD's
# libraries for the shared binaries
mpi_lib() { echo "LD_LIBRARY_PATH=$ROOT/install/$1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; }
