"""vaced_jobsize: what a job of P ranks on one host needs from the host,
checked and provided by `vaced run` before anything is launched
(docs/limits.md, Large jobs).

- Open files.  Hydra's proxy holds four descriptors a rank of its host
  (the rank's stdin, stdout and stderr pipes and its PMI socket); a rank
  holds one a peer it has talked to.  mpiexec, the proxy and the ranks
  inherit the soft RLIMIT_NOFILE, which is raised to 4 P + 64; a hard limit below
  that stops the job here, with the fix, instead of a pipe error deep in
  Hydra.  A program whose ranks all talk to each other needs about P * P
  descriptors on the host: above fs.file-max that is a note.
- Processes.  Each rank is a process of this user: RLIMIT_NPROC and
  kernel.pid_max must leave room for P more.
- Memory.  A rank of the smallest program holds a floor of private memory
  (MPICH, libvaced, page tables, socket buffers); P of them must fit in
  what the host has available.  The program's own memory comes on top.
- The ranks' environment (defaults, each kept when the user set it):
  MPICH's ch3 allocates and touches pools for one-sided operations at
  MPI_Init whatever the program does (MPIR_CVAR_CH3_RMA_*_GLOBAL_POOL_SIZE),
  most of a small rank's memory; smaller pools only make RMA programs,
  which VACED does not time, take more turns through MPICH's progress.
  hwloc's I/O discovery (components pci and linuxio) reads every PCI
  device's configuration space in every rank, most of a rank's start-up
  on a virtual machine; ch3:sock never asks for I/O devices (only
  MPI_Comm_split_type with a "pci:" name does, which then finds none).
"""
import os
import resource

# open files: four a rank in the proxy, plus the launchers' own
FILES_PER_RANK = 4
FILES_SPARE = 64
# private memory of a rank of an empty program with the defaults below,
# kernel included (results/large-jobs.md)
RANK_FLOOR_KIB = 1536

RANK_ENV_DEFAULTS = {
    "MPIR_CVAR_CH3_RMA_OP_GLOBAL_POOL_SIZE": "256",
    "MPIR_CVAR_CH3_RMA_TARGET_GLOBAL_POOL_SIZE": "256",
    "HWLOC_COMPONENTS": "-pci,-linuxio",
}


class Limit(Exception):
    """The host cannot hold the job: the message says what to change."""


def rank_env(env):
    """env with the defaults above added where the user set nothing."""
    out = dict(env)
    for k, v in RANK_ENV_DEFAULTS.items():
        out.setdefault(k, v)
    return out


def files_needed(ranks):
    return FILES_PER_RANK * ranks + FILES_SPARE


def raise_open_files(ranks, limits=resource):
    """Raises this process's soft RLIMIT_NOFILE (inherited by mpiexec, its
    proxy and the ranks) to what `ranks` need; Limit when the hard limit
    is lower and cannot be raised.  Returns the soft limit in force."""
    need = files_needed(ranks)
    soft, hard = limits.getrlimit(limits.RLIMIT_NOFILE)
    if soft == limits.RLIM_INFINITY or soft >= need:
        return soft
    if hard != limits.RLIM_INFINITY and hard < need:
        try:                            # root may raise the hard limit
            limits.setrlimit(limits.RLIMIT_NOFILE, (need, need))
            return need
        except (ValueError, OSError):
            raise Limit(f"-n {ranks} needs {need} open files ({FILES_PER_RANK} a rank in Hydra's proxy), but "
                        f"the hard limit is {hard} (ulimit -Hn): raise it (as root: ulimit -Hn {need}, or "
                        f"'nofile' in /etc/security/limits.conf, LimitNOFILE= for a service) or run at most "
                        f"{(hard - FILES_SPARE) // FILES_PER_RANK} ranks on this host")
    limits.setrlimit(limits.RLIMIT_NOFILE, (need, hard))
    return need


def read_int(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def mem_available_kib(meminfo="/proc/meminfo"):
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def processes_now(proc="/proc"):
    try:
        return sum(1 for d in os.listdir(proc) if d.isdigit())
    except OSError:
        return 0


def check_processes(ranks, limits=resource, proc="/proc"):
    """Limit when this user or the kernel cannot start `ranks` more
    processes (RLIMIT_NPROC counts the user's processes, root's too
    unless it has CAP_SYS_RESOURCE; pid_max counts everyone's)."""
    soft, _ = limits.getrlimit(limits.RLIMIT_NPROC)
    now = processes_now(proc)
    if soft != limits.RLIM_INFINITY and os.geteuid() != 0 and now + ranks + 2 > soft:
        raise Limit(f"-n {ranks} starts {ranks + 2} processes, but this user may have {soft} "
                    f"(ulimit -u) and about {now} run now: raise ulimit -u or run fewer ranks")
    pid_max = read_int(os.path.join(proc, "sys/kernel/pid_max"))
    if pid_max is not None and now + ranks + 2 > pid_max:
        raise Limit(f"-n {ranks} starts {ranks + 2} processes, but kernel.pid_max is {pid_max} and {now} "
                    f"processes run now: raise it (as root: sysctl kernel.pid_max={now + ranks + 1024}) "
                    f"or run fewer ranks")


def check_memory(ranks, meminfo="/proc/meminfo"):
    """Limit when `ranks` ranks of even an empty program would not fit in
    the memory available now."""
    avail = mem_available_kib(meminfo)
    need = ranks * RANK_FLOOR_KIB
    if avail is not None and need > avail:
        raise Limit(f"-n {ranks} needs at least {need / 1048576:.2f} GiB of memory ({RANK_FLOOR_KIB / 1024:.1f} "
                    f"MiB a rank before the program's own), but "
                    f"{avail / 1048576:.2f} GiB are available: run at most {avail // RANK_FLOOR_KIB} ranks "
                    f"on this host, or spread them over hosts (--hostfile)")


def all_pairs_note(ranks, proc="/proc"):
    """A note when ranks that all talk to each other would exceed the
    system's open files (fs.file-max), or None."""
    file_max = read_int(os.path.join(proc, "sys/fs/file-max"))
    need = ranks * (ranks - 1) + files_needed(ranks)
    if file_max is None or need <= file_max:
        return None
    return (f"note: if every rank talks to every other, {ranks} ranks hold about {need} open files, more than "
            f"this host's fs.file-max ({file_max}); such a program fails with 'Too many open files in system' "
            f"(docs/limits.md#large-jobs)")


def prepare(ranks, local=True):
    """Everything above for a job of `ranks` ranks; local: all on this host
    (no hostfile).  Returns the notes to print; raises Limit."""
    raise_open_files(ranks)
    if not local:
        return []
    check_processes(ranks)
    check_memory(ranks)
    note = all_pairs_note(ranks)
    return [note] if note else []
