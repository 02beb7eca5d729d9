// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rdma_server/rdma_client way of writing a program: rdma_getaddrinfo,
 * rdma_create_ep with QP attributes on both sides (the listener's
 * attributes give each rdma_get_request id its QP), and the <rdma/
 * rdma_verbs.h> helpers rdma_reg_msgs/_read/_write, rdma_post_recv,
 * rdma_post_send, rdma_post_write, rdma_post_read, rdma_get_send_comp and
 * rdma_get_recv_comp, which need id->pd, id->send_cq, id->recv_cq and
 * their channels filled in as librdmacm fills them. Synchronous ids
 * cannot be polled: each test runs under a watchdog.
 */
#include <pthread.h>

#include <rdma/rdma_verbs.h>

#include "verbs_test.h"
#include "kselftest_harness.h"

#define WATCHDOG_S	60
#define TIMEOUT_S	90
#define MSG		256
#define AREA		8192

/* What the server tells the client about its memory, in its reply. */
struct reply {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
	char text[MSG - 16];
};

struct server {
	struct rdma_cm_id *listen;
	char port[16];
	int ret;		/* 0 when every step of the server passed */
	const char *failed;	/* the step that did not */
	int with_qp_attrs;	/* listener made with QP attributes */
};

static void ep_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = 4;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_inline_data = 16;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

#define STEP(what, cond) do { \
		if (!(cond)) { \
			s->failed = what; \
			fprintf(stderr, "# server: %s: %s\n", what, \
				strerror(errno)); \
			goto out; \
		} \
	} while (0)

/*
 * The server side of rdma_server.c, and one step more: it receives the
 * client's message, replies with where the client may write and read,
 * and receives a final message once the client did.
 */
static void *server_thread(void *arg)
{
	struct server *s = arg;
	struct rdma_cm_id *id = NULL;
	struct ibv_mr *msg_mr = NULL, *area_mr = NULL;
	unsigned char *msg = calloc(1, 2 * MSG);
	unsigned char *area = aligned_alloc(4096, AREA);
	struct reply *reply = (struct reply *)(msg + MSG);
	struct ibv_wc wc;
	int ret;

	s->ret = -1;
	STEP("memory", msg && area);
	vt_fill(area, AREA, 42);
	STEP("rdma_get_request", !rdma_get_request(s->listen, &id));
	if (!s->with_qp_attrs) {
		struct ibv_qp_init_attr attr;

		STEP("no QP without attributes", !id->qp);
		ep_attr(&attr);
		STEP("rdma_create_qp", !rdma_create_qp(id, NULL, &attr));
	}
	STEP("the id has a QP", id->qp && id->qp->qp_type == IBV_QPT_RC);
	STEP("the id has its PD and CQs", id->pd && id->send_cq &&
	     id->recv_cq && id->send_cq_channel && id->recv_cq_channel &&
	     id->qp->pd == id->pd && id->qp->send_cq == id->send_cq &&
	     id->qp->recv_cq == id->recv_cq);
	msg_mr = rdma_reg_msgs(id, msg, 2 * MSG);
	STEP("rdma_reg_msgs", msg_mr);
	area_mr = ibv_reg_mr(id->pd, area, AREA, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	STEP("ibv_reg_mr", area_mr);
	STEP("rdma_post_recv", !rdma_post_recv(id, msg, msg, MSG, msg_mr));
	STEP("rdma_accept", !rdma_accept(id, NULL));

	ret = rdma_get_recv_comp(id, &wc);
	STEP("rdma_get_recv_comp", ret == 1 && wc.status == IBV_WC_SUCCESS &&
	     wc.wr_id == (uintptr_t)msg && wc.byte_len == MSG);
	STEP("the client's message", vt_check(msg, MSG, 1));

	STEP("rdma_post_recv 2", !rdma_post_recv(id, NULL, msg, MSG, msg_mr));
	reply->addr = (uintptr_t)area;
	reply->rkey = area_mr->rkey;
	reply->len = AREA;
	snprintf(reply->text, sizeof(reply->text), "%s", cm_rep_data);
	STEP("rdma_post_send", !rdma_post_send(id, reply, reply, MSG, msg_mr,
					       0));
	/*
	 * The client disconnects as soon as "done" is acknowledged, and its
	 * DREQ moves this QP to the error state. rxe completes a receive
	 * before it sends the ACK, and processes an ACK in a task: if the
	 * client's ACK of the reply was dropped by its own disconnect or not
	 * yet processed here, the reply (which the client has) is flushed.
	 */
	ret = rdma_get_send_comp(id, &wc);
	if (ret == 1 && wc.status != IBV_WC_SUCCESS)
		fprintf(stderr, "# server: the reply completed with %s\n",
			ibv_wc_status_str(wc.status));
	STEP("rdma_get_send_comp", ret == 1 && wc.wr_id == (uintptr_t)reply &&
	     (wc.status == IBV_WC_SUCCESS ? wc.opcode == IBV_WC_SEND :
	      wc.status == IBV_WC_WR_FLUSH_ERR &&
	      vt_qp_state_is(id->qp, IBV_QPS_ERR)));

	/* the client wrote the second half of the area, then says done */
	ret = rdma_get_recv_comp(id, &wc);
	STEP("final message", ret == 1 && wc.status == IBV_WC_SUCCESS &&
	     !strcmp((char *)msg, "done"));
	STEP("the area as the client wrote it", vt_check(area, AREA / 2, 42) &&
	     vt_check(area + AREA / 2, AREA / 2, 43));
	STEP("rdma_disconnect", !rdma_disconnect(id));
	s->ret = 0;
out:
	if (area_mr)
		ibv_dereg_mr(area_mr);
	if (msg_mr)
		rdma_dereg_mr(msg_mr);
	if (id)
		rdma_destroy_ep(id);
	free(msg);
	free(area);
	return NULL;
}

FIXTURE(ep) {
	struct server s;
	pthread_t thread;
	bool started;
};

FIXTURE_VARIANT(ep) {
	int with_qp_attrs;
};

FIXTURE_VARIANT_ADD(ep, listener_with_qp_attrs) {
	.with_qp_attrs = 1,
};

FIXTURE_VARIANT_ADD(ep, listener_without_qp_attrs) {
	.with_qp_attrs = 0,
};

FIXTURE_SETUP(ep)
{
	struct rdma_addrinfo hints = {
		.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP,
	}, *res;
	struct ibv_qp_init_attr attr;

	cm_watchdog(WATCHDOG_S);
	ep_attr(&attr);
	ASSERT_EQ(0, rdma_getaddrinfo(cm_test_addr(), "0", &hints, &res));
	ASSERT_EQ(0, rdma_create_ep(&self->s.listen, res, NULL,
				    variant->with_qp_attrs ? &attr : NULL));
	rdma_freeaddrinfo(res);
	/* a listener has no QP of its own */
	EXPECT_EQ(NULL, self->s.listen->qp);
	ASSERT_EQ(0, rdma_listen(self->s.listen, 2));
	snprintf(self->s.port, sizeof(self->s.port), "%d",
		 cm_port(self->s.listen));
	self->s.with_qp_attrs = variant->with_qp_attrs;
	ASSERT_EQ(0, pthread_create(&self->thread, NULL, server_thread,
				    &self->s));
	self->started = true;
}

FIXTURE_TEARDOWN(ep)
{
	if (!_metadata->passed)
		return;
	rdma_destroy_ep(self->s.listen);
}

/*
 * The client side of rdma_client.c: message, reply, then an RDMA WRITE
 * into the server's area and an RDMA READ of all of it back.
 */
TEST_F_TIMEOUT(ep, client_and_server_exchange, TIMEOUT_S)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	unsigned char *msg = calloc(1, 2 * MSG);
	unsigned char *area = aligned_alloc(4096, 2 * AREA);
	struct reply *reply = (struct reply *)(msg + MSG);
	struct ibv_mr *msg_mr, *write_mr, *read_mr;
	struct ibv_wc wc;

	ASSERT_NE(NULL, msg);
	ASSERT_NE(NULL, area);
	ep_attr(&attr);
	ASSERT_EQ(0, rdma_getaddrinfo(cm_test_addr(), self->s.port, &hints,
				      &res));
	ASSERT_EQ(0, rdma_create_ep(&id, res, NULL, &attr));
	rdma_freeaddrinfo(res);
	/* the active endpoint has its QP, PD and CQs already */
	ASSERT_NE(NULL, id->qp);
	ASSERT_NE(NULL, id->pd);
	ASSERT_NE(NULL, id->send_cq);
	ASSERT_NE(NULL, id->recv_cq);
	ASSERT_NE(NULL, id->send_cq_channel);
	ASSERT_NE(NULL, id->recv_cq_channel);
	EXPECT_EQ(id->pd, id->qp->pd);
	EXPECT_EQ(id->verbs, id->qp->context);
	ASSERT_LE(4, attr.cap.max_send_wr);	/* what the QP got */

	msg_mr = rdma_reg_msgs(id, msg, 2 * MSG);
	ASSERT_NE(NULL, msg_mr);
	write_mr = rdma_reg_write(id, area, AREA);
	ASSERT_NE(NULL, write_mr);
	read_mr = rdma_reg_read(id, area + AREA, AREA);
	ASSERT_NE(NULL, read_mr);
	ASSERT_EQ(0, rdma_post_recv(id, reply, reply, MSG, msg_mr));
	ASSERT_EQ(0, rdma_connect(id, NULL));

	vt_fill(msg, MSG, 1);
	ASSERT_EQ(0, rdma_post_send(id, msg, msg, MSG, msg_mr, 0));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ((uintptr_t)msg, wc.wr_id);
	ASSERT_EQ(1, rdma_get_recv_comp(id, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ((uintptr_t)reply, wc.wr_id);
	EXPECT_STREQ(cm_rep_data, reply->text);
	ASSERT_EQ(AREA, reply->len);

	/* RDMA WRITE of the second half of the server's area */
	vt_fill(area, AREA / 2, 43);
	ASSERT_EQ(0, rdma_post_write(id, area, area, AREA / 2, write_mr, 0,
				     reply->addr + AREA / 2, reply->rkey));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	/* RDMA READ of the whole area */
	memset(area + AREA, 0, AREA);
	ASSERT_EQ(0, rdma_post_read(id, area + AREA, area + AREA, AREA,
				    read_mr, 0, reply->addr, reply->rkey));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_RDMA_READ, wc.opcode);
	EXPECT_TRUE(vt_check(area + AREA, AREA / 2, 42));
	EXPECT_TRUE(vt_check(area + AREA + AREA / 2, AREA / 2, 43));

	/*
	 * done: an inline send from unregistered memory (NULL mr). The
	 * server checks what it got and disconnects at once; its DREQ moves
	 * this QP to the error state, which flushes the send if the ACK of
	 * "done" has not been processed here yet.
	 */
	ASSERT_EQ(0, rdma_post_send(id, NULL, "done", 5, NULL,
				    IBV_SEND_INLINE));
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	EXPECT_TRUE(wc.status == IBV_WC_SUCCESS ||
		    wc.status == IBV_WC_WR_FLUSH_ERR) {
		TH_LOG("the send of done completed with status %d", wc.status);
	}

	/*
	 * Both ends disconnect (the server once it has "done"); on a
	 * synchronous id rdma_disconnect returns with DISCONNECTED, which
	 * needs the peer's own rdma_disconnect: so before the join.
	 */
	EXPECT_EQ(0, rdma_disconnect(id));
	EXPECT_TRUE(vt_qp_state_is(id->qp, IBV_QPS_ERR));
	ASSERT_EQ(0, pthread_join(self->thread, NULL));
	EXPECT_EQ(0, self->s.ret) {
		TH_LOG("server failed at: %s", self->s.failed);
	}
	EXPECT_EQ(0, rdma_dereg_mr(msg_mr));
	EXPECT_EQ(0, rdma_dereg_mr(write_mr));
	EXPECT_EQ(0, rdma_dereg_mr(read_mr));
	rdma_destroy_ep(id);
	free(msg);
	free(area);
}

/*
 * No XRC (rxe has none either): an XRC endpoint, as rdma_xclient -c x
 * makes it, fails in rdma_create_ep with EOPNOTSUPP, as librdmacm's does
 * when it makes the QP, and leaves nothing behind.
 */
TEST(xrc_endpoint_not_supported)
{
	struct rdma_addrinfo hints = {
		.ai_port_space = RDMA_PS_TCP, .ai_qp_type = IBV_QPT_XRC_SEND,
	}, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id = NULL;

	cm_watchdog(WATCHDOG_S);
	ASSERT_EQ(0, rdma_getaddrinfo(cm_test_addr(), "7471", &hints, &res));
	ASSERT_EQ(IBV_QPT_XRC_SEND, res->ai_qp_type);
	ep_attr(&attr);
	attr.qp_type = IBV_QPT_XRC_SEND;
	errno = 0;
	EXPECT_EQ(-1, rdma_create_ep(&id, res, NULL, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(NULL, id);
	rdma_freeaddrinfo(res);
}

TEST_HARNESS_MAIN
