/* vaced.h: the one header the MPICH patches include.
 *
 * The simulator keeps, per rank, the virtual target time tV and the CPU time
 * t1 at which the running compute segment began.  Every hook below is an
 * event of the VACED model (paper section 3.2): compute segments are timed by
 * host CPU time, communication activities by the target network model.
 *
 * Times are target picoseconds (int64).  All functions are cheap no-ops when
 * the simulation is not running (before the end of MPI_Init, after the start
 * of MPI_Finalize), so hooks need no guards of their own.
 */
#ifndef VACED_H_INCLUDED
#define VACED_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

typedef int64_t vaced_time_t; /* target picoseconds; as src/clock/vtime.h (C11 allows the repeat) */

#define VACED_TIME_UNSET ((vaced_time_t) -1)

/* Non-zero between simulation start and end. */
extern int vaced_running;

/* --- Simulation start and end (events E_start, E_end) ------------------ */

struct vaced_device;

/* Loads the target named by $VACED_TARGET for a job of `size` ranks and
 * starts the virtual clock at 0.  `device` is how the simulator reaches
 * MPI's device: its bound packets, receive queues and progress engine
 * (below; NULL in tools without MPI).  *eager_threshold gets the target's
 * eager/rendezvous threshold in bytes (MPICH's meaning: the payload plus
 * the eager header), for the job's protocol choice.  Returns 0, or
 * non-zero after printing "vaced: FILE:LINE: reason" to stderr (the caller
 * aborts the job). */
int vaced_sim_start(int rank, int size, const struct vaced_device *device,
                    uint64_t *eager_threshold);

/* Stops the clock: tV is now this rank's prediction.  Prints the rank line
 * unless $VACED_QUIET is set.  Fills out[VACED_SUMMARY_LEN] for the gather
 * that rank 0 reports from. */
/* total, compute, communication (s); unmodelled features; the compute that
 * began cold on an oversubscribed host (s; -1: the host was not); then the
 * breakdown's terms (s), in the order of report/breakdown.h */
#define VACED_SUMMARY_BREAKDOWN 5
#define VACED_SUMMARY_LEN 14
void vaced_sim_end(double out[VACED_SUMMARY_LEN]);

/* After vaced_sim_end: this rank's table of MPI calls by function and call
 * site, packed for the gather to rank 0 (valid until vaced_shutdown; 0
 * bytes if it could not be packed). */
size_t vaced_calls_packed(const void **buf);
/* Rank 0 only, before vaced_report_job: every rank's packed table, rank
 * order, back to back (lens[r] bytes each), for the JSON's call tables. */
void vaced_report_calls(const void *packed, const int64_t *lens, int size);

/* Rank 0 only: all ranks' summaries (size * VACED_SUMMARY_LEN doubles, rank
 * order).  Prints the program line and writes $VACED_JSON if set.  Returns 0,
 * or non-zero when the JSON file could not be written (already reported). */
int vaced_report_job(const double *all, int size);

/* Features of MPI the model does not time.  A program that uses one still
 * runs correctly; its prediction is marked approximate. */
enum vaced_unmodelled {
    VACED_UNMODELLED_RMA = 1,           /* one-sided communication */
    VACED_UNMODELLED_DYNAMIC = 2,       /* process creation and connection */
    VACED_UNMODELLED_THREADS = 4,       /* MPI called from several threads */
    VACED_UNMODELLED_WILDCARD = 8,      /* a wildcard matched without proof (wildcard_bounds.c) */
    VACED_UNMODELLED_GENTRAN = 16,      /* a collective on MPICH's gentran schedules */
    VACED_UNMODELLED_REPLAY = 32,       /* a replay where the target could change the
                                         * recorded execution (docs/replay.md) */
    VACED_UNMODELLED_UNCALIBRATED = 64  /* a message above the target's calibrated_max */
};
#define VACED_UNMODELLED_LAST VACED_UNMODELLED_UNCALIBRATED

/* `call` used a feature of `kind`: the prediction becomes approximate;
 * rank 0 warns once per kind, naming the call. */
void vaced_unmodelled(enum vaced_unmodelled kind, const char *call);

/* Frees what the simulator holds (after the report). */
void vaced_shutdown(void);

/* --- MPI calls --------------------------------------------------------- */

/* A binding of the MPI API starts (func: its __func__; caller: its return
 * address) and ends, for the per-call and per-call-site tables.  Nested
 * bindings fold into the outermost. */
void vaced_call_enter(const char *func, void *caller);
void vaced_call_exit(void);
/* A Fortran binding starts, called from `caller` (the program): the C
 * binding it calls next takes that as its call site.  Returns need_init
 * (the binding's own flag, which it reads through this). */
int *vaced_fortran_caller(int *need_init, void *caller);

/* --- Compute segment boundaries ---------------------------------------- */

/* A communication activity starts / ends.  Nested activities fold into the
 * outermost one, so the clock is read once at each real boundary. */
void vaced_activity_begin(void);
void vaced_activity_end(void);

/* tV as of the last event (no clock read). */
vaced_time_t vaced_now(void);

/* What has completed on the target by now: tV while the simulation runs,
 * everything (INT64_MAX) before and after. */
vaced_time_t vaced_horizon(void);

/* The running call polled for a completion and found none (MPI_Test*,
 * MPI_Iprobe): its host CPU time counts as computation (50 us at most), as
 * the program chose to spend it polling; a polling loop's target time then
 * advances. */
void vaced_test_failed(void);
/* In a poll (after vaced_poll), the running call's CPU time so far went
 * into work the model times otherwise: the simulator's own (bound requests
 * and the waits for their answers) or handling protocol messages (reading
 * a DATA payload is the network's and the copy's time), not the program's
 * polling.  A failed test counts only what follows.  No-op outside polls. */
void vaced_test_restart(void);

/* MPI_Wtime: tV plus the running compute segment, in seconds; MPI_Wtick:
 * its resolution (every CPU-time source counts nanoseconds). */
double vaced_wtime(void);
#define VACED_WTICK 1e-9

/* --- Messages (eqs. 3 and 4) ------------------------------------------- */

/* A protocol packet as the model sees it.  MPICH maps its packet types to
 * these; what each means (what it stamps, what it opens or closes with its
 * peer) is decided here. */
enum vaced_pkt_kind {
    VACED_PKT_EAGER,            /* eager, eager-short or ready-send DATA */
    VACED_PKT_EAGER_SYNC,       /* eager DATA of a synchronous send: awaits an ACK */
    VACED_PKT_SYNC_ACK,         /* the ACK of a synchronous send */
    VACED_PKT_RTS,              /* rendezvous REQ */
    VACED_PKT_CTS,              /* rendezvous ACK */
    VACED_PKT_RNDV_DATA,        /* rendezvous DATA: may keep both CPUs busy (bcpu) */
    VACED_PKT_SELF,             /* a send to this rank itself: no packet, stamped as eager DATA */
    VACED_PKT_BOUND,            /* a wildcard bound packet: neither timed nor counted */
    VACED_PKT_OTHER             /* not timed: connection management, RMA, cancel */
};

/* This rank sends a packet of `kind` with `bytes` of payload to world rank
 * `peer` (-1: a process outside the job's world, not timed).  Returns the
 * target arrival time ta(m) to carry in the packet, or VACED_TIME_UNSET
 * for a packet the model does not time; *tr gets, for DATA, when the copy
 * into the send buffer ends (the send request's completion), else
 * VACED_TIME_UNSET.
 * The send time is the time of the message being handled, when the send is
 * a response made inside a handler (vaced_handle_begin), else tV.  DATA
 * outside a handler advances tV by the copy s/Bmem.  DATA to a rank on the
 * same node, when the target sets bcpu, leaves once this rank's CPU is done
 * with the same-node data it moves already, and keeps it busy for s/Bcpu.
 * DATA to another node, when the target sets injection_queue, goes on the
 * wire once this rank's earlier such messages have left it. */
vaced_time_t vaced_packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                               vaced_time_t *tr);

/* This rank's progress engine is about to handle a packet of `kind` from
 * `peer` that carries *ta (NULL: carries none).  Begins its handling
 * (vaced_handle_begin) and returns the target time it is handled.
 * Rendezvous DATA from a rank on this node, when the target sets bcpu,
 * keeps this rank's CPU busy for s/Bcpu from when it was sent, or from when
 * the CPU is done with the same-node data it moves already: *ta is delayed
 * so that the receive completes no earlier.  End with vaced_handle_end(). */
vaced_time_t vaced_packet_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                   vaced_time_t *ta);

/* --- Handling received messages (Algorithm 3) -------------------------- */

/* A message that arrives on the target at `ta` is being handled now; returns
 * the target time ttemp at which the target handles it, and makes it the send
 * time of any response until vaced_handle_end().  With ta == VACED_TIME_UNSET
 * (an unstamped packet) the handling time is tV. */
vaced_time_t vaced_handle_begin(vaced_time_t ta);
void vaced_handle_end(void);

/* Ends the response context a receive post began (vaced_msg_found); may
 * be called when none was begun. */
void vaced_respond_end(void);

/* --- A message's record -----------------------------------------------
 * One per MPICH request, embedded in it and owned by vaced/: MPICH never
 * reads or writes its fields; it reports the request's events and asks.
 * A send completes on the target when its DATA's copy ends or its ACK is
 * handled (vaced_msg_complete_by).  A receive is posted (vaced_msg_posted),
 * its packet arrives (vaced_msg_arrived) or was there before the post
 * (vaced_msg_found), the waits and tests ask when the target completes it
 * (vaced_msg_done, vaced_msg_complete_now), and one wait reports it
 * (vaced_msg_report), which keeps the answer.  `bytes` is the receive's
 * payload where an answer needs it. */
struct vaced_msg {
    vaced_time_t ta;            /* arrival of what it receives: its RTS, then its DATA */
    vaced_time_t done;          /* completion on the target, once known */
    vaced_time_t posted;        /* when the receive was posted */
    int data_in;                /* its rendezvous DATA has arrived */
    uint32_t id;                /* its name in a record (VACED_RECORD; 0: none) */
    /* For the breakdown (report/breakdown.h): the packet it waits for */
    vaced_time_t sent;          /* its sender began sending it, as its stamp tells
                                 * (VACED_TIME_UNSET: not known) */
    vaced_time_t landed;        /* its stamped arrival here */
    vaced_time_t hs[4];         /* a rendezvous' handshake (breakdown.h) */
    int waits_for;              /* what the time before `sent` was (late sender or receiver) */
};

/* A request is created: nothing known. */
void vaced_msg_init(struct vaced_msg *m);
/* The operation completes on the target no earlier than t (a send's DATA
 * copied, its ACK handled; a collective's last operation). */
void vaced_msg_complete_by(struct vaced_msg *m, vaced_time_t t);
/* A packet of `kind` for this receive arrives on the target at ta (the
 * handler copies its stamp): rendezvous DATA is in; a send to self is
 * copied at its arrival. */
void vaced_msg_arrived(struct vaced_msg *m, enum vaced_pkt_kind kind, vaced_time_t ta,
                       uint64_t bytes);
/* The receive is posted now (a receive matched later answers as of its
 * post); `held`: a wildcard held until its first message is proven
 * (vaced_post). */
void vaced_msg_posted(struct vaced_msg *m, int held);
/* The receive found its message, of `kind` (EAGER, SELF, or RTS for a
 * rendezvous), in the unexpected queue at its post, or is given it later
 * (`from`: the message's record), as a held wildcard bound to its proven
 * first, as of its post.  Responses it sends (eager-sync ACK, rendezvous
 * CTS) leave at max(post, arrival), within a response context that
 * vaced_respond_end() closes.  Eager DATA that a progress point read
 * before the post (complete on the host) is copied then; DATA that came
 * while the rank computed is handled by the next wait, and a blocking
 * receive (no wait follows) waits for it now. */
void vaced_msg_found(struct vaced_msg *m, const struct vaced_msg *from,
                     enum vaced_pkt_kind kind, int complete, uint64_t bytes, int blocking);
/* When the target completes it: for a received message not yet reported,
 * the handling of its arrival plus the receive overhead and the copy. */
vaced_time_t vaced_msg_done(const struct vaced_msg *m, uint64_t bytes);
/* Complete on the target by now, given complete on the host: what MPI_Test
 * and its kin report.  DATA a test reads (or a poll before it did) is
 * complete as the test returns, its work charged when it is reported. */
int vaced_msg_complete_now(const struct vaced_msg *m, uint64_t bytes);
/* A wait (or, outside one, a completion on its own) reports it, once:
 * received DATA takes its turn on the receiving CPU among the messages the
 * wait handles, and its completion time is kept. */
void vaced_msg_report(struct vaced_msg *m, uint64_t bytes);
/* The arrival of what it receives (VACED_TIME_UNSET: nothing yet). */
vaced_time_t vaced_msg_arrival(const struct vaced_msg *m);

/* --- The early queue ---------------------------------------------------- */

/* Whether the response to a message arriving on the target at `ta` is to
 * be parked (vaced_park) rather than sent now.  At a receive post
 * (at_post): when no progress point of this rank has seen the message yet,
 * so the target still holds it in its message buffer and the post does
 * not find it.  From a packet handler: when the message reaches the target
 * only after this rank's current progress point, a test or probe (not a
 * blocking wait) whose time is before ta. */
int vaced_parks(vaced_time_t ta, int at_post);

/* Sends a parked response; called inside a handling context whose send
 * time is when the target answers. */
typedef void (*vaced_fire_fn)(void *arg);

/* Parks the response for world rank `peer` to a message arriving on the
 * target at `due` (the wildcard bounds count it as owed to peer): it is
 * sent at this rank's first progress point at or after `due`, never before
 * now.  A blocking wait sends every parked response when it starts (at
 * `due` if that is later than the wait's start), so a rank can never wait
 * for a response it holds. */
void vaced_park(int peer, vaced_time_t due, vaced_fire_fn fire, void *arg);

/* A non-blocking progress point (MPI_Test*, MPI_Iprobe, MPI_Improbe) at
 * tV: recorded in the wait history, and parked responses due by now are
 * sent. */
void vaced_poll(void);

/* --- Waits (Algorithm 2) ----------------------------------------------- */

/* A waiting activity starts.  Nested waits fold into the outermost. */
void vaced_wait_begin(void);
/* One awaited communication completes at target time `done`. */
void vaced_wait_complete(vaced_time_t done);
/* The wait ends at max(AWTstart, latest completion, the end of the
 * receiving CPU's last turn). */
void vaced_wait_end(void);



/* --- Wildcard receives: peers' clock lower bounds (wildcard_bounds.c) --
 * A receive from MPI_ANY_SOURCE may take its earliest candidate on the host
 * only once no other sender can still produce an earlier target arrival.
 * Ranks answer requests for a lower bound on the target arrival of their
 * future messages (clock plus latency: clocks only grow), or say what they
 * are blocked waiting for; the device carries the bound packets. */
enum vaced_bound_msg { VACED_BOUND_REQUEST, VACED_BOUND_REPORT };
enum vaced_peer_state {
    VACED_PEER_RUNNING,         /* t: bound on its future messages' arrival */
    VACED_PEER_BLOCKED,         /* waits for messages from `rank` only (-2: several) */
    VACED_PEER_FINALIZING       /* sends no more messages */
};
struct vaced_bound_pkt {
    int msg;                    /* enum vaced_bound_msg */
    int seq;                    /* the asker's decision, echoed in reports */
    int state;                  /* report: enum vaced_peer_state */
    int rank;                   /* request: `about`, a rank whose sent count the asker
                                 * needs (-1: none); report: the rank it waits on */
    int about;                  /* report: the request's `about` */
    uint32_t recv_from;         /* report: packets received from `rank` */
    uint32_t sent_to;           /* report: packets sent to `about` */
    vaced_time_t t;             /* request: bound needed; report: the bound */
};
/* A bound packet from world rank `peer` arrived. */
void vaced_bound_received(int peer, const struct vaced_bound_pkt *p);

/* --- Matching as the target does it (matching.c) -----------------------
 * The device keeps its receive queues and requests; the rules read them
 * through the functions it gives vaced_sim_start.  Requests and
 * communicators are the device's handles, passed back unchanged. */
enum vaced_req_kind { VACED_REQ_OTHER, VACED_REQ_SEND, VACED_REQ_RECV };
struct vaced_req_facts {
    int kind;                   /* enum vaced_req_kind */
    int msg_kind;               /* its message: VACED_PKT_EAGER, _RTS (rendezvous),
                                 * _SELF, or _OTHER (not known yet) */
    int complete;               /* complete on the host */
    int active;                 /* not an inactive persistent request */
    int held;                   /* a receive posted held (vaced_post) */
    int peer;                   /* rank in comm: a send's destination, a receive's
                                 * source as posted, an unexpected message's sender;
                                 * negative: any source, or none */
    int status_peer;            /* a matched receive's sender */
    uint64_t bytes;             /* a receive's message size */
    void *comm;                 /* NULL: none */
    struct vaced_msg *msg;
};
struct vaced_device {
    void (*send_bound)(int peer, const struct vaced_bound_pkt *p);
    void *(*unexpected_next)(void *u);  /* the unexpected queue in order (NULL: its head) */
    void *(*posted_next)(void *p);      /* the posted receives in order (NULL: the first) */
    void *(*claimant)(void *u);         /* the first posted receive message u matches */
    int (*matches)(void *u, const void *spec);  /* u matches a receive's or probe's spec */
    void (*facts)(void *req, struct vaced_req_facts *f);
    int (*comm_size)(void *comm);       /* the senders a receive on comm may hear */
    /* the world rank of comm's `rank` (-1: another process group); *closing
     * (if not NULL): it sends no more */
    int (*world_rank)(void *comm, int rank, int *closing);
    int (*drain)(void);         /* reads every message already on the host; 0: ok */
    int (*progress_wait)(void); /* waits for the next host event; 0: ok */
    int (*writing)(void);       /* a write is pending: progress without a message */
};

/* Unexpected message u is kept for a held receive: a probe or another
 * receive must not take it. */
int vaced_claimed(void *u);
/* The message a receive or probe matching `spec` from any source takes
 * among the unexpected ones (NULL: the device's first): the earliest target
 * arrival among the oldest candidate of each source.  With `owner`, a held
 * receive, among the messages it claims. */
void *vaced_pick(void *owner, const void *spec);
/* A receive or blocking probe on comm from `source` (negative: any),
 * matching spec, is about to look for its message.  A wildcard waits on the
 * host until its first message on the target is proven, or (a receive
 * behind held ones; a nonblocking one not proven yet) is to be posted held
 * (*held; NULL for probes).  MPI_Iprobe waits until what the target finds by now is known
 * (senders late on the host decided).  Returns the device's status from
 * drain or progress_wait (0: ok). */
enum vaced_post { VACED_POST_IRECV, VACED_POST_RECV, VACED_POST_PROBE, VACED_POST_MPROBE,
    VACED_POST_IPROBE };
int vaced_post(void *comm, int source, const void *spec, enum vaced_post how, int *held);
/* A blocking probe ends, having found a message arriving at ta
 * (VACED_TIME_UNSET: none): it ends once the message is handled. */
void vaced_probe_found(vaced_time_t ta);
/* MPI_Test of req (a send or receive), not complete on the host: waits on
 * the host until the target's answer is known, i.e. until the peers that
 * could complete it by now, late on the host, are decided.  Returns the
 * device's status (0: ok). */
int vaced_test_settle(void *req);
/* The held-receive hook: 1 when held receive *posted is to be given message
 * *msg (both to be dequeued), proven its first, or a message is for a
 * receive posted behind held ones; 0: nothing now; -1: no held receive left. */
int vaced_held_next(void **posted, void **msg);
/* The rank is about to block on the host, or a busy-polling wait went
 * round without result: peers that asked for its bound learn what it
 * waits for. */
void vaced_idle(void);
/* Waitany may report the request the target completes first, at t, once no
 * request of reqs (req_at(reqs, i), i < count) that the host has not
 * completed can complete earlier on the target, as peers' bounds prove.
 * *asked starts at 0 for each call.  0: keep waiting. */
int vaced_waitany_decided(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i),
                          void *reqs, int *asked);

#endif
