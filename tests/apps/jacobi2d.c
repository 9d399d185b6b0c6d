/* Jacobi iteration for the 2D Laplace equation on an N x N grid, split
 * into horizontal strips: each iteration exchanges one halo row with each
 * neighbour and reduces the residual with MPI_Allreduce every 10 steps.
 * The bundled example of the README's quick start.
 * Usage: jacobi2d [N] [ITERATIONS]    (defaults 1024, 200) */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    int rows = n / size + (rank < n % size);
    size_t stride = (size_t) n + 2;
    double *u = calloc((rows + 2) * stride, sizeof(double));
    double *v = calloc((rows + 2) * stride, sizeof(double));
    if (!u || !v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)                          /* hot top boundary */
        for (size_t j = 0; j < stride; j++)
            u[j] = v[j] = 1.0;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double t0 = MPI_Wtime(), residual = 0;
    for (int it = 1; it <= iters; it++) {
        MPI_Sendrecv(&u[stride], n + 2, MPI_DOUBLE, up, 0, &u[(rows + 1) * stride], n + 2,
                     MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[rows * stride], n + 2, MPI_DOUBLE, down, 1, &u[0], n + 2, MPI_DOUBLE,
                     up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0;
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j <= n; j++) {
                double *c = &u[i * stride + j];
                double x = 0.25 * (c[-1] + c[1] + c[-(long) stride] + c[stride]);
                local += (x - *c) * (x - *c);
                v[i * stride + j] = x;
            }
        double *t = u;
        u = v;
        v = t;
        if (it % 10 == 0) {
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            residual = sqrt(residual);
        }
    }
    double elapsed = MPI_Wtime() - t0;
    if (rank == 0)
        printf("jacobi2d: %d x %d grid, %d ranks, %d iterations, residual %.6e, %.6f s (MPI_Wtime)\n",
               n, n, size, iters, residual, elapsed);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
