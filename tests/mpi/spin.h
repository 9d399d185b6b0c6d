/* A CPU loop of about `ms` milliseconds of computation, for the test
 * programs whose expected times are built from it.  Timed by MPI_Wtime:
 * under VACED the rank's target time, which a compute segment advances by
 * its CPU time (MPI_Wtime starts no communication activity, so the loop
 * stays one segment). */
#ifndef VACED_TEST_SPIN_H
#define VACED_TEST_SPIN_H

#include <mpi.h>

static volatile double spin_sink;

static void spin_ms(double ms)
{
    double t0 = MPI_Wtime(), x = 1;
    while (MPI_Wtime() - t0 < ms * 1e-3)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    spin_sink = x;
}

#endif
