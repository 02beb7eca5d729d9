// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: reading CM events (rdma_get_cm_event,
 * rdmachan_get_cm_events), and the wait of a synchronous id for the event
 * that completes its call.
 *
 * The kernel queues events and counts acknowledgements; the library only
 * translates an event's id handles into the ids it allocated. Every event
 * read from the kernel is either returned to the caller, who acknowledges
 * it, or acknowledged here at once when it cannot be returned (its id is
 * being destroyed, or a connect request could not be set up). Nothing is
 * kept back: the kernel's destroy waits for the acknowledgement of every
 * event it handed out, so an event held here would hang it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "verbs_internal.h"

/* Destroy an id the caller has not seen yet; errors are the kernel's. */
static void cm_drop_new_id(struct cm_id *id)
{
	int err = errno;

	cm_channel_remove(id->chan, id);
	cm_destroy_kernel_id(id->chan, id->handle);
	if (id->sync)
		cm_channel_destroy(id->chan);
	cm_id_free(id);
	errno = err;
}

/*
 * The id of a connect request: it inherits the listener's channel, context,
 * port space and QP type, and a synchronous listener's requests get ids
 * that are synchronous too, each on a channel of its own.
 */
static struct cm_id *cm_conn_request(struct cm_channel *chan,
				     struct cm_id *listen,
				     const struct rdmachan_cm_event *kev)
{
	struct cm_id *id;

	id = cm_id_alloc(chan, listen->id.context, listen->id.ps,
			 listen->id.qp_type);
	if (!id) {
		cm_destroy_kernel_id(chan, kev->new_id_handle);
		return NULL;
	}
	id->handle = kev->new_id_handle;
	id->req_initiator_depth = kev->initiator_depth;
	id->req_responder_resources = kev->responder_resources;
	cm_channel_insert(chan, id);

	if ((kev->valid & RDMACHAN_CM_EVENT_ROUTE) &&
	    cm_id_set_route(id, &kev->route))
		goto err;
	if (listen->sync && cm_id_migrate(id, NULL))
		goto err;
	return id;

err:
	cm_drop_new_id(id);
	return NULL;
}

/* The UD or connection parameters, and the private data, into @evt. */
static void cm_copy_params(struct cm_event *evt, const struct cm_id *id,
			   const struct rdmachan_cm_event *kev)
{
	struct rdma_conn_param *conn = &evt->event.param.conn;
	struct rdma_ud_param *ud = &evt->event.param.ud;
	bool is_ud = (kev->valid & RDMACHAN_CM_EVENT_UD) ||
		     id->id.qp_type == IBV_QPT_UD;
	uint8_t len = kev->private_data_len;

	if (len)
		memcpy(evt->private_data, kev->private_data, len);

	if (is_ud) {
		ud->private_data = len ? evt->private_data : NULL;
		ud->private_data_len = len;
		if (kev->valid & RDMACHAN_CM_EVENT_UD) {
			vb_ah_attr_from_kern(&ud->ah_attr, &kev->ah_attr);
			ud->qp_num = kev->qp_num;
			ud->qkey = kev->qkey;
		}
		return;
	}
	conn->private_data = len ? evt->private_data : NULL;
	conn->private_data_len = len;
	if (kev->valid & RDMACHAN_CM_EVENT_CONN) {
		conn->responder_resources = kev->responder_resources;
		conn->initiator_depth = kev->initiator_depth;
		conn->flow_control = kev->flow_control;
		conn->retry_count = kev->retry_count;
		conn->rnr_retry_count = kev->rnr_retry_count;
		conn->srq = kev->srq;
		conn->qp_num = kev->qp_num;
	}
}

/*
 * The kernel drives the state of an id's QP: keep qp->state in step, as
 * librdmacm's own QP transitions keep it.
 */
static void cm_note_qp_state(struct cm_id *id, uint32_t event)
{
	struct ibv_qp *qp = id->id.qp;

	if (!qp)
		return;
	switch (event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (qp->qp_type != IBV_QPT_UD)
			qp->state = IBV_QPS_RTS;
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
		if (qp->qp_type != IBV_QPT_UD)
			qp->state = IBV_QPS_ERR;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		qp->state = IBV_QPS_ERR;
		break;
	default:
		break;
	}
}

/*
 * MULTICAST_JOIN of join @handle came with the group's @ah_attr: the
 * id's QP joins it (for a QP the module does not own). 0 or an errno.
 */
static int cm_mcast_joined(struct cm_id *cid, uint32_t handle,
			   const struct ibv_ah_attr *ah_attr)
{
	struct cm_mcast *mc;
	int ret = 0;

	pthread_mutex_lock(&cid->mc_lock);
	for (mc = cid->mc_list; mc && mc->handle != handle; mc = mc->next)
		;
	if (mc && !mc->attached && cid->id.qp) {
		ret = cm_verbs()->attach_mcast(cid->id.qp, &ah_attr->grh.dgid,
				      ah_attr->dlid);
		if (!ret) {
			mc->mgid = ah_attr->grh.dgid;
			mc->mlid = ah_attr->dlid;
			mc->attached = true;
		}
	}
	pthread_mutex_unlock(&cid->mc_lock);
	return ret;
}

/*
 * Turn the kernel's @kev into @evt. Returns 0 when @evt is to be returned,
 * 1 when the event was acknowledged here instead.
 */
static int cm_translate(struct cm_channel *chan,
			const struct rdmachan_cm_event *kev,
			struct cm_event *evt)
{
	struct cm_id *id, *new_id;
	int err;

	memset(evt, 0, sizeof(*evt));
	evt->chan = chan;
	evt->handle = kev->event_handle;
	evt->event.event = (enum rdma_cm_event_type)kev->event;
	evt->event.status = kev->status;

	id = cm_channel_event_id(chan, kev->id_handle);
	if (kev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (!id || !kev->new_id_handle) {
			/* The kernel's new id is ours to dispose of. */
			if (kev->new_id_handle)
				cm_destroy_kernel_id(chan, kev->new_id_handle);
			goto discard;
		}
		new_id = cm_conn_request(chan, id, kev);
		if (!new_id)
			goto discard;
		evt->event.listen_id = &id->id;
		evt->event.id = &new_id->id;
		cm_copy_params(evt, new_id, kev);
		return 0;
	}
	if (!id)
		goto discard;

	evt->event.id = &id->id;
	if ((kev->valid & RDMACHAN_CM_EVENT_ROUTE) &&
	    cm_id_set_route(id, &kev->route)) {
		/* As librdmacm: a resolution whose result is unusable failed. */
		if (kev->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
			evt->event.event = RDMA_CM_EVENT_ADDR_ERROR;
			evt->event.status = -errno;
		} else if (kev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
			evt->event.event = RDMA_CM_EVENT_ROUTE_ERROR;
			evt->event.status = -errno;
		}
	}
	cm_copy_params(evt, id, kev);
	if (kev->mcast_handle) {
		/* As librdmacm: the join's context rides in private_data. */
		evt->mcast_handle = kev->mcast_handle;
		evt->event.param.ud.private_data =
			(void *)(uintptr_t)kev->mcast_context;
	}
	if (kev->event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		err = cm_mcast_joined(id, kev->mcast_handle,
				      &evt->event.param.ud.ah_attr);
		/* As librdmacm: a QP that cannot join makes it an error. */
		if (err) {
			evt->event.event = RDMA_CM_EVENT_MULTICAST_ERROR;
			evt->event.status = -err;
		}
	}
	cm_note_qp_state(id, kev->event);
	return 0;

discard:
	cm_ack_handle(chan, kev->event_handle);
	return 1;
}

static bool cm_channel_nonblocking(struct cm_channel *chan)
{
	int flags = fcntl(chan->ch.fd, F_GETFL);

	return flags >= 0 && (flags & O_NONBLOCK);
}

/*
 * Several threads may read one channel, one at a time under @get_lock so
 * that a connect request's new id is in the table before a later event of
 * it is looked up. The holder sleeps in the kernel only while no other
 * thread wants the lock (*@block); the others wait for an event in
 * poll(), which signals interrupt, rather than on the mutex.
 */
static int cm_lock_reader(struct cm_channel *chan, bool *block)
{
	struct pollfd pfd = { .fd = chan->ch.fd, .events = POLLIN };
	int ret;

	if (pthread_mutex_trylock(&chan->get_lock)) {
		if (cm_channel_nonblocking(chan))
			return cm_err(EAGAIN);
		pthread_mutex_lock(&chan->lock);
		chan->get_waiters++;
		pthread_mutex_unlock(&chan->lock);
		ret = poll(&pfd, 1, -1);
		pthread_mutex_lock(&chan->lock);
		chan->get_waiters--;
		pthread_mutex_unlock(&chan->lock);
		if (ret < 0)
			return -1;
		/* An event is queued: whoever holds the lock is done soon. */
		pthread_mutex_lock(&chan->get_lock);
	}
	pthread_mutex_lock(&chan->lock);
	*block = !chan->get_waiters;
	pthread_mutex_unlock(&chan->lock);
	return 0;
}

/*
 * Reads up to @max events from @chan into @events, translated, waiting
 * for the first as rdma_get_cm_event() does: the number read, or -1 with
 * errno. @ack, an event of @chan or NULL, is acknowledged by the same call
 * and freed in any case. Events are allocated before the kernel hands any
 * out, so none taken from it can be lost to a failed allocation.
 */
int cm_get_events(struct cm_channel *chan, struct cm_event *ack,
		  struct rdma_cm_event **events, unsigned int max)
{
	struct rdmachan_get_events cmd;
	struct rdmachan_cm_event one_kev, *kevs = &one_kev;
	uint32_t acks[CM_MAX_PENDING_ACKS + 1];
	struct cm_event *one_evt, **evts = &one_evt;
	unsigned int num_acks, num = 0, i, used;
	bool block;
	int ret = -1, err;

	if (max > CM_MAX_EVENTS_PER_CALL)
		max = CM_MAX_EVENTS_PER_CALL;
	if (max > 1) {
		kevs = calloc(max, sizeof(*kevs));
		evts = calloc(max, sizeof(*evts));
	}
	for (i = 0; kevs && evts && i < max; i++) {
		evts[i] = malloc(sizeof(**evts));
		if (!evts[i])
			break;
	}
	if (!kevs || !evts || i < max) {
		err = ENOMEM;
		goto out_free;
	}

	if (cm_lock_reader(chan, &block)) {
		err = errno;
		goto out_free;
	}
	for (;;) {
		memset(&cmd, 0, sizeof(cmd));
		memset(kevs, 0, max * sizeof(*kevs));
		cmd.size = sizeof(cmd);
		if (!block)
			cmd.flags = RDMACHAN_GET_EVENTS_NONBLOCK;
		cmd.events = (uintptr_t)kevs;
		cmd.event_size = sizeof(*kevs);
		cmd.max_events = max;
		pthread_mutex_lock(&chan->lock);
		num_acks = cm_take_pending_acks(chan, acks);
		pthread_mutex_unlock(&chan->lock);
		if (ack) {
			acks[num_acks++] = ack->handle;
			free(ack);
			ack = NULL;
		}
		cmd.acks = (uintptr_t)acks;
		cmd.num_acks = num_acks;
		ret = rdmachan_ioctl(chan->ch.fd, RDMACHAN_IOC_GET_EVENTS, &cmd);
		if (ret && cmd.num_acks) {
			/* The kernel did not take the acks and read nothing. */
			err = errno;
			if (err == ENOENT) {
				cm_ack_handles(chan, acks, num_acks);
				continue;
			}
			cm_keep_acks(chan, acks, num_acks);
			errno = err;
		}
		if (ret && errno == EAGAIN && !block &&
		    !cm_channel_nonblocking(chan)) {
			/* Another thread waits: wait beside it, unlocked. */
			pthread_mutex_unlock(&chan->get_lock);
			if (cm_lock_reader(chan, &block)) {
				err = errno;
				goto out_free;
			}
			continue;
		}
		if (ret)
			break;
		if (!cmd.out_num_events || cmd.out_num_events > max) {
			ret = cm_err(EAGAIN);
			break;
		}
		/* in order: a connect request's id is known to its later events */
		for (i = 0; i < cmd.out_num_events; i++)
			if (!cm_translate(chan, &kevs[i], evts[num]))
				num++;
		if (num)
			break;
	}
	pthread_mutex_unlock(&chan->get_lock);
	err = errno;
	for (i = 0; i < num; i++)
		events[i] = &evts[i]->event;
	ret = ret ? -1 : (int)num;

out_free:
	if (ack)
		cm_ack_event(ack);
	used = ret > 0 ? num : 0;
	for (i = used; evts && i < max; i++)
		free(evts[i]);
	if (max > 1) {
		free(kevs);
		free(evts);
	}
	if (ret < 0)
		return cm_err(err);
	return ret;
}

int cm_get_event(struct cm_channel *chan, struct cm_event *ack,
		 struct rdma_cm_event **event)
{
	return cm_get_events(chan, ack, event, 1) == 1 ? 0 : -1;
}

/*
 * A synchronous id waits for the event that completes its operation, after
 * acknowledging the previous one (in the same call when it can).
 */
int cm_complete(struct cm_id *id)
{
	struct rdma_cm_event *event;
	struct cm_event *prev = NULL;
	int status;

	if (!id->sync)
		return 0;
	if (id->id.event) {
		prev = to_cm_event(id->id.event);
		id->id.event = NULL;
		if (prev->chan != id->chan) {
			cm_ack_event(prev);
			prev = NULL;
		}
	}
	if (cm_get_event(id->chan, prev, &event))
		return -1;
	id->id.event = event;
	status = event->status;
	if (!status)
		return 0;
	if (event->event == RDMA_CM_EVENT_REJECTED)
		return cm_err(ECONNREFUSED);
	return cm_err(status < 0 ? -status : status);
}

RDMACHAN_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				      struct rdma_cm_event **event)
{
	if (!channel || !event)
		return cm_err(EINVAL);
	return cm_get_event(to_cm_chan(channel), NULL, event);
}

RDMACHAN_EXPORT int rdmachan_get_cm_events(struct rdma_event_channel *channel,
					   struct rdma_cm_event **events, int max)
{
	if (!channel || !events || max <= 0)
		return cm_err(EINVAL);
	return cm_get_events(to_cm_chan(channel), NULL, events, max);
}
