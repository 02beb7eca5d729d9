// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: verbs objects and the data path, against a module with
 * RDMACHAN_FEATURE_VERBS.
 *
 * The worker's threads keep a model of each file's PDs, MRs, CQs, QPs,
 * SRQs and AHs and of the worker's completion channels, and make the
 * calls a library makes: UD, UC and RC QPs taken to RTS by hand (towards
 * the worker's own QPs) or made for CM ids, receives and sends between
 * them, polls, CQs armed and their channel events. Their own faults:
 * MRs of unmapped, read-only, kernel or vanishing memory or with bad
 * access flags; SGEs with lkeys of other PDs or files, stale or random
 * ones, or outside their MR; handles of other files and other kinds in
 * every handle field; bad counts, strides and pointers; channels closed
 * before their CQs and CQs destroyed before their channels; destroys of
 * objects still in use. The generic faults of rdmachan_fuzz.c (sizes,
 * pointers, flags, reserved fields, the first handle) come on top.
 *
 * Checked: each call's errno against the uAPI's; a destroy refuses
 * exactly what is in use; no request past a bad one is posted
 * (out_num_posted); completions carry a wr_id that was posted, a valid
 * status and opcode; channel events come only for CQs of that channel
 * that were armed.
 *
 * This file has the setup (the GID that AVs point at), why() and the
 * step, which picks one action; the actions and the model are in
 * verbs_*.c, listed in verbs.h.
 */
#include "verbs.h"

/* A call's description of its own, in the thread's buffer. */
static __thread char why_buf[160];

const char *why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

/* The port's GID of the test address, RoCE v2: what AVs point at. */
int verbs_setup(int fd, u32 ctx)
{
	u8 want[16] = { [10] = 0xff, [11] = 0xff };
	u32 i;

	memcpy(want + 12, &cfg.addr, 4);
	for (i = 0; i < cfg.gid_tbl_len && i < 64; i++) {
		struct rdmachan_query_gid q = {
			.size = sizeof(q), .handle = ctx, .port_num = 1,
			.index = i,
		};

		if (ioctl(fd, RDMACHAN_IOC_QUERY_GID, &q))
			continue;
		if (q.out_gid_type == RDMACHAN_GID_TYPE_ROCE_V2 &&
		    !memcmp(q.out_gid, want, 16)) {
			cfg.gid_index = i;
			memcpy(cfg.gid, want, 16);
			return 0;
		}
	}
	return -1;
}

void verbs_step(struct thr *t)
{
	struct worker *w = t->w;
	u32 r = rnd(t, 1100);

	if (r >= 1000) {
		r -= 1000;
		if (r < 10)
			act_open_async(t);
		else if (r < 15)
			act_close_async(t);
		else if (r < 60)
			act_get_async(t);
		else if (r < 80)
			act_ack_async(t);
		else if (r < 90)
			act_query_async_events(t);
		else
			act_read_ring(t);
		return;
	}

	if (r < 40)
		act_alloc_pd(t);
	else if (r < 110)
		act_reg_mr(t);
	else if (r < 130)
		act_create_channel(t);
	else if (r < 140)
		act_close_channel(t);
	else if (r < 190)
		act_create_cq(t);
	else if (r < 210)
		act_create_srq(t);
	else if (r < 240)
		act_create_ah(t);
	else if (r < 310)
		act_create_qp(t);
	else if (r < 420)
		act_modify_qp(t);
	else if (r < 440)
		act_query_qp(t);
	else if (r < 560)
		act_post(t, P_SEND);
	else if (r < 660)
		act_post(t, P_RECV);
	else if (r < 690)
		act_post(t, P_SRQ);
	else if (r < 790)
		act_poll_cq(t);
	else if (r < 830)
		act_notify_cq(t, false);
	else if (r < 845)
		act_notify_cq(t, true);
	else if (r < 895)
		act_get_cq_event(t);
	else if (r < 905)
		act_query_srq(t, false);
	else if (r < 915)
		act_query_srq(t, true);
	else if (r < 997)
		act_vdestroy(t);
	else if (w->mr_mem)
		remap_scratch(w);
}
