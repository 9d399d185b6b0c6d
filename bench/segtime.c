/* LD_PRELOAD profiling (PMPI) library for bench/run.sh's part "segments":
 * the thread CPU time each rank spends computing between MPI calls, and
 * inside them, measured the same way under unpatched MPICH and under VACED.
 *
 *   cc -O2 -shared -fPIC -o segtime.so bench/segtime.c
 *   LD_PRELOAD=$PWD/segtime.so SEGTIME_DIR=/tmp/st mpiexec -n 2 ./prog
 *
 * VACED times computation by the CPU time the program takes on the host, so
 * it must not change how fast the program computes. It once did: a libm
 * call in its model (glibc's FMA log2) made LU's own loops 35 % faster, and
 * no test saw it. Run beside a vanilla run of the same binary, this library
 * shows such effects: the compute CPU time of the two must agree.
 *
 * A segment runs from the return of one wrapped MPI call to the entry of
 * the next; the calls not wrapped here (MPI_Wtime, communicator and
 * datatype set-up) count as computation in both builds. The wrapped calls
 * are those of the mini-apps of tests/apps (C and Fortran: MPICH's Fortran
 * binding calls the C MPI_ functions). Each rank (PMI_RANK in its
 * environment) writes SEGTIME_DIR/rank.<PMI_RANK> at exit:
 *
 *   rank=R segments=N compute_cpu_s=X mpi_calls=M mpi_cpu_s=Y
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seg_start = -1.0, call_start;
static double compute_cpu, mpi_cpu;
static long segments, mpi_calls;

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void enter_mpi(void)
{
    call_start = thread_cpu();
    if (seg_start >= 0.0) {
        compute_cpu += call_start - seg_start;
        segments++;
    }
    seg_start = -1.0;
}

static void leave_mpi(void)
{
    double now = thread_cpu();
    mpi_cpu += now - call_start;
    mpi_calls++;
    seg_start = now;
}

#define WRAP(call)                \
    do {                          \
        enter_mpi();              \
        int rc_ = (call);         \
        leave_mpi();              \
        return rc_;               \
    } while (0)

int MPI_Init(int *argc, char ***argv) { WRAP(PMPI_Init(argc, argv)); }
int MPI_Init_thread(int *argc, char ***argv, int req, int *prov) { WRAP(PMPI_Init_thread(argc, argv, req, prov)); }

int MPI_Finalize(void)
{
    enter_mpi();        /* the clock of this library stops here, as VACED's does */
    return PMPI_Finalize();
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c) { WRAP(PMPI_Send(b, n, t, dst, tag, c)); }
int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *s) { WRAP(PMPI_Recv(b, n, t, src, tag, c, s)); }
int MPI_Isend(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c, MPI_Request *r) { WRAP(PMPI_Isend(b, n, t, dst, tag, c, r)); }
int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *r) { WRAP(PMPI_Irecv(b, n, t, src, tag, c, r)); }
int MPI_Wait(MPI_Request *r, MPI_Status *s) { WRAP(PMPI_Wait(r, s)); }
int MPI_Waitall(int n, MPI_Request r[], MPI_Status s[]) { WRAP(PMPI_Waitall(n, r, s)); }
int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int dst, int stag, void *rb, int rn, MPI_Datatype rt, int src,
                 int rtag, MPI_Comm c, MPI_Status *s)
{
    WRAP(PMPI_Sendrecv(sb, sn, st, dst, stag, rb, rn, rt, src, rtag, c, s));
}
int MPI_Barrier(MPI_Comm c) { WRAP(PMPI_Barrier(c)); }
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { WRAP(PMPI_Bcast(b, n, t, root, c)); }
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) { WRAP(PMPI_Reduce(s, r, n, t, op, root, c)); }
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) { WRAP(PMPI_Allreduce(s, r, n, t, op, c)); }
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    WRAP(PMPI_Gather(s, sn, st, r, rn, rt, root, c));
}
int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[], MPI_Datatype rt, int root,
                MPI_Comm c)
{
    WRAP(PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, c));
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    WRAP(PMPI_Allgather(s, sn, st, r, rn, rt, c));
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    WRAP(PMPI_Alltoall(s, sn, st, r, rn, rt, c));
}
int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[], const int rd[],
                  MPI_Datatype rt, MPI_Comm c)
{
    WRAP(PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c));
}

__attribute__((destructor)) static void write_stats(void)
{
    const char *dir = getenv("SEGTIME_DIR"), *rank = getenv("PMI_RANK");
    if (!dir || !rank || mpi_calls == 0)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%s", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "rank=%s segments=%ld compute_cpu_s=%.9f mpi_calls=%ld mpi_cpu_s=%.9f\n", rank, segments, compute_cpu,
            mpi_calls, mpi_cpu);
    fclose(f);
}
