/* Two ranks each post a window of W MPI_Irecv, then W MPI_Isend, to the
 * other, and complete the 2 W requests by one of MPI's ways: MPI_Waitall,
 * MPI_Wait on each in order (receives first), MPI_Waitany until none is
 * left, or MPI_Waitsome until none is left.  However it is written, the
 * receiving CPU handles the window's messages one after another.
 * Usage: window waitall|wait|waitany|waitsome BYTES [W [REPS]]
 * Rank 0 prints the mean window time (MPI_Wtime, target time under VACED). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void complete(const char *how, int n, MPI_Request *req, MPI_Status *st, int *idx)
{
    if (!strcmp(how, "waitall")) {
        MPI_Waitall(n, req, st);
    } else if (!strcmp(how, "wait")) {
        for (int i = 0; i < n; i++)
            MPI_Wait(&req[i], &st[0]);
    } else if (!strcmp(how, "waitany")) {
        for (int i = 0; i < n; i++)
            MPI_Waitany(n, req, &idx[0], &st[0]);
    } else {
        for (int left = n, got; left > 0; left -= got)
            MPI_Waitsome(n, req, &got, idx, st);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *how = argc > 1 ? argv[1] : "";
    if (size != 2 || argc < 3 || (strcmp(how, "waitall") && strcmp(how, "wait") &&
                                  strcmp(how, "waitany") && strcmp(how, "waitsome"))) {
        if (rank == 0)
            fprintf(stderr, "usage: window waitall|wait|waitany|waitsome BYTES [W [REPS]] (2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bytes = atoi(argv[2]), w = argc > 3 ? atoi(argv[3]) : 64, reps = argc > 4 ? atoi(argv[4]) : 10;
    int peer = 1 - rank, n = 2 * w;
    char *sbuf = calloc((size_t) bytes + 1, 1), *rbuf = calloc((size_t) w * bytes + 1, 1);
    MPI_Request *req = malloc(sizeof *req * n);
    MPI_Status *st = malloc(sizeof *st * n);
    int *idx = malloc(sizeof *idx * n);

    double t0 = 0;
    for (int i = 0; i <= reps; i++) {       /* round 0: connections, page faults */
        if (i == 1) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        sbuf[0] = (char) (rank + i);
        for (int k = 0; k < w; k++)
            MPI_Irecv(rbuf + (size_t) k * bytes, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[k]);
        for (int k = 0; k < w; k++)
            MPI_Isend(sbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[w + k]);
        complete(how, n, req, st, idx);
        if (bytes > 0 && rbuf[(size_t) (w - 1) * bytes] != (char) (peer + i)) {
            fprintf(stderr, "window: rank %d round %d: wrong data\n", rank, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double window = (MPI_Wtime() - t0) / reps;
    if (rank == 0)
        printf("window %s bytes=%d w=%d window_s=%.12f\n", how, bytes, w, window);
    free(sbuf);
    free(rbuf);
    free(req);
    free(st);
    free(idx);
    MPI_Finalize();
    return 0;
}
