/* Weak scaling: every rank does the same work whatever the rank count, so
 * its computation on the target does not depend on P.  Each iteration is
 * one compute segment, which walks `lines` cache lines of the rank's own
 * working set (continuing where the last one stopped, a read-modify-write
 * per line), then one exchange with both ring neighbours (8 bytes each
 * way, MPI_Sendrecv) or, with -a, an MPI_Allreduce of 8 bytes.
 *
 *   weakscale -w BYTES -l LINES -n ITERATIONS [-a]
 *
 * Prints, from rank 0, the mean per-rank wall time of the compute
 * segments as the host saw them (a check; VACED's own figure is its
 * per-rank compute time). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE 64

static uint64_t walk(unsigned char *ws, size_t nlines, size_t *at, long lines)
{
    uint64_t sum = 0;
    for (long i = 0; i < lines; i++) {
        uint64_t *w = (uint64_t *) (ws + *at * LINE);
        sum += *w;
        *w = sum;
        if (++*at == nlines)
            *at = 0;
    }
    return sum;
}

int main(int argc, char **argv)
{
    long bytes = 1 << 20, lines = 1000, iters = 100;
    int allreduce = 0, opt, rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "w:l:n:a")) != -1) {
        switch (opt) {
        case 'w': bytes = atol(optarg); break;
        case 'l': lines = atol(optarg); break;
        case 'n': iters = atol(optarg); break;
        case 'a': allreduce = 1; break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: weakscale -w BYTES -l LINES -n ITERATIONS [-a]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (bytes < LINE || lines < 1 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "weakscale: -w must be at least %d, -l and -n at least 1\n", LINE);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t nlines = (size_t) bytes / LINE, at = 0;
    unsigned char *ws = malloc(nlines * LINE);
    if (!ws) {
        fprintf(stderr, "weakscale: rank %d: cannot allocate %ld bytes\n", rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(ws, rank & 0xff, nlines * LINE);
    walk(ws, nlines, &at, (long) nlines);       /* first touch, outside the timing */

    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    uint64_t sum = 0, in[2], out;
    double computing = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long it = 0; it < iters; it++) {
        double t0 = MPI_Wtime();
        sum += walk(ws, nlines, &at, lines);
        computing += MPI_Wtime() - t0;
        out = sum;
        if (allreduce)
            MPI_Allreduce(&out, in, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
        else {
            MPI_Sendrecv(&out, 1, MPI_UINT64_T, right, 0, &in[0], 1, MPI_UINT64_T, left, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&out, 1, MPI_UINT64_T, left, 1, &in[1], 1, MPI_UINT64_T, right, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        sum ^= in[0];
    }
    double mean;
    MPI_Reduce(&computing, &mean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("weakscale: P=%d ws=%ld lines=%ld iterations=%ld mean segment time %.3f us (checksum %llu)\n",
               size, bytes, lines, iters, mean / size / iters * 1e6, (unsigned long long) (sum & 0xff));
    free(ws);
    MPI_Finalize();
    return 0;
}
