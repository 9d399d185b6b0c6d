/* MPI from several threads (tests/mpi/test_threads.py).
 *
 *   threads multiple NT ITERS   MPI_THREAD_MULTIPLE; NT threads (the main
 *                               one among them), each on its own duplicate
 *                               of MPI_COMM_WORLD: ITERS rounds of a ring
 *                               exchange and an allreduce, all at once
 *   threads funneled NT ITERS   MPI_THREAD_FUNNELED; the main thread does
 *                               the rounds, NT - 1 others compute and time
 *                               themselves with MPI_Wtime
 *
 * Every received value is checked; rank 0 prints "threads: ok" or the
 * first mismatch, and the exit status is non-zero on a mismatch. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16

static int rank, size, iters;
static int errors[MAX_THREADS];
static double worker_sum[MAX_THREADS];

struct job {
    int t;
    MPI_Comm comm;
};

/* ITERS rounds on one communicator: a value to the right, one from the
 * left, then the sum over ranks. */
static void rounds(int t, MPI_Comm comm)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < iters; i++) {
        int out = 1000 * rank + 10 * t + i % 10, in = -1, sum = 0;
        MPI_Sendrecv(&out, 1, MPI_INT, right, t, &in, 1, MPI_INT, left, t, comm, MPI_STATUS_IGNORE);
        if (in != 1000 * left + 10 * t + i % 10)
            errors[t]++;
        MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, comm);
        if (sum != t * size)
            errors[t]++;
    }
}

static void *communicate(void *arg)
{
    struct job *j = arg;
    rounds(j->t, j->comm);
    return NULL;
}

/* A thread of a funneled program: computes and times itself, no other MPI. */
static void *compute(void *arg)
{
    struct job *j = arg;
    double t0 = MPI_Wtime(), x = 0;
    for (int i = 0; i < 200000 * (j->t + 1); i++)
        x += 1.0 / (i + 1);
    worker_sum[j->t] = x + (MPI_Wtime() - t0 < 0);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "multiple") && strcmp(argv[1], "funneled"))) {
        fprintf(stderr, "usage: threads multiple|funneled NT ITERS\n");
        return 2;
    }
    int multiple = !strcmp(argv[1], "multiple"), nt = atoi(argv[2]), provided;
    iters = atoi(argv[3]);
    if (nt < 1 || nt > MAX_THREADS)
        nt = nt < 1 ? 1 : MAX_THREADS;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < (multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED)) {
        if (rank == 0)
            printf("threads: thread level %d provided\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    struct job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    for (int t = 0; t < nt; t++) {
        jobs[t].t = t;
        jobs[t].comm = MPI_COMM_WORLD;
        if (multiple)           /* collective: one thread, in order */
            MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 1; t < nt; t++)
        pthread_create(&tid[t], NULL, multiple ? communicate : compute, &jobs[t]);
    double t0 = MPI_Wtime();
    rounds(0, jobs[0].comm);
    for (int t = 1; t < nt; t++)
        pthread_join(tid[t], NULL);
    double elapsed = MPI_Wtime() - t0;
    int errs = 0, all = 0;
    for (int t = 0; t < nt; t++) {
        errs += errors[t];
        if (multiple)
            MPI_Comm_free(&jobs[t].comm);
    }
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all)
            printf("threads: %d mismatches\n", all);
        else
            printf("threads: ok (%s, %d threads, %d rounds, %.6f s)\n", argv[1], nt, iters, elapsed);
    }
    MPI_Finalize();
    return all != 0;
}
