// The program's own clocks under VACED, C++: a ping-pong and a computation
// timed with std::chrono::steady_clock and system_clock and with
// MPI_Wtime.  Rank 0 prints
//   clocks pp_wtime=S pp_steady=S pp_system=S comp_wtime=S comp_steady=S comp_system=S
// Usage: clocks_cxx [ITERS]
#include <mpi.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

static volatile double sink;

static double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? std::atoi(argv[1]) : 200;
    char byte = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);

    double w0 = MPI_Wtime();
    auto s0 = std::chrono::steady_clock::now();
    auto y0 = std::chrono::system_clock::now();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    double pp_w = MPI_Wtime() - w0, pp_s = since(s0);
    double pp_y = std::chrono::duration<double>(std::chrono::system_clock::now() - y0).count();

    w0 = MPI_Wtime();
    s0 = std::chrono::steady_clock::now();
    y0 = std::chrono::system_clock::now();
    double x = 1.0;
    for (long i = 0; i < 20000000; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    double c_s = since(s0);
    double c_y = std::chrono::duration<double>(std::chrono::system_clock::now() - y0).count();
    double c_w = MPI_Wtime() - w0;

    if (rank == 0)
        std::printf("clocks pp_wtime=%.9f pp_steady=%.9f pp_system=%.9f comp_wtime=%.9f"
                    " comp_steady=%.9f comp_system=%.9f\n", pp_w, pp_s, pp_y, c_w, c_s, c_y);
    MPI_Finalize();
    return 0;
}
