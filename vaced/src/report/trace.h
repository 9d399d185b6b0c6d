/* An optional per-rank timeline of the prediction: with VACED_TRACE=DIR,
 * rank R writes DIR/vaced-trace.R.csv in target seconds.  Its header is
 *   kind,start_s,end_s
 * and each line one of these kinds:
 *   compute,START,END   a segment between two MPI calls (host CPU time)
 *   mpi,START,END       an outermost MPI call (modelled time)
 *   poll,START,END      the CPU time a failed test or probe counts as the
 *                       program's polling, right after its mpi span
 *   send,PEER,SEQ,BYTES,T   a point-to-point message this rank sent to
 *                       world rank PEER at T (the rank's clock when it
 *                       handed the message's first packet over)
 *   recv,PEER,SEQ,BYTES,T   a message from PEER whose receive completed
 *                       at T
 *   site,ID,FUNCTION,COLL,OFFSET,MODULE   call site ID of this rank: the
 *                       MPI function (COLL 1: a blocking collective) called
 *                       from MODULE (a path, last: it may hold commas) at
 *                       OFFSET (hex, as addr2line reads it)
 *   call,ID,START,END   an outermost MPI call from site ID, from its first
 *                       activity to its return (report/calls.c)
 * The compute, mpi and poll spans tile [0, the rank's prediction]: their
 * ends meet, and the compute and poll spans add up to the rank's compute
 * time.  SEQ counts a pair's messages from 0 in the order the sender sent
 * them, on both sides: the send (S's line, PEER R, SEQ k) and the receive
 * (R's line, PEER S, SEQ k) are one message.  Messages are those of
 * MPICH's point-to-point protocol, collectives' included; their lines
 * are written when known, not in time order (a rendezvous send's once its
 * data leaves, a receive's once it is reported).  Tags are not written:
 * the model's hooks do not carry them.
 *
 * Two more kinds say how each advance of tV inside an MPI call was made,
 * so that the critical path can be walked back exactly (trace_path.c):
 *   step,START,MID,END,TERM1,TERM2   the rank's own work: TERM1 from START
 *                       to MID, TERM2 from MID to END (a send's o_s and
 *                       copy; a receive's o_r and copy)
 *   wait,FROM,CUT,TO,OVH,DIR,PEER,SEQ,SENT,LANDED,RSENT,RLANDED,LEAD,BEGIN[,TERM,UNTIL]...
 *                       a wait's jump from FROM to TO: up to CUT along the
 *                       chain of the completion that ended it (BEGIN, then
 *                       spans of TERM each ending at UNTIL; LEAD before
 *                       BEGIN), then its CPU's turns (OVH of o_r, the rest
 *                       copies).  DIR,PEER,SEQ name that completion's
 *                       message as the message lines do (recv: from PEER;
 *                       send: to PEER, ended by PEER's answer; -,-1,-1:
 *                       unnamed).  The last packet PEER sent for it (DATA,
 *                       or the answer to a send) left PEER at SENT and
 *                       landed here at LANDED; a rendezvous receive's
 *                       request left PEER at RSENT and landed at RLANDED
 *                       ('-': not known or none). */
#ifndef VACED_TRACE_H
#define VACED_TRACE_H

#include "report/trace_state.h"

/* Opens the file if VACED_TRACE is set and non-empty.  On failure prints
 * one line to stderr (the rank goes on, untraced) and returns -1. */
int vaced_trace_open(int rank);

/* Flushes and closes; reports a write error (a full disk) on stderr. */
void vaced_trace_close(int rank);

#endif
