/* Internals shared by the target parser files; not part of the API.
 * Adding a topology = writing one vaced_topo_ops (see topo_hierarchy.c)
 * and listing it in target.c's topology table. */
#ifndef VACED_TARGET_IMPL_H
#define VACED_TARGET_IMPL_H

#include <stdio.h>

#include "machine/target.h"

#define VACED_LINE_MAX 1024 /* buffer per line, so lines hold at most 1023 characters */
#define VACED_KEY_MAX 32    /* key buffer; longer keys cannot be known keys */
#define VACED_CFG_MAX 64    /* distinct known keys, across all topologies */

/* One `key = value` line, comment stripped and value trimmed. */
struct vaced_entry {
    char key[VACED_KEY_MAX];
    char val[VACED_LINE_MAX];
    int line;
};

/* The file's lines, checked for syntax, known keys and duplicates only. */
struct vaced_cfg {
    const char *path;
    char *err;
    size_t errlen;
    int n;
    struct vaced_entry ent[VACED_CFG_MAX];
};

/* topofile.c */
/* Read path into c. known() says whether a key exists at all. */
int vaced_cfg_read(struct vaced_cfg *c, int (*known)(const char *key));
/* Entry for key, NULL when the file does not set it. */
const struct vaced_entry *vaced_cfg_get(const struct vaced_cfg *c, const char *key);
/* Like vaced_cfg_get, but a missing key is an error. */
const struct vaced_entry *vaced_cfg_need(const struct vaced_cfg *c, const char *key);
/* Write "path:line: msg" (line <= 0: "path: msg") to c->err; returns -1. */
int vaced_cfg_error(const struct vaced_cfg *c, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same for a line of another file (a mapping file) read for c. */
int vaced_file_error(const struct vaced_cfg *c, const char *path, int line,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Read one line (without '\n') into buf. Returns 1 line read, 0 end of
 * file, -1 longer than cap - 1 characters, -2 read error. */
int vaced_read_line(FILE *f, char *buf, size_t cap, size_t *len);
/* Strip a CR, reject control characters (reported as path:lineno), drop the
 * '#' comment and trim blanks. Returns the content, maybe "", or NULL. */
char *vaced_clean_line(const struct vaced_cfg *c, const char *path, int lineno,
                       char *s, size_t len);

/* units.c: values of one entry; each returns 0 or reports and returns -1. */
int vaced_parse_count(const struct vaced_cfg *c, const struct vaced_entry *e,
                      long min, long max, long *out);
/* Whitespace-separated counts in [min, max]; *n gets how many (0 allowed). */
int vaced_parse_count_list(const struct vaced_cfg *c, const struct vaced_entry *e,
                           long min, long max, int *out, int maxn, int *n);
/* Exactly n counts in [min, max]; otherwise "'key' needs n values (what), got m". */
int vaced_parse_count_tuple(const struct vaced_cfg *c, const struct vaced_entry *e,
                            long min, long max, int *out, int n, const char *what);
int vaced_parse_bandwidth(const struct vaced_cfg *c, const struct vaced_entry *e,
                          double *bytes_per_s);
int vaced_parse_time(const struct vaced_cfg *c, const struct vaced_entry *e,
                     vaced_time_t *ps);
/* The same, but 0 (any unit) is allowed too. */
int vaced_parse_time_or_zero(const struct vaced_cfg *c, const struct vaced_entry *e,
                             vaced_time_t *ps);
/* A decimal number without unit at s, whatever the program's locale:
 * the characters used (0: none), the value in *v. */
size_t vaced_scan_number(const char *s, double *v);
int vaced_parse_size(const struct vaced_cfg *c, const struct vaced_entry *e,
                     uint64_t *bytes);
/* The same, but 0 (any unit) is allowed too. */
int vaced_parse_size_or_zero(const struct vaced_cfg *c, const struct vaced_entry *e,
                             uint64_t *bytes);

/* Upper bounds that keep l0 + h*lh far from int64 overflow in picoseconds. */
#define VACED_MAX_HOPS 1000
#define VACED_MAX_TIME_PS (1000LL * VACED_PS_PER_S) /* 1000 s */

enum vaced_mapping { VACED_MAP_BLOCK, VACED_MAP_ROUND_ROBIN, VACED_MAP_FILE };

/* mapping.c: fill node_of_rank[0..nranks-1] for the target's nodes
 * (block or round-robin). */
void vaced_map_ranks(enum vaced_mapping m, int nranks, int cores,
                     int cores_per_node, int *node_of_rank);

struct vaced_target;

/* mapfile.c: `mapping = file PATH` of entry e; fills t->node_of_rank. */
int vaced_map_file(struct vaced_target *t, const struct vaced_cfg *c,
                   const struct vaced_entry *e, const char *path);

/* target.c: a topology's network must have a place for every target node;
 * reports on e's line "'key': <what> holds N nodes, fewer than ...". */
int vaced_topo_check_capacity(const struct vaced_target *t, const struct vaced_cfg *c,
                              const struct vaced_entry *e, const char *what,
                              long long capacity);

struct vaced_topo_ops {
    const char *name;        /* the `topology =` value */
    const char *const *keys; /* keys it owns, NULL-terminated */
    /* Parse own keys from c; t's general fields are set (not yet the
     * mapping: topology keys are checked before any mapping file is read).
     * Sets t->topo_data and t->min_pos_hops. */
    int (*setup)(struct vaced_target *t, const struct vaced_cfg *c);
    int (*hops)(const void *data, int node_a, int node_b); /* hot path */
    void (*free)(void *data);
};

extern const struct vaced_topo_ops vaced_topo_hierarchy;
extern const struct vaced_topo_ops vaced_topo_torus3d;
extern const struct vaced_topo_ops vaced_topo_fattree;
extern const struct vaced_topo_ops vaced_topo_dragonfly;

#define VACED_MAX_SIZE_FACTORS 32

/* A rate's factor by message size (parsed in factor_lists.c, read beside
 * the formulas in network/netmodel.c and network/overhead.c): n points,
 * sizes increasing; for the overheads' factors, `size` is a computation
 * in us. */
struct vaced_size_factors {
    int n;
    uint64_t size[VACED_MAX_SIZE_FACTORS];
    double factor[VACED_MAX_SIZE_FACTORS];
};

struct vaced_target {
    char *name;
    int cores, cores_per_node, nnodes, nranks;
    uint64_t eager_threshold;
    double bmem, bnet;      /* bytes per second */
    double bcpu;            /* bytes per second each end's CPU moves same-node
                             * rendezvous data at; 0: not modelled */
    int injection_queue;    /* a rank's network messages take turns on its link */
    uint64_t net_warmup;    /* the first messages of each connection across nodes ... */
    double bnet_warmup;     /* ... move at this rate (TCP's slow start); 0: not modelled */
    uint64_t net_warmup_min; /* smaller messages neither wait for nor count in the warm-up */
    uint64_t calibrated_max; /* calibrated_max: the largest size measured; 0: not given */
    struct vaced_size_factors bnet_f; /* bnet_factors: Bnet's factor by message size */
    struct vaced_size_factors bmem_f; /* bmem_factors: Bmem's factor by message size */
    struct vaced_size_factors bcpu_f; /* bcpu_factors: Bcpu's factor by message size */
    vaced_time_t l0, lh;    /* latency, latency_per_hop in ps */
    vaced_time_t l_node;    /* latency_same_node: added to L(s, 0) between two ranks */
    vaced_time_t o_send;    /* send_overhead: sender CPU per protocol message */
    vaced_time_t o_recv;    /* recv_overhead: receiver CPU per protocol message */
    struct vaced_size_factors o_send_f; /* send_overhead_factors: by the computation before */
    struct vaced_size_factors o_recv_f; /* recv_overhead_factors: by the computation before */
    struct vaced_size_factors cold;     /* overhead_coldness: the canary's reading by the computation */
    vaced_time_t wake;      /* wakeup_latency: a message to a rank asleep in a wait is handled this late */
    vaced_time_t wake_after; /* wakeup_after: blocked this long, a rank starts to fall asleep */
    vaced_time_t wake_ramp; /* wakeup_ramp: ... and is asleep this much later (0: at once) */
    enum vaced_mapping mapping;
    int *node_of_rank;      /* per rank: node ids are all the hop rules need */
    const struct vaced_topo_ops *topo;
    void *topo_data;
    int min_pos_hops;       /* smallest h > 0 between two target nodes, 0 if none */
};

/* bnet_factors, bmem_factors, bcpu_factors and the overheads' factors
 * (factor_lists.c); 0 points when a key is absent. */
int vaced_load_size_factors(struct vaced_target *t, const struct vaced_cfg *c);

#endif
