#!/usr/bin/env bash
# build.sh: from a fresh Debian bookworm machine to two MPICH 4.0.2 installs
# under install/: "vaced" (patched: the predictor) and "vanilla" (the same
# tarball and configure without patches, the reference for tests and
# benchmarks).  Re-running rebuilds only what changed.
#
#   ./build.sh            both installs
#   ./build.sh vaced      only the predictor (and libvaced)
#   ./build.sh vanilla    only the reference
#   ./build.sh packages   only the Debian packages (libvaced needs libpfm4-dev)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$ROOT/build
INSTALL=$ROOT/install
MPICH_VERSION=4.0.2
MPICH_TARBALL=mpich_${MPICH_VERSION}.orig.tar.xz
MPICH_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
JOBS=${JOBS:-$(nproc)}
CONFIGURE_ARGS=(--with-device=ch3:sock --enable-fortran=all --disable-romio --disable-doc --disable-static
                --enable-fast=O2 FFLAGS=-fallow-argument-mismatch FCFLAGS=-fallow-argument-mismatch)
PACKAGES=(build-essential gfortran libpfm4-dev libhwloc-dev patch xz-utils dpkg-dev rsync
          python3 procps python3-otf2 otf2-tools python3-matplotlib)

export DEBIAN_FRONTEND=noninteractive

say() { printf '[build.sh] %s\n' "$*"; }
die() { printf '[build.sh] error: %s\n' "$*" >&2; exit 1; }

# Runs a long step quietly; on failure shows the end of its log.
run_logged() {
    local log=$1; shift
    if ! "$@" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "'$*' failed; full log: $log"
    fi
}

install_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return
    [ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${missing[*]} (run as root, or apt-get install them)"
    say "installing Debian packages: ${missing[*]}"
    run_logged "$BUILD/apt.log" apt-get update -q
    run_logged "$BUILD/apt.log" apt-get install -y -q "${missing[@]}"
}

# apt-get source needs a deb-src entry for bookworm.
enable_deb_src() {
    if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        return
    fi
    [ "$(id -u)" -eq 0 ] || die "no deb-src entry in /etc/apt: add one for bookworm, or run as root"
    say "enabling bookworm deb-src"
    cat >/etc/apt/sources.list.d/vaced-deb-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    run_logged "$BUILD/apt.log" apt-get update -q
}

fetch_source() {
    local dir=$BUILD/download
    mkdir -p "$dir"
    if [ ! -f "$dir/$MPICH_TARBALL" ]; then
        enable_deb_src
        say "downloading MPICH $MPICH_VERSION with apt-get source"
        (cd "$dir" && run_logged "$BUILD/apt-source.log" apt-get source --download-only "mpich=$MPICH_VERSION-3") ||
            (cd "$dir" && run_logged "$BUILD/apt-source.log" apt-get source --download-only mpich)
        [ -f "$dir/$MPICH_TARBALL" ] || die "apt-get source did not produce $MPICH_TARBALL (see $BUILD/apt-source.log)"
    fi
    local sum
    sum=$(sha256sum "$dir/$MPICH_TARBALL" | cut -d' ' -f1)
    if [ "$sum" != "$MPICH_SHA256" ]; then
        die "$dir/$MPICH_TARBALL has sha256 $sum, expected $MPICH_SHA256: refusing it (delete it to download again)"
    fi
    TARBALL=$dir/$MPICH_TARBALL
}

# Extracts the tarball and applies the patch series into $1 (a fresh dir).
patched_tree() {
    local dest=$1 patch
    rm -rf "$dest" && mkdir -p "$dest"
    tar -xf "$TARBALL" -C "$dest" --strip-components=1
    for patch in "$ROOT"/mpich-patches/*.patch; do
        [ -e "$patch" ] || continue
        if ! patch -d "$dest" -p1 --forward --batch --quiet <"$patch" >"$BUILD/patch.log" 2>&1; then
            cat "$BUILD/patch.log" >&2
            die "patch $(basename "$patch") does not apply to MPICH $MPICH_VERSION"
        fi
    done
}

# Brings $2 to the content of $1, touching only files whose content changed
# (their mtime becomes now; no -t), so make rebuilds only what a changed
# patch affects.
sync_tree() {
    mkdir -p "$2"
    rsync -r --checksum --links --delete "$1/" "$2/"
}

configure_and_install() {
    local name=$1 src=$2 obj=$3 prefix=$4; shift 4
    local extra=("$@")
    local want="${CONFIGURE_ARGS[*]} ${extra[*]} --prefix=$prefix"
    mkdir -p "$obj"
    if [ ! -f "$obj/config.status" ] || [ "$(cat "$obj/.vaced-configure" 2>/dev/null)" != "$want" ]; then
        say "$name: configuring (about 2 minutes)"
        (cd "$obj" && run_logged "$BUILD/$name-configure.log" \
            "$src/configure" --prefix="$prefix" "${CONFIGURE_ARGS[@]}" "${extra[@]}")
        echo "$want" >"$obj/.vaced-configure"
    fi
    say "$name: building"
    run_logged "$BUILD/$name-make.log" make -C "$obj" -j"$JOBS" ${MAKE_VARS:+"${MAKE_VARS[@]}"}
    run_logged "$BUILD/$name-install.log" make -C "$obj" install ${MAKE_VARS:+"${MAKE_VARS[@]}"}
    # Debian's MPICH programs link libmpich.so.12: serve them too.
    ln -sf libmpi.so.12 "$prefix/lib/libmpich.so.12"
}

stamp_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

build_vanilla() {
    local prefix=$INSTALL/vanilla want
    want=$(printf '%s %s' "$MPICH_SHA256" "${CONFIGURE_ARGS[*]}" | sha256sum | cut -d' ' -f1)
    if [ "$(cat "$prefix/.vaced-stamp" 2>/dev/null)" = "$want" ]; then
        say "vanilla: up to date"
        return
    fi
    if [ ! -f "$BUILD/vanilla-src/configure" ]; then
        rm -rf "$BUILD/vanilla-src" && mkdir -p "$BUILD/vanilla-src"
        tar -xf "$TARBALL" -C "$BUILD/vanilla-src" --strip-components=1
    fi
    MAKE_VARS=()
    configure_and_install vanilla "$BUILD/vanilla-src" "$BUILD/vanilla-obj" "$prefix"
    echo "$want" >"$prefix/.vaced-stamp"
    say "vanilla: installed in $prefix"
}

build_vaced() {
    local prefix=$INSTALL/vaced obj=$BUILD/vaced-obj lib=$BUILD/vaced/libvaced.a want
    # The patches update the generated Makefile.in as automake would (a new
    # source file): make must not try to regenerate it.  The wrappers link
    # libmpi even where the program calls it only through libmpifort
    # (--no-as-needed), so that libmpi comes before libc in the lookup
    # order and its clocks are the program's (program_clocks.c).
    local wrap=-Wl,--no-as-needed
    local VACED_CONFIGURE=("MPICHLIB_CPPFLAGS=-I$ROOT/vaced/include" --disable-maintainer-mode
                           "MPICH_MPICC_LDFLAGS=$wrap" "MPICH_MPICXX_LDFLAGS=$wrap"
                           "MPICH_MPIFORT_LDFLAGS=$wrap")
    say "libvaced: building"
    run_logged "$BUILD/libvaced.log" make -C "$ROOT/vaced" O="$BUILD/vaced" -j"$JOBS"
    want=$( { echo "$MPICH_SHA256 ${CONFIGURE_ARGS[*]} ${VACED_CONFIGURE[*]}"; cat "$ROOT"/mpich-patches/*.patch "$lib"; } |
            sha256sum | cut -d' ' -f1)
    if [ "$(cat "$prefix/.vaced-stamp" 2>/dev/null)" = "$want" ]; then
        say "vaced: up to date"
        return
    fi
    if [ -f "$BUILD/vaced-src/configure" ]; then
        patched_tree "$BUILD/vaced-src.new"
        sync_tree "$BUILD/vaced-src.new" "$BUILD/vaced-src"
        rm -rf "$BUILD/vaced-src.new"
    else
        patched_tree "$BUILD/vaced-src"
    fi
    # libmpi's link line gets libvaced; make does not know that dependency,
    # so a newer libvaced.a forces the relink.
    if [ -f "$obj/lib/libmpi.la" ] && [ "$lib" -nt "$obj/lib/libmpi.la" ]; then
        rm -f "$obj/lib/libmpi.la"
    fi
    local libadd="\$(external_libs) \$(pmpi_convenience_libs) \$(mpi_convenience_libs) $lib -lm"
    MAKE_VARS=("lib_libmpi_la_LIBADD=$libadd")
    configure_and_install vaced "$BUILD/vaced-src" "$obj" "$prefix" "${VACED_CONFIGURE[@]}"
    echo "$want" >"$prefix/.vaced-stamp"
    # Reports (e.g. the MPICH suite's) name the commit the install came from.
    git -C "$ROOT" describe --always --dirty >"$prefix/.vaced-commit" 2>/dev/null || echo '?' >"$prefix/.vaced-commit"
    say "vaced: installed in $prefix"
}

main() {
    local what=${1:-all}
    case $what in
        all|vaced|vanilla|packages) ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown target '$what' (all, vaced, vanilla or packages)" ;;
    esac
    mkdir -p "$BUILD" "$INSTALL"
    install_packages
    [ "$what" = packages ] && return
    fetch_source
    case $what in
        all) build_vaced; build_vanilla ;;
        vaced) build_vaced ;;
        vanilla) build_vanilla ;;
    esac
}

main "$@"
