# The VM's free page reporting, off for the length of a measurement
# (sourced by bench/validate.sh and bench/run.sh).
#
# Why: a guest's balloon device (virtio_balloon) may have free page
# reporting (VIRTIO_BALLOON_F_REPORTING): a couple of seconds after the
# guest frees memory it tells the host, which takes the pages away.  The
# next program that touches them waits for the host to give them back, so
# the same page faults cost several times more in one run than in the next,
# as the memory it got had been reported or not (measured:
# results/history.md).  Which run pays depends on what ran before it and how
# long ago, so the real runs and VACED's (whose CPU time includes the
# faults) can disagree on nothing but the order of the runs.  With reporting
# off, freed pages stay with the guest and a program's faults cost the same
# from run to run.
#
# Needs the caller's die and say functions.

PAGE_REPORTING_DEV=
PAGE_REPORTING_STATE="no balloon device with free page reporting"

# page_reporting_off: unbinds every virtio_balloon device that reports free
# pages (root only), then touches WARM_MIB (default 2048) MiB once so that
# the measured programs get pages the host backs; sets PAGE_REPORTING_STATE
page_reporting_off() {
    local drv=/sys/bus/virtio/drivers/virtio_balloon d features
    [[ -d $drv ]] || return 0
    for d in "$drv"/virtio*; do
        [[ -e $d/features ]] || continue
        features=$(cat "$d/features")
        [[ ${features:5:1} == 1 ]] || continue      # bit 5: VIRTIO_BALLOON_F_REPORTING
        if [[ $(id -u) != 0 ]]; then
            PAGE_REPORTING_STATE="on ($(basename "$d") reports free pages; not root, left as it is)"
            say "WARNING: $(basename "$d") reports free pages to the host, and only root can stop it: first touches of memory will cost what the host's state makes them"
            return 0
        fi
        echo "$(basename "$d")" > "$drv/unbind" || die "cannot unbind $(basename "$d") from virtio_balloon"
        PAGE_REPORTING_DEV+="${PAGE_REPORTING_DEV:+ }$(basename "$d")"
    done
    [[ -n $PAGE_REPORTING_DEV ]] || return 0
    python3 -c "b'\\x01' * (${WARM_MIB:-2048} << 20)"
    PAGE_REPORTING_STATE="off during the run ($PAGE_REPORTING_DEV unbound from virtio_balloon, ${WARM_MIB:-2048} MiB touched once, rebound at the end)"
    say "free page reporting: $PAGE_REPORTING_STATE"
}

# page_reporting_restore: binds the devices page_reporting_off unbound
page_reporting_restore() {
    local d
    for d in $PAGE_REPORTING_DEV; do
        echo "$d" > /sys/bus/virtio/drivers/virtio_balloon/bind 2> /dev/null ||
            say "WARNING: could not bind $d to virtio_balloon again (echo $d > /sys/bus/virtio/drivers/virtio_balloon/bind)"
    done
    PAGE_REPORTING_DEV=
}
