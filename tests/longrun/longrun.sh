#!/usr/bin/env bash
# tests/longrun/longrun.sh: a long run through the patched MPICH, 10^7 small
# messages between two ranks (msgmix.c: MPI_Isend, MPI_Send, MPI_Waitall, an
# MPI_Testall loop, MPI_Test, an MPI_Waitsome loop, MPI_Irecv, wildcard
# MPI_Recv), while this script samples both ranks' resident memory (VmRSS in
# /proc/PID/status).  Checks:
#
#   - the program ran and every message arrived intact;
#   - memory is flat: each rank's last sample (taken at >= 90% of the
#     messages, normally at 99-100%) is at most MARGIN above its first sample
#     at >= 10% of the messages;
#   - the prediction is the closed form: on tests/longrun/longrun.topo an
#     iteration of K + 1 = 10 messages of 1000 B takes (K + 3) c + 2 L =
#     20.012 ms exactly (c = 1 us copy, L = 10 ms between the ranks), so
#     rank 0's MPI_Wtime of the loop and the job's prediction must both be
#     iterations x 20.012 ms, within TOL (the host's CPU time between MPI
#     calls on the critical path, about 1 us an iteration, is the only
#     difference).
#
#   tests/longrun/longrun.sh                      10^7 messages (about 3-4 minutes on 2 cores)
#   tests/longrun/longrun.sh --messages 1000000   the CI size (seconds)
#
# Options:
#   --messages N     messages in all (default 10000000; a multiple of 10 is exact)
#   --margin KIB     allowed growth of a rank's VmRSS from 10% to the end (default 512)
#   --tol F          relative tolerance of the prediction checks (default 0.0005)
#   --interval S     seconds between samples (default 0.05)
#   --vanilla        also run the same program on install/vanilla and report its
#                    wall time and memory (for comparison; not checked)
#   --report FILE    write the figures as Markdown to FILE
#   -h, --help       this text
#
# Ends with "N passed, M failed"; exits 1 if a check failed, 2 on a usage or
# setup error.  Work files in build/longrun/.  Needs install/vaced (./build.sh).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$ROOT/build/longrun
TOPO=$HERE/longrun.topo
# The closed form, from longrun.topo and msgmix's defaults, in picoseconds:
BYTES=1000
K=9
COPY_PS=1000000                 # c = 1000 B / (1 GB/s) = 1 us
NET_PS=10000000000              # L = 1000 B / (1 GB/s) + 9998 us + 1 hop x 1 us = 10 ms
ITER_PS=$(( (K + 3) * COPY_PS + 2 * NET_PS ))

messages=10000000
margin=512
tol=0.0005
interval=0.05
vanilla=0
report=""
passed=0
failed=0

die() { printf 'longrun: error: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
check() {      # check NAME OK DETAIL
    if [ "$2" -eq 1 ]; then
        passed=$((passed + 1)); echo "ok   $1 $3"
    else
        failed=$((failed + 1)); echo "FAIL $1 $3"
    fi
}

while [ $# -gt 0 ]; do
    case $1 in
        --messages) [ $# -ge 2 ] || die "--messages needs a number"; messages=$2; shift ;;
        --margin) [ $# -ge 2 ] || die "--margin needs KiB"; margin=$2; shift ;;
        --tol) [ $# -ge 2 ] || die "--tol needs a fraction"; tol=$2; shift ;;
        --interval) [ $# -ge 2 ] || die "--interval needs seconds"; interval=$2; shift ;;
        --vanilla) vanilla=1 ;;
        --report) [ $# -ge 2 ] || die "--report needs a file"; report=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
[[ $messages =~ ^[1-9][0-9]*$ ]] && [ "$messages" -ge $((K + 1)) ] || die "--messages wants a number >= $((K + 1))"
[[ $margin =~ ^[0-9]+$ ]] || die "--margin wants KiB"
[[ $tol =~ ^[0-9.]+([eE]-?[0-9]+)?$ ]] || die "--tol wants a fraction"
[[ $interval =~ ^[0-9.]+$ ]] || die "--interval wants seconds"
case $report in ''|/*) ;; *) report=$PWD/$report ;; esac
for b in vaced $([ $vanilla -eq 1 ] && echo vanilla); do
    for f in bin/mpicc bin/mpiexec; do
        [ -x "$ROOT/install/$b/$f" ] || die "install/$b/$f is missing: run ./build.sh"
    done
done
mkdir -p "$WORK"

# msgmix for install B, rebuilt when the source or the install changed.
build() {
    local b=$1 exe=$WORK/msgmix-$1
    if [ ! -x "$exe" ] || [ "$HERE/msgmix.c" -nt "$exe" ] || [ "$ROOT/install/$b/lib/libmpi.so" -nt "$exe" ]; then
        "$ROOT/install/$b/bin/mpicc" -O2 -Wall -Wextra -Werror -o "$exe" "$HERE/msgmix.c" ||
            die "msgmix does not build against install/$b"
    fi
    echo "$exe"
}

# Seconds since $1 (an $EPOCHREALTIME), with $2 decimals.
since() {
    awk -v a="$1" -v b="$EPOCHREALTIME" -v d="$2" 'BEGIN { printf "%.*f\n", d, b - a }'
}

# VmRSS of process $1 in KiB, into $rss (empty when it has gone).
read_rss() {
    local k v u
    rss=""
    { while read -r k v u; do
          if [ "$k" = VmRSS: ]; then rss=$v; break; fi
      done <"/proc/$1/status"; } 2>/dev/null || true
}

# Runs msgmix on install B, sampling the ranks' VmRSS; writes $WORK/B.out
# (the program's output), $WORK/B.samples ("seconds progress% rss0 rss1",
# KiB) and $WORK/B.wall; returns mpiexec's exit status.
run() {
    local b=$1 exe out samples start pid p c r rss r0 fd l prog=0 env=()
    exe=$(build "$b")
    out=$WORK/$b.out samples=$WORK/$b.samples
    : >"$samples"
    : >"$out"
    if [ "$b" = vaced ]; then
        env=(env VACED_TARGET="$TOPO" VACED_QUIET=1 VACED_JSON="$WORK/vaced.json")
        rm -f "$WORK/vaced.json"
    else
        env=(env -u VACED_TARGET -u VACED_QUIET -u VACED_JSON)
    fi
    start=$EPOCHREALTIME
    "${env[@]}" "$ROOT/install/$b/bin/mpiexec" -n 2 "$exe" "$messages" "$BYTES" "$K" >"$out" 2>&1 &
    pid=$!
    exec {fd}<"$out"
    local -A rankpid=()
    while kill -0 "$pid" 2>/dev/null; do
        if [ ${#rankpid[@]} -lt 2 ]; then     # the ranks: mpiexec's grandchildren running $exe
            for p in $(pgrep -P "$pid" || true); do
                for c in $(pgrep -P "$p" || true); do
                    [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$exe" ] || continue
                    r=$(tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | sed -n 's/^PMI_RANK=//p')
                    [ -n "$r" ] && rankpid[$r]=$c
                done
            done
        fi
        while IFS= read -r l <&"$fd"; do
            [[ $l =~ progress\ ([0-9]+)% ]] && prog=${BASH_REMATCH[1]}
        done
        if [ ${#rankpid[@]} -eq 2 ]; then
            read_rss "${rankpid[0]}"
            r0=$rss
            read_rss "${rankpid[1]}"
            if [ -n "$r0" ] && [ -n "$rss" ]; then
                printf '%s %s %s %s\n' "$(since "$start" 2)" "$prog" "$r0" "$rss" >>"$samples"
            fi
        fi
        sleep "$interval"
    done
    exec {fd}<&-
    set +e
    wait "$pid"
    local rc=$?
    set -e
    since "$start" 1 >"$WORK/$b.wall"
    return $rc
}

# "rss_at_10 rss_last max min" of rank R's column in a samples file (KiB):
# the first sample at >= 10% of the messages, the last one (at >= 90%), and
# the largest and smallest from 10% on.
rss_figures() {
    awk -v c=$(( $2 + 3 )) '$2 >= 10 { if (at10 == "") at10 = $c; if ($2 >= 90) last = $c;
                                        if (max == "" || $c > max) max = $c; if (min == "" || $c < min) min = $c }
                             END { print (at10 == "" ? "-" : at10), (last == "" ? "-" : last), (max == "" ? "-" : max), (min == "" ? "-" : min) }' "$1"
}

echo "== long run: $messages messages on install/vaced, target $(basename "$TOPO")"
set +e
run vaced
rc=$?
set -e
out=$WORK/vaced.out
line=$(grep '^msgmix: bytes=' "$out" || true)
check "msgmix runs on install/vaced (exit $rc, $(cat "$WORK/vaced.wall") s)" $([ $rc -eq 0 ] && [ -n "$line" ] && echo 1 || echo 0) \
    "$([ $rc -eq 0 ] && [ -n "$line" ] || tail -n 5 "$out")"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
iters=$(field iterations)
errors=$(field errors)
check "every message arrived intact" $([ "${errors:-x}" = 0 ] && echo 1 || echo 0) "(errors=${errors:-?})"

nsamples=$(wc -l <"$WORK/vaced.samples")
for r in 0 1; do
    read -r at10 last max min < <(rss_figures "$WORK/vaced.samples" $r)
    ok=0
    if [ "$at10" != - ] && [ "$last" != - ] && [ $((last - at10)) -le "$margin" ]; then ok=1; fi
    check "rank $r: VmRSS flat from 10% to the end (<= $margin KiB growth)" $ok \
        "(at 10%: $at10 KiB, last: $last KiB, min/max after 10%: $min/$max KiB, $nsamples samples)"
    eval "rss_at10_$r=\$at10 rss_last_$r=\$last rss_max_$r=\$max rss_min_$r=\$min"
done

closed=""
if [ -n "$iters" ]; then
    closed=$(awk -v n="$iters" -v p="$ITER_PS" 'BEGIN {printf "%.9f", n * p / 1e12}')
    loop=$(field loop_s)
    pred=$(python3 -c 'import json,sys; print("%.9f" % json.load(open(sys.argv[1]))["prediction_s"])' "$WORK/vaced.json" 2>/dev/null || true)
    for what in "rank 0's MPI_Wtime of the loop:$loop" "the job's prediction (VACED_JSON):$pred"; do
        v=${what##*:}
        name=${what%:*}
        if [ -z "$v" ]; then
            check "$name equals the closed form" 0 "(no value)"
            continue
        fi
        read -r ok detail < <(awk -v v="$v" -v c="$closed" -v t="$tol" -v n="$iters" 'BEGIN {
            e = (v - c) / c; ok = (e <= t && -e <= t);
            printf "%d %.9f s, closed form %d x %.6f ms = %.9f s, %+.4f%%, %+.0f ns an iteration\n",
                   ok, v, n, c / n * 1e3, c, e * 100, (v - c) / n * 1e9 }')
        check "$name equals the closed form within $(awk -v t="$tol" 'BEGIN {print t * 100}')%" "$ok" "($detail)"
        eval "detail_$([ "${name#rank}" != "$name" ] && echo loop || echo pred)=\$detail"
    done
fi

if [ $vanilla -eq 1 ]; then
    echo "== the same on install/vanilla (for comparison)"
    set +e
    run vanilla
    vrc=$?
    set -e
    vloop=$(sed -n 's/.* loop_s=\([^ ]*\).*/\1/p' "$WORK/vanilla.out")
    read -r vat10_0 vlast_0 vmax_0 _ < <(rss_figures "$WORK/vanilla.samples" 0)
    read -r vat10_1 vlast_1 vmax_1 _ < <(rss_figures "$WORK/vanilla.samples" 1)
    echo "vanilla: exit $vrc, $(cat "$WORK/vanilla.wall") s (loop ${vloop:-?} s host time); VmRSS rank 0 $vat10_0 -> $vlast_0 KiB (max $vmax_0), rank 1 $vat10_1 -> $vlast_1 KiB (max $vmax_1)"
fi

if [ -n "$report" ]; then
    {
        echo "| | install/vaced |$([ $vanilla -eq 1 ] && echo ' install/vanilla |')"
        echo "|---|---|$([ $vanilla -eq 1 ] && echo '---|')"
        echo "| messages | $((iters * (K + 1))) ($iters iterations of $((K + 1))) |$([ $vanilla -eq 1 ] && echo ' same |')"
        echo "| host wall time | $(cat "$WORK/vaced.wall") s |$([ $vanilla -eq 1 ] && echo " $(cat "$WORK/vanilla.wall") s |")"
        echo "| rank 0 VmRSS at 10% / last / max after 10% | $rss_at10_0 / $rss_last_0 / $rss_max_0 KiB |$([ $vanilla -eq 1 ] && echo " $vat10_0 / $vlast_0 / $vmax_0 KiB |")"
        echo "| rank 1 VmRSS at 10% / last / max after 10% | $rss_at10_1 / $rss_last_1 / $rss_max_1 KiB |$([ $vanilla -eq 1 ] && echo " $vat10_1 / $vlast_1 / $vmax_1 KiB |")"
        echo "| rank 0's MPI_Wtime of the loop | ${detail_loop:-} |$([ $vanilla -eq 1 ] && echo " ${vloop:-?} s (host time) |")"
        echo "| prediction | ${detail_pred:-} |$([ $vanilla -eq 1 ] && echo ' |')"
        echo
        echo "Samples (seconds since start, progress %, VmRSS rank 0, rank 1 in KiB), every 10% of the messages:"
        echo
        echo '```'
        awk '{ p = $2 - $2 % 10; if (!(p in seen)) { seen[p] = 1; print } } END { print }' "$WORK/vaced.samples"
        echo '```'
    } >"$report"
    echo "report: $report"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
