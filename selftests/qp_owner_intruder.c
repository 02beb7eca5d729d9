// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The other process of cm_qp_owner_test: a CM client and a listener of
 * its own, talking to each other over the rdma-core CM API, that put a
 * chosen QP number in a connect or an accept.
 *
 *   qp_owner_intruder connect|accept rc|ud QPN|own|none
 *
 * QPN names a QP of another process, "own" a QP this process makes and
 * does not bind to the id, "none" a number no QP has. "connect" puts it
 * in rdma_connect(); "accept" connects with a number no QP has and puts
 * it in rdma_accept() of the request.
 *
 * On iWARP, whose CM takes a connection's QP by number from the driver,
 * the client of "accept" connects with a QP of its own, and the other end
 * is not told the number (MPA carries none).
 *
 * Exit status: 0 when the call succeeded and the other end saw the
 * number; the call's errno when it failed and nothing reached the other
 * end; 1 for anything else (said on stderr).
 */
#include <stdbool.h>

#include "cm_test.h"

/* Above every QP number rxe hands out (its QP table has 2^17 entries). */
#define NO_SUCH_QPN	0xfedcbaU
#define CLIENT_QPN	0xfedcb0U

struct intruder {
	struct rdma_event_channel *cch, *sch;
	struct rdma_cm_id *listen, *client, *server;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp, *client_qp;
	enum rdma_port_space ps;
	bool own;
	uint32_t qpn;
};

static int fail(const char *what)
{
	fprintf(stderr, "# qp_owner_intruder: %s: %s\n", what, strerror(errno));
	return 1;
}

/* A QP of this process on @verbs in *@qp, bound to no id: 0 or 1. */
static int make_qp(struct intruder *in, struct ibv_context *verbs,
		   struct ibv_qp **qp)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = in->ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (!in->pd)
		in->pd = ibv_alloc_pd(verbs);
	if (!in->pd)
		return fail("ibv_alloc_pd");
	if (!in->cq)
		in->cq = ibv_create_cq(verbs, 4, NULL, NULL, 0);
	if (!in->cq)
		return fail("ibv_create_cq");
	attr.send_cq = in->cq;
	attr.recv_cq = in->cq;
	*qp = ibv_create_qp(in->pd, &attr);
	if (!*qp)
		return fail("ibv_create_qp");
	return 0;
}

/* The QP "own" names, made on @verbs: its number in in->qpn. */
static int make_own_qp(struct intruder *in, struct ibv_context *verbs)
{
	if (make_qp(in, verbs, &in->qp))
		return 1;
	in->qpn = in->qp->qp_num;
	return 0;
}

/*
 * The other end was told @seen in the request (@request) or the reply,
 * when its transport tells it: 0 or 1.
 */
static int told_qpn(struct intruder *in, uint32_t seen, bool request)
{
	/* SIDR's request and MPA carry no QP number */
	if (cm_on_iwarp() || (in->ps == RDMA_PS_UDP && request))
		return 0;
	if (seen == in->qpn)
		return 0;
	fprintf(stderr, "# qp_owner_intruder: %s says QP %u, sent %u\n",
		request ? "request" : "reply", seen, in->qpn);
	return 1;
}

/* The number the other end got: from the request, or the reply. */
static uint32_t qpn_seen(struct intruder *in, struct rdma_cm_event *ev)
{
	return in->ps == RDMA_PS_UDP ? ev->param.ud.qp_num :
				       ev->param.conn.qp_num;
}

/*
 * The client's answer to a request the server refused: REJECTED (RC) or
 * UNREACHABLE (SIDR's reply says "rejected"). 0 or 1.
 */
static int client_refused(struct intruder *in)
{
	struct rdma_cm_event *ev;
	int type;

	if (cm_get_event(in->cch, &ev, CM_TIMEOUT_MS))
		return fail("client's answer");
	type = ev->event;
	rdma_ack_cm_event(ev);
	if (type != RDMA_CM_EVENT_REJECTED &&
	    type != RDMA_CM_EVENT_UNREACHABLE) {
		fprintf(stderr, "# qp_owner_intruder: client got %s\n",
			cm_ev_name(type));
		return 1;
	}
	return 0;
}

/* rdma_connect() with in->qpn. */
static int try_connect(struct intruder *in)
{
	struct rdma_cm_event *ev;
	struct rdma_conn_param param;
	int err;

	cm_conn_param(&param, in->qpn, cm_req_data, sizeof(cm_req_data));
	if (rdma_connect(in->client, &param)) {
		err = errno;
		/* "fails ... before anything is sent" */
		if (!cm_quiet(in->sch, CM_QUIET_MS) ||
		    !cm_quiet(in->cch, CM_QUIET_MS))
			return 1;
		return err;
	}
	ev = cm_expect(in->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	if (!ev)
		return 1;
	in->server = ev->id;
	err = told_qpn(in, qpn_seen(in, ev), true);
	rdma_ack_cm_event(ev);
	if (rdma_reject(in->server, NULL, 0))
		return fail("rdma_reject");
	return client_refused(in) || err;
}

/* A request with a number no QP has, answered by rdma_accept(in->qpn). */
static int try_accept(struct intruder *in)
{
	struct rdma_conn_param param;
	uint32_t client_qpn = CLIENT_QPN;
	struct rdma_cm_event *ev;
	int err, ret, answer;

	if (cm_on_iwarp()) {
		if (make_qp(in, in->client->verbs, &in->client_qp))
			return 1;
		client_qpn = in->client_qp->qp_num;
	}
	cm_conn_param(&param, client_qpn, cm_req_data, sizeof(cm_req_data));
	if (rdma_connect(in->client, &param))
		return fail("rdma_connect");
	ev = cm_expect(in->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	if (!ev)
		return 1;
	in->server = ev->id;
	rdma_ack_cm_event(ev);
	if (in->own && make_own_qp(in, in->server->verbs))
		return 1;
	cm_conn_param(&param, in->qpn, cm_rep_data, sizeof(cm_rep_data));
	if (rdma_accept(in->server, &param)) {
		/*
		 * Rejected at once, before iWARP's MPA timer ends the
		 * request: the client's first event being the rejection
		 * shows the refused accept sent nothing.
		 */
		err = errno;
		/*
		 * An accept the kernel's CM failed (iWARP's EINVAL for a
		 * number of no QP) was rejected by rdma_accept() itself:
		 * there is nothing left to reject.
		 */
		if (rdma_reject(in->server, NULL, 0) &&
		    !(err == EINVAL && errno == EINVAL))
			return fail("rdma_reject after the refused accept");
		return client_refused(in) ? 1 : err;
	}
	/* iWARP's CM has the client's QP: the connection is made */
	answer = in->ps == RDMA_PS_UDP || cm_on_iwarp() ?
		 RDMA_CM_EVENT_ESTABLISHED : RDMA_CM_EVENT_CONNECT_RESPONSE;
	ev = cm_expect(in->cch, answer, in->client, CM_TIMEOUT_MS);
	if (!ev)
		return 1;
	ret = told_qpn(in, qpn_seen(in, ev), false);
	rdma_ack_cm_event(ev);
	if (in->ps == RDMA_PS_UDP)
		return ret;
	/* complete the connection and end it, so nothing is left retrying */
	if ((answer == RDMA_CM_EVENT_CONNECT_RESPONSE &&
	     rdma_establish(in->client)) ||
	    cm_expect_ok(in->sch, RDMA_CM_EVENT_ESTABLISHED, in->server) ||
	    cm_disconnect_pair(in->cch, in->sch,
			       &(struct cm_conn){ in->client, in->server }))
		return fail("ending the connection");
	return ret;
}

int main(int argc, char **argv)
{
	struct intruder in = { 0 };
	bool accept;
	int ret;

	if (argc != 4 || (strcmp(argv[1], "connect") && strcmp(argv[1], "accept")) ||
	    (strcmp(argv[2], "rc") && strcmp(argv[2], "ud"))) {
		fprintf(stderr, "usage: %s connect|accept rc|ud QPN|own|none\n",
			argv[0]);
		return 1;
	}
	accept = !strcmp(argv[1], "accept");
	in.own = !strcmp(argv[3], "own");
	in.ps = strcmp(argv[2], "ud") ? RDMA_PS_TCP : RDMA_PS_UDP;
	in.qpn = !strcmp(argv[3], "none") ? NO_SUCH_QPN :
		 (uint32_t)strtoul(argv[3], NULL, 0);
	in.cch = rdma_create_event_channel();
	in.sch = rdma_create_event_channel();
	if (!in.cch || !in.sch)
		return fail("rdma_create_event_channel");
	if (cm_listen(in.sch, in.ps, 4, &in.listen))
		return fail("listen");
	if (cm_resolve(in.cch, in.ps, rdma_get_src_port(in.listen), &in.client))
		return fail("resolve");
	if (in.own && !accept && make_own_qp(&in, in.client->verbs))
		return 1;
	ret = accept ? try_accept(&in) : try_connect(&in);
	if (in.qp && ibv_destroy_qp(in.qp))
		ret = fail("ibv_destroy_qp");
	if (in.client_qp && ibv_destroy_qp(in.client_qp))
		ret = fail("ibv_destroy_qp (client)");
	if (in.cq && ibv_destroy_cq(in.cq))
		ret = fail("ibv_destroy_cq");
	if (in.pd && ibv_dealloc_pd(in.pd))
		ret = fail("ibv_dealloc_pd");
	if (in.server && rdma_destroy_id(in.server))
		ret = fail("rdma_destroy_id (server)");
	if (rdma_destroy_id(in.client) || rdma_destroy_id(in.listen))
		ret = fail("rdma_destroy_id");
	rdma_destroy_event_channel(in.cch);
	rdma_destroy_event_channel(in.sch);
	return ret;
}
