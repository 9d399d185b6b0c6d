/* vaced_host.h: what MPICH's sock channel asks about same-host links.
 *
 * Ranks of one host reach each other through Unix domain sockets with
 * abstract names rather than loopback TCP: the same byte stream, so the
 * protocol and the model's stamps are unchanged, without TCP's per-packet
 * work.  Abstract names live in a kernel's network namespace, so a rank
 * takes a peer's name only when the peer's host key equals its own; any
 * other peer, or a failed connect, is reached over TCP as before. */
#ifndef VACED_HOST_H_INCLUDED
#define VACED_HOST_H_INCLUDED

#include <stddef.h>

/* Non-zero when same-host links are wanted: $VACED_TRANSPORT is unset,
 * empty, "shm" (the links carry shared-memory rings: vaced_link.h) or
 * "unix" (the socket carries the bytes); "tcp" turns them off.  Any other
 * value also means TCP, after one note on stderr. */
int vaced_local_links(void);

/* Writes the key of this rank's kernel and network namespace (the boot's
 * id and the namespace's inode) to buf.  Two ranks with equal keys can
 * reach each other's abstract socket names and speak the same way over
 * them (the key ends with the mode).  Returns 0, or -1 (buf empty)
 * when either is unreadable or len is too small: the caller then uses
 * TCP only. */
int vaced_host_key(char *buf, size_t len);

#endif
