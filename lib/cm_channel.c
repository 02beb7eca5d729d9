// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: event channels and events (rdma_create_event_channel,
 * rdma_get_cm_event); their acknowledgement is cm_ack.c's.
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
#include <unistd.h>

#include "cm.h"
#include "verbs_internal.h"

#define CM_MIN_BUCKETS 16

struct cm_channel *cm_channel_create(void)
{
	struct cm_channel *chan;
	int err;

	if (lib_bypass())
		cm_devices_prepare();
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		goto err_nomem;
	chan->nbuckets = CM_MIN_BUCKETS;
	chan->buckets = calloc(chan->nbuckets, sizeof(*chan->buckets));
	if (!chan->buckets)
		goto err_nomem;
	chan->ch.fd = rdmachan_open_fd();
	if (chan->ch.fd < 0)
		goto err_free;
	pthread_mutex_init(&chan->get_lock, NULL);
	pthread_mutex_init(&chan->lock, NULL);
	pthread_cond_init(&chan->cond, NULL);
	return chan;

err_nomem:
	errno = ENOMEM;
err_free:
	err = errno;
	if (chan)
		free(chan->buckets);
	free(chan);
	errno = err;
	return NULL;
}

/* Closing the file drops whatever the kernel still held for it. */
void cm_channel_destroy(struct cm_channel *chan)
{
	close(chan->ch.fd);
	pthread_cond_destroy(&chan->cond);
	pthread_mutex_destroy(&chan->lock);
	pthread_mutex_destroy(&chan->get_lock);
	free(chan->buckets);
	free(chan);
}

static struct cm_id **cm_bucket(struct cm_channel *chan, uint32_t handle)
{
	return &chan->buckets[handle & (chan->nbuckets - 1)];
}

/* Caller holds chan->lock. */
static struct cm_id *cm_lookup(struct cm_channel *chan, uint32_t handle)
{
	struct cm_id *id;

	for (id = *cm_bucket(chan, handle); id; id = id->hnext) {
		if (id->handle == handle)
			return id;
	}
	return NULL;
}

/* Caller holds chan->lock. */
static void cm_unlink(struct cm_channel *chan, struct cm_id *id)
{
	struct cm_id **pos;

	for (pos = cm_bucket(chan, id->handle); *pos; pos = &(*pos)->hnext) {
		if (*pos == id) {
			*pos = id->hnext;
			id->hnext = NULL;
			chan->count--;
			return;
		}
	}
}

/* Double the table when it is full; on failure it just stays as it is. */
static void cm_grow(struct cm_channel *chan)
{
	struct cm_id **old = chan->buckets, **fresh, *id, *next;
	uint32_t i, n = chan->nbuckets;

	if (n > UINT32_MAX / 2)
		return;
	fresh = calloc((size_t)n * 2, sizeof(*fresh));
	if (!fresh)
		return;
	chan->buckets = fresh;
	chan->nbuckets = n * 2;
	for (i = 0; i < n; i++) {
		for (id = old[i]; id; id = next) {
			next = id->hnext;
			id->hnext = *cm_bucket(chan, id->handle);
			*cm_bucket(chan, id->handle) = id;
		}
	}
	free(old);
}

/*
 * Make @id the owner of its handle on @chan. Never fails: a handle that is
 * still in the table belongs to an object the kernel has freed and reused
 * the handle of, so that stale entry is dropped.
 */
void cm_channel_insert(struct cm_channel *chan, struct cm_id *id)
{
	struct cm_id *stale, **bucket;

	pthread_mutex_lock(&chan->lock);
	stale = cm_lookup(chan, id->handle);
	if (stale)
		cm_unlink(chan, stale);
	if (chan->count >= chan->nbuckets)
		cm_grow(chan);
	bucket = cm_bucket(chan, id->handle);
	id->hnext = *bucket;
	*bucket = id;
	chan->count++;
	pthread_mutex_unlock(&chan->lock);
}

void cm_channel_remove(struct cm_channel *chan, struct cm_id *id)
{
	pthread_mutex_lock(&chan->lock);
	cm_unlink(chan, id);
	pthread_mutex_unlock(&chan->lock);
}

void cm_channel_set_dying(struct cm_channel *chan, struct cm_id *id,
			  bool dying)
{
	pthread_mutex_lock(&chan->lock);
	id->dying = dying;
	pthread_mutex_unlock(&chan->lock);
}

/*
 * A migration into @chan is under way: between the kernel's reply and the
 * insertion of the id, an event of the id may already be read here, and
 * its lookup must wait for the insertion rather than drop the event.
 */
void cm_channel_migration_begin(struct cm_channel *chan)
{
	pthread_mutex_lock(&chan->lock);
	chan->migrating++;
	pthread_mutex_unlock(&chan->lock);
}

void cm_channel_migration_end(struct cm_channel *chan)
{
	pthread_mutex_lock(&chan->lock);
	chan->migrating--;
	pthread_cond_broadcast(&chan->cond);
	pthread_mutex_unlock(&chan->lock);
}

/* The live id an event of @chan is for, NULL if there is none. */
static struct cm_id *cm_event_id(struct cm_channel *chan, uint32_t handle)
{
	struct cm_id *id;

	pthread_mutex_lock(&chan->lock);
	while (!(id = cm_lookup(chan, handle)) && chan->migrating)
		pthread_cond_wait(&chan->cond, &chan->lock);
	if (id && id->dying)
		id = NULL;
	pthread_mutex_unlock(&chan->lock);
	return id;
}

/* The id @handle names on @chan, also one being destroyed; NULL if none. */
struct rdma_cm_id *cm_channel_id(struct cm_channel *chan, uint32_t handle)
{
	struct cm_id *id;

	pthread_mutex_lock(&chan->lock);
	id = cm_lookup(chan, handle);
	pthread_mutex_unlock(&chan->lock);
	return id ? &id->id : NULL;
}

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

	id = cm_event_id(chan, kev->id_handle);
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

RDMACHAN_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct cm_channel *chan = cm_channel_create();

	return chan ? &chan->ch : NULL;
}

RDMACHAN_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (channel)
		cm_channel_destroy(to_cm_chan(channel));
}

RDMACHAN_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				      struct rdma_cm_event **event)
{
	if (!channel || !event)
		return cm_err(EINVAL);
	return cm_get_event(to_cm_chan(channel), NULL, event);
}
