// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The other process of qp_number_reuse_test, exec'd as the user nobody:
 * an RC connection of its own over the rdma-core API, whose client QP is
 * made first, so that it takes the QP number the device hands out next.
 *
 *   qp_reuse_victim
 *
 * Prints the client QP's number on stdout once connected, then waits for
 * a line on stdin (the other process has tried what it tries) and checks
 * that its connection is intact: both QPs still in RTS, no CM event on
 * either end, and a message each way arriving byte for byte.
 *
 * Exit status: 0 when intact; 2 when the connection was disturbed; 1 when
 * it could not be set up (said on stderr).
 */
#include "verbs_test.h"

#define BUF_LEN		8192
#define SEND_OFF	0
#define RECV_OFF	4096
#define MSG_LEN		64

/* One message from @from to @to, checked byte for byte: 0 or -1. */
static int one_message(struct vt_end *from, struct vt_end *to,
		       unsigned int seed)
{
	struct ibv_wc wc;

	memset(to->buf + RECV_OFF, 0, MSG_LEN);
	vt_fill(from->buf + SEND_OFF, MSG_LEN, seed);
	if (vt_post_recv(to, seed, RECV_OFF, MSG_LEN) ||
	    vt_post_send(from, IBV_WR_SEND, seed, SEND_OFF, MSG_LEN, 0, 0, 0,
			 0) ||
	    vt_expect_wc(from, &wc, IBV_WC_SEND, seed) ||
	    vt_expect_wc(to, &wc, IBV_WC_RECV, seed))
		return -1;
	return vt_check(to->buf + RECV_OFF, MSG_LEN, seed) ? 0 : -1;
}

static int intact(struct vt_pair *p)
{
	int c = vt_qp_state(p->c.id->qp), s = vt_qp_state(p->s.id->qp);

	if (c != IBV_QPS_RTS || s != IBV_QPS_RTS) {
		fprintf(stderr, "# qp_reuse_victim: QP states %d and %d, want RTS\n",
			c, s);
		return 0;
	}
	if (!cm_quiet(p->cch, CM_QUIET_MS) || !cm_quiet(p->sch, CM_QUIET_MS))
		return 0;
	return !one_message(&p->c, &p->s, 1) && !one_message(&p->s, &p->c, 2);
}

int main(void)
{
	struct vt_pair p;
	char line[16];
	int ret;

	if (vt_pair_connect_rc(&p, BUF_LEN, VT_BUSY_POLL)) {
		fprintf(stderr, "# qp_reuse_victim: no connection\n");
		return 1;
	}
	printf("%u\n", p.c.id->qp->qp_num);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "# qp_reuse_victim: no word to check\n");
		return 1;
	}
	ret = intact(&p) ? 0 : 2;
	if (!ret && vt_pair_disconnect(&p))
		ret = 2;
	if (vt_pair_close(&p) && !ret)
		ret = 1;
	return ret;
}
