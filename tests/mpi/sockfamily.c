/* How each rank is connected to the others: after one message with every
 * other rank, a rank counts the connected stream sockets it has made
 * since before MPI_Init (the launcher's are older), by family (Unix or
 * IP), leaving out listeners.  Rank 0 prints the least and the most over
 * ranks:
 *   sockfamily ranks=P unix_min=A unix_max=B inet_min=C inet_max=D
 * With patch 0013 a rank reaches the ranks of its host by Unix sockets and
 * the others by TCP, so on one host unix=P-1 and inet=0.
 *
 * Two ranks that connect to each other at once keep one of the two
 * connections; the other is closed when both have seen the refusal, at
 * their next progress after it came, which may be after the barrier.  So
 * the ranks count until every rank holds one connection a peer, driving
 * the progress by the reduction, for at most SETTLE_TRIES rounds: a
 * connection never closed is still counted. */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define SETTLE_TRIES 400  /* of 5 ms */

static int rings(void)
{
    char line[512];
    int n = 0;
    FILE *f = fopen("/proc/self/maps", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        n += strstr(line, "/memfd:vaced-ring") != NULL;
    fclose(f);
    return n;
}

static void count(int *unix_n, int *inet_n)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;

    *unix_n = *inet_n = 0;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name), domain, type, listening;
        socklen_t len = sizeof(int);
        if (e->d_name[0] == '.' || fd == dirfd(d))
            continue;
        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
            continue;   /* not a socket */
        len = sizeof(int);
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
        len = sizeof(int);
        getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len);
        if (type != SOCK_STREAM || listening)
            continue;
        if (domain == AF_UNIX)
            (*unix_n)++;
        else if (domain == AF_INET || domain == AF_INET6)
            (*inet_n)++;
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    int rank, size, before[2], mine[3], lo[3], hi[3], k, out = 1, in, settled, all;
    const struct timespec pause = { 0, 5000000 };

    count(&before[0], &before[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (k = 1; k < size; k++)  /* one message with each other rank */
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + k) % size, 0, &in, 1, MPI_INT,
                     (rank - k + size) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    for (k = 0; k < SETTLE_TRIES; k++) {
        count(&mine[0], &mine[1]);
        mine[0] -= before[0];
        mine[1] -= before[1];
        settled = mine[0] + mine[1] == size - 1;
        MPI_Allreduce(&settled, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all)
            break;
        nanosleep(&pause, NULL);
    }
    mine[2] = rings();
    MPI_Reduce(mine, lo, 3, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, hi, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sockfamily ranks=%d unix_min=%d unix_max=%d inet_min=%d inet_max=%d "
               "rings_min=%d rings_max=%d\n", size, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
    MPI_Finalize();
    return 0;
}
