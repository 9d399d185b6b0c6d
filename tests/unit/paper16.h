/* Unit tests only: the paper-16 target (topo/paper-16.topo under the
 * repository root given as argv[1]) for 16 ranks, and a fake transport
 * that records the wildcard bounds' packets a test sends. */
#ifndef VACED_TEST_PAPER16_H
#define VACED_TEST_PAPER16_H

#include <stdio.h>
#include "check.h"
#include "machine/target.h"
#include "vaced.h"

/* The loaded target, or NULL after a failed check saying why. */
static inline struct vaced_target *paper16_load(int argc, char **argv)
{
    char path[4096], err[512];
    struct vaced_target *t = NULL;

    snprintf(path, sizeof path, "%s/topo/paper-16.topo", argc > 1 ? argv[1] : ".");
    if (!CHECK(vaced_target_load(path, 16, &t, err, sizeof err) == 0)) {
        printf("cannot load %s: %s\n", path, err);
        return NULL;
    }
    return t;
}

static struct vaced_bound_pkt sent[64] __attribute__((unused));
static int sent_to_peer[64] __attribute__((unused)), nsent __attribute__((unused));

static inline void fake_send(int peer, const struct vaced_bound_pkt *p)
{
    if (nsent < 64) {
        sent_to_peer[nsent] = peer;
        sent[nsent++] = *p;
    }
}

#endif
