/* A message's record (message.c): the model's side of vaced.h's
 * vaced_msg_* calls, which entry/entry_message.c makes after logging
 * MPICH's.  vaced_msg_done and vaced_msg_arrival are the model's own (it
 * asks them itself): they tell its observer what they answer. */
#ifndef VACED_MESSAGE_H
#define VACED_MESSAGE_H

#include "vaced.h"

/* As vaced.h's vaced_msg_init ... vaced_msg_report.  A new record is
 * unnamed (id 0): the recorder names those MPICH makes. */
void vaced_model_msg_init(struct vaced_msg *m);
void vaced_model_msg_complete_by(struct vaced_msg *m, vaced_time_t t);
void vaced_model_msg_arrived(struct vaced_msg *m, enum vaced_pkt_kind kind, vaced_time_t ta,
                             uint64_t bytes);
/* The post's time; a held post is the matching's (vaced_matching_hold). */
void vaced_model_msg_posted(struct vaced_msg *m);
void vaced_model_msg_found(struct vaced_msg *m, const struct vaced_msg *from,
                           enum vaced_pkt_kind kind, int complete, uint64_t bytes, int blocking);
int vaced_model_msg_complete_now(const struct vaced_msg *m, uint64_t bytes);
void vaced_model_msg_report(struct vaced_msg *m, uint64_t bytes);

#endif
