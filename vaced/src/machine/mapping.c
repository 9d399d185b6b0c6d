/* Rank-to-node mapping. Nodes hold cores_per_node cores each, except the
 * last, which holds what is left (1024 cores of 12 per node = 85 full nodes
 * and one of 4). The caller guarantees 1 <= nranks <= cores. */
#include "machine/target_impl.h"

/* Round-robin deals ranks to the nodes in turn, node 0 first, skipping a
 * node whose cores are all taken; only the partial last node can fill up
 * before the others, so round k skips it once k >= its core count. */
static void map_round_robin(int nranks, int nnodes, int cores_per_node,
                            int last_cores, int *node_of_rank)
{
    int r = 0;
    for (int round = 0; r < nranks && round < cores_per_node; round++)
        for (int n = 0; n < nnodes && r < nranks; n++)
            if (n < nnodes - 1 || round < last_cores)
                node_of_rank[r++] = n;
}

void vaced_map_ranks(enum vaced_mapping m, int nranks, int cores,
                     int cores_per_node, int *node_of_rank)
{
    int nnodes = (int)(((long long)cores + cores_per_node - 1) / cores_per_node);
    int last_cores = cores - (nnodes - 1) * cores_per_node;
    switch (m) {
    case VACED_MAP_ROUND_ROBIN:
        map_round_robin(nranks, nnodes, cores_per_node, last_cores, node_of_rank);
        break;
    case VACED_MAP_BLOCK:
    default: /* rank r on core r */
        for (int r = 0; r < nranks; r++)
            node_of_rank[r] = r / cores_per_node;
        break;
    }
}
