/* 0-byte (or BYTES) ping-pong between ranks 0 and 1 timed on the host with
 * the kernel's CLOCK_MONOTONIC, read by a system call: MPI_Wtime and the
 * program's clock_gettime are target time under VACED, so they cannot
 * measure what a call costs on the host.  Other ranks only take
 * part in MPI_Init and MPI_Finalize, so "pingpong 0 0" with P ranks times
 * just the start-up and shut-down of a P-rank job.
 *
 * Usage: pingpong BYTES ITERATIONS [ROUNDS]
 * Each of ROUNDS rounds (default 5) times ITERATIONS round trips after a
 * warm-up of ITERATIONS/10 (at least 10); rank 0 prints every round and the
 * median round, in microseconds per round trip:
 *   pingpong bytes=0 iters=20000 rounds=5 median_us=... min_us=... max_us=...
 * Built by bench/run.sh with each install's mpicc. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAXROUNDS 99

static double mono_s(void)
{
    struct timespec t;

    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void trips(int rank, char *buf, int bytes, long n)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || argc > 4 || atol(argv[1]) < 0 || atol(argv[2]) < 0 ||
        (argc == 4 && (atoi(argv[3]) < 1 || atoi(argv[3]) > MAXROUNDS))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s BYTES ITERATIONS [ROUNDS (1-%d)]\n", argv[0], MAXROUNDS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bytes = atoi(argv[1]);
    long iters = atol(argv[2]);
    int rounds = argc == 4 ? atoi(argv[3]) : 5;
    if (iters > 0 && size < 2) {
        fprintf(stderr, "%s: a ping-pong needs at least 2 ranks\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(bytes > 0 ? (size_t)bytes : 1, 1);
    double us[MAXROUNDS];

    if (iters > 0) {
        trips(rank, buf, bytes, iters / 10 > 10 ? iters / 10 : 10);  /* connection, first touch */
        for (int r = 0; r < rounds; r++) {
            double t0 = mono_s();
            trips(rank, buf, bytes, iters);
            us[r] = (mono_s() - t0) / (double)iters * 1e6;
        }
        if (rank == 0) {
            for (int r = 0; r < rounds; r++)
                printf("pingpong round %d: %.3f us\n", r, us[r]);
            qsort(us, (size_t)rounds, sizeof us[0], cmp);
            printf("pingpong bytes=%d iters=%ld rounds=%d median_us=%.3f min_us=%.3f max_us=%.3f\n",
                   bytes, iters, rounds, us[rounds / 2], us[0], us[rounds - 1]);
        }
    } else if (rank == 0) {
        printf("pingpong ranks=%d iters=0 (start-up and shut-down only)\n", size);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
