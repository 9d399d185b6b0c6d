#!/usr/bin/env bash
# bench/host-profile.sh: where the host's time goes when many ranks share
# each host core (issue 40's first step).  For each mini-app and rank
# count, runs the app under unpatched MPICH and under VACED (the same
# binary, bench/lib/apps.sh), one after the other, and prints per run:
# host wall time, CPU time (user, system), context switches and page
# faults over the whole job (perf stat's software events, which need no
# PMU), and for VACED the computation it measured summed over ranks (the
# JSON's compute_s), that sum over the host's cores, and wall / that: the
# factor by which the job exceeds the physical limit.  With -s it also
# samples the VACED job's processes (perf record, cpu-clock) and
# prints the share of samples by where they fell: the kernel's TCP, poll
# and scheduler paths, MPICH, libvaced, the program, Hydra.
#
#   bench/host-profile.sh [-a APPS] [-n RANKS] [-c CLASS] [-t TARGET] [-s] [-o CSV]
#
#   -a APPS     comma-separated mini-apps (default cg,stencil,lu)
#   -n RANKS    comma-separated rank counts (default 16,64)
#   -c CLASS    problem class (default A)
#   -t TARGET   target description (default paper-1024)
#   -s          also sample the VACED runs (perf record; slower)
#   -o CSV      also write every run to CSV
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
APPS=cg,stencil,lu RANKS=16,64 CLASS=A TARGET=paper-1024 SAMPLE=0 CSV=
die() { echo "host-profile.sh: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts "a:n:c:t:so:h" opt; do
    case $opt in
        a) APPS=$OPTARG ;;
        n) RANKS=$OPTARG ;;
        c) CLASS=$OPTARG ;;
        t) TARGET=$OPTARG ;;
        s) SAMPLE=1 ;;
        o) CSV=$OPTARG ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
command -v perf > /dev/null || die "perf is not installed (Debian package linux-perf)"
perf stat -e task-clock true > /dev/null 2>&1 || die "perf stat cannot count software events here"
# shellcheck source=lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
apps_build "$WORK" "$WORK/build.log"
apps_stage "$WORK"
CORES=$(nproc)

# perf stat's CSV lines (-x,): value,unit,event,...
counted() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }

[ -n "$CSV" ] && echo "app,ranks,build,wall_s,user_s,sys_s,context_switches,page_faults,compute_sum_s" > "$CSV"
printf '%-8s %5s %-8s %8s %8s %8s %10s %9s %10s %8s\n' app ranks build wall_s user_s sys_s ctx_sw faults comp/cores wall/lim
IFS=, read -r -a app_list <<< "$APPS"
IFS=, read -r -a rank_list <<< "$RANKS"
for app in "${app_list[@]}"; do
    for n in "${rank_list[@]}"; do
        for build in vanilla vaced; do
            stat=$WORK/stat.txt json=$WORK/run.json
            rm -f "$json"
            env $(mpi_lib "$build") VACED_TARGET="$TARGET" VACED_QUIET=all VACED_JSON="$json" \
                perf stat -x, -e task-clock,context-switches,page-faults -o "$stat" -- \
                /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" \
                "$ROOT/install/$build/bin/mpiexec" -n "$n" "$WORK/run/$app" "$CLASS" \
                > "$WORK/out.txt" 2>&1 || die "$app on $n ranks under $build failed: $(tail -n 3 "$WORK/out.txt")"
            read -r wall user sys < "$WORK/time.txt"
            ctx=$(counted "$stat" context-switches)
            faults=$(counted "$stat" page-faults)
            comp= ratio=
            if [ "$build" = vaced ]; then
                comp=$(python3 -c 'import json,sys; print("%.3f" % sum(r["compute_s"] for r in json.load(open(sys.argv[1]))["per_rank"]))' "$json")
                ratio=$(python3 -c "print('%.2f' % ($wall / ($comp / $CORES)))")
            fi
            printf '%-8s %5s %-8s %8s %8s %8s %10s %9s %10s %8s\n' "$app" "$n" "$build" "$wall" "$user" "$sys" \
                "$ctx" "$faults" "${comp:+$(python3 -c "print('%.3f' % ($comp / $CORES))")}" "$ratio"
            [ -n "$CSV" ] && echo "$app,$n,$build,$wall,$user,$sys,$ctx,$faults,$comp" >> "$CSV"
        done
        if [ "$SAMPLE" = 1 ]; then
            env $(mpi_lib vaced) VACED_TARGET="$TARGET" VACED_QUIET=all \
                perf record -F 499 -o "$WORK/perf.data" -- \
                "$ROOT/install/vaced/bin/mpiexec" -n "$n" "$WORK/run/$app" "$CLASS" > /dev/null 2>&1 ||
                die "sampling $app on $n ranks failed"
            echo "  where the samples fell ($app, $n ranks, VACED):"
            perf report -i "$WORK/perf.data" --stdio --sort dso 2> /dev/null |
                awk '/^ +[0-9.]+%/ && n++ < 8 { printf "    %7s  %s\n", $1, $2 }'
            perf report -i "$WORK/perf.data" --stdio --sort sym 2> /dev/null |
                awk '/^ +[0-9.]+%/ && n++ < 12 { $2 = ""; printf "    %s\n", $0 }'
        fi
    done
done
