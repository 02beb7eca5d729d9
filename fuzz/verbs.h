/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdmachan-fuzz: what the verbs files share among themselves (what the
 * rest of the fuzzer uses of them is in fuzz.h): the constants of their
 * calls, where a call's arrays go in a thread's buffer arena, and what
 * one file gives another. verbs.c has the setup, why() and the step that
 * picks an action; verbs_model.c the model of a file's verbs objects;
 * verbs_objects.c PDs, MRs, SRQs and AHs; verbs_cq.c CQs, completion
 * channels and completions; verbs_qp.c QPs; verbs_post.c the posts;
 * verbs_destroy.c the destroys.
 */
#ifndef RDMACHAN_FUZZ_VERBS_H
#define RDMACHAN_FUZZ_VERBS_H

#include "fuzz.h"

#define WR_MAGIC	0xc5ull
#define CQ_MAGIC	0xcbull
#define FUZZ_QKEY	0x2a2a0000u
#define MR_MEM_LEN	(256 * 1024)
/* the last part of the MR memory is unmapped and mapped again now and then */
#define MR_SCRATCH	(64 * 1024)
#define MAX_POST	6
#define MAX_SGE		4
#define QPS_UNKNOWN	0xff
#define WC_SIZE		sizeof(struct rdmachan_wc)
/* where in the thread's buffer arena a call's arrays go */
#define WRS_OFF		(32 * 1024)
#define SGES_OFF	(40 * 1024)
#define WCS_OFF		(44 * 1024)

enum post_kind { P_SEND, P_RECV, P_SRQ };

/* verbs.c */
const char *why(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* verbs_model.c */
extern const char *const vkind_names[NVKINDS];
struct vobj *vobj_add(struct thr *t, struct mfile *f, u32 h, int kind,
		      const struct call *c);
void vobj_gone(struct worker *w, struct mfile *f, struct vobj *o);
int vobj_count(struct mfile *f, int kind);
u32 pd_ctx(struct mfile *f, u32 pd);
int pick_vfile(struct thr *t, struct mfile **fp);

/* verbs_objects.c */
u8 *mr_mem(struct worker *w);
void remap_scratch(struct worker *w);
void act_alloc_pd(struct thr *t);
void act_reg_mr(struct thr *t);
void act_create_srq(struct thr *t);
void act_query_srq(struct thr *t, bool modify);
void fill_av(struct rdmachan_ah_attr *av);
void create_ah(struct thr *t, int fi, struct mfile *f, struct vobj *pd);
void act_create_ah(struct thr *t);

/* verbs_cq.c */
void act_create_channel(struct thr *t);
void act_close_channel(struct thr *t);
void act_create_cq(struct thr *t);
void act_poll_cq(struct thr *t);
void ack_cq(struct thr *t, int fi, struct mfile *f, struct vobj *cq,
	    u32 num);
void act_notify_cq(struct thr *t, bool ack_only);
void act_get_cq_event(struct thr *t);

/* verbs_qp.c */
void act_create_qp(struct thr *t);
struct vobj *peer_qp(struct thr *t, u32 qpt);
void act_modify_qp(struct thr *t);
void act_query_qp(struct thr *t);

/* verbs_post.c */
void act_post(struct thr *t, int kind);

/* verbs_destroy.c */
void act_vdestroy(struct thr *t);
void act_query_async_events(struct thr *t);

#endif /* RDMACHAN_FUZZ_VERBS_H */
