#!/usr/bin/env bash
# bench/transport-ab.sh: the host transport's cost, interleaved A/B
# (issue 40).  Runs each mini-app at each rank count under every variant,
# the variants in turn and their order reversed every other repetition,
# and prints per run: host wall time, CPU time (user, system), context
# switches and system calls of the whole job (perf stat), VACED's
# computation summed over ranks over the host's cores (the least wall
# time the host could take), wall / that, and the prediction, so that a
# transport's speed and its prediction's invariance come from the same
# runs.  The summary gives each variant's median and range.
#
#   bench/transport-ab.sh [-a APPS] [-n RANKS] [-c CLASS] [-r REPS] [-o CSV] VARIANT...
#
#   VARIANT     LABEL=INSTALL[,VAR=VALUE...]: a VACED install directory
#               and the environment its runs get (e.g.
#               old=/work/main/install/vaced new=install/vaced
#               tcp=install/vaced,VACED_TRANSPORT=tcp)
#   -a APPS     comma-separated mini-apps (default cg,stencil,lu)
#   -n RANKS    comma-separated rank counts (default 16,64)
#   -c CLASS    problem class (default A)
#   -r REPS     repetitions (default 3)
#   -o CSV      also write every run to CSV
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
APPS=cg,stencil,lu RANKS=16,64 CLASS=A REPS=3 CSV= TARGET=paper-1024
die() { echo "transport-ab.sh: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts "a:n:c:r:o:h" opt; do
    case $opt in
        a) APPS=$OPTARG ;;
        n) RANKS=$OPTARG ;;
        c) CLASS=$OPTARG ;;
        r) REPS=$OPTARG ;;
        o) CSV=$OPTARG ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage 2
command -v perf > /dev/null || die "perf is not installed (Debian package linux-perf)"
labels=() installs=() envs=()
for v in "$@"; do
    label=${v%%=*} rest=${v#*=}
    inst=${rest%%,*} extra=
    [[ $rest == *,* ]] && extra=${rest#*,}
    [ -x "$inst/bin/mpiexec" ] || die "$inst/bin/mpiexec missing (variant $label)"
    labels+=("$label") installs+=("$(cd "$inst" && pwd)") envs+=("${extra//,/ }")
done
# shellcheck source=lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
apps_build "$WORK" "$WORK/build.log"
CORES=$(nproc)
counted() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }

runs=$WORK/runs.csv
echo "rep,app,ranks,variant,wall_s,user_s,sys_s,context_switches,syscalls,compute_sum_s,prediction_s" > "$runs"
printf '%-3s %-8s %5s %-8s %7s %7s %7s %9s %10s %9s %6s %14s\n' rep app ranks variant wall_s user_s sys_s ctx_sw syscalls comp/cores ratio prediction_s
IFS=, read -r -a app_list <<< "$APPS"
IFS=, read -r -a rank_list <<< "$RANKS"
order=("${!labels[@]}")
for ((rep = 1; rep <= REPS; rep++)); do
    apps_stage "$WORK"
    for app in "${app_list[@]}"; do
        for n in "${rank_list[@]}"; do
            for i in "${order[@]}"; do
                json=$WORK/run.json stat=$WORK/stat.txt
                rm -f "$json"
                # shellcheck disable=SC2086
                env LD_LIBRARY_PATH="${installs[i]}/lib" ${envs[i]} VACED_TARGET="$TARGET" \
                    VACED_QUIET=all VACED_JSON="$json" \
                    perf stat -x, -e context-switches,raw_syscalls:sys_enter -o "$stat" -- \
                    /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" \
                    "${installs[i]}/bin/mpiexec" -n "$n" "$WORK/run/$app" "$CLASS" > "$WORK/out.txt" 2>&1 ||
                    die "$app on $n ranks under ${labels[i]} failed: $(tail -n 3 "$WORK/out.txt")"
                read -r wall user sys < "$WORK/time.txt"
                ctx=$(counted "$stat" context-switches)
                calls=$(counted "$stat" raw_syscalls:sys_enter)
                read -r comp pred < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%.3f %.9f" % (sum(r["compute_s"] for r in j["per_rank"]), j["prediction_s"]))' "$json")
                printf '%-3s %-8s %5s %-8s %7s %7s %7s %9s %10s %9.3f %6.2f %14s\n' "$rep" "$app" "$n" "${labels[i]}" \
                    "$wall" "$user" "$sys" "$ctx" "$calls" "$(python3 -c "print($comp / $CORES)")" \
                    "$(python3 -c "print($wall / ($comp / $CORES))")" "$pred"
                echo "$rep,$app,$n,${labels[i]},$wall,$user,$sys,$ctx,$calls,$comp,$pred" >> "$runs"
            done
        done
    done
    # reversed next time: neither variant always runs first
    rev=() && for ((k = ${#order[@]} - 1; k >= 0; k--)); do rev+=("${order[k]}"); done && order=("${rev[@]}")
done
[ -n "$CSV" ] && cp "$runs" "$CSV"
echo
python3 "$ROOT/bench/lib/transport_ab_report.py" "$runs" "$CORES"
