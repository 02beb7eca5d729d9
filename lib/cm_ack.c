// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: acknowledgements of CM events (rdma_ack_cm_event,
 * rdmachan_ack_cm_events), and the kernel calls that wait for them.
 *
 * The kernel counts, per id, the events it handed out and not yet
 * acknowledged; its destroy and migrate of an id wait until that count is
 * zero. Acknowledgements are sent with the channel's next GET_EVENTS,
 * which saves a kernel crossing per event. Only the kernel's destroy and
 * migrate wait for them; those flush what is pending first and, while they
 * wait, make every acknowledgement go at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

/* tries of an acknowledgement the kernel refused for a passing reason */
#define CM_ACK_TRIES 3

/*
 * The kernel takes all of a call's acks or none. A call that failed for
 * want of memory (or of a copy) is made again: an ack lost here would hold
 * its id's destroy until the process dies.
 */
static int cm_ack_call(struct cm_channel *chan, struct rdmachan_get_events *cmd)
{
	int tries = 0;

	while (rdmachan_ioctl(chan->ch.fd, RDMACHAN_IOC_ACK_EVENTS, cmd))
		if (errno == ENOENT || errno == EINVAL ||
		    ++tries == CM_ACK_TRIES)
			return -1;
	return 0;
}

/* All of @handles, or one by one when the kernel refuses the batch. */
int cm_ack_handles(struct cm_channel *chan, const uint32_t *handles,
		   unsigned int num)
{
	struct rdmachan_get_events cmd = {
		.size = sizeof(cmd),
		.acks = (uintptr_t)handles,
		.num_acks = num,
	};
	unsigned int i;
	int ret = 0;

	if (!num || !cm_ack_call(chan, &cmd))
		return 0;
	if (num == 1 || errno != ENOENT)
		return -1;
	/* One bad handle must not hold back the others. */
	cmd.num_acks = 1;
	for (i = 0; i < num; i++) {
		cmd.acks = (uintptr_t)&handles[i];
		if (cm_ack_call(chan, &cmd))
			ret = -1;
	}
	return ret;
}

/* Moves the pending acknowledgements to @out; called with @chan->lock. */
unsigned int cm_take_pending_acks(struct cm_channel *chan, uint32_t *out)
{
	unsigned int num = chan->num_pending_acks;

	memcpy(out, chan->pending_acks, num * sizeof(*out));
	chan->num_pending_acks = 0;
	return num;
}

/* Defers @handle to the next GET_EVENTS unless someone waits for it. */
int cm_ack_handle(struct cm_channel *chan, uint32_t handle)
{
	uint32_t acks[CM_MAX_PENDING_ACKS + 1];
	unsigned int num;

	pthread_mutex_lock(&chan->lock);
	if (!chan->ack_waiters &&
	    chan->num_pending_acks < CM_MAX_PENDING_ACKS) {
		chan->pending_acks[chan->num_pending_acks++] = handle;
		pthread_mutex_unlock(&chan->lock);
		return 0;
	}
	num = cm_take_pending_acks(chan, acks);
	pthread_mutex_unlock(&chan->lock);
	acks[num++] = handle;
	return cm_ack_handles(chan, acks, num);
}

/* Puts acks the kernel did not take back in line, or sends them now. */
void cm_keep_acks(struct cm_channel *chan, const uint32_t *acks,
		  unsigned int num)
{
	int err = errno;

	pthread_mutex_lock(&chan->lock);
	if (!chan->ack_waiters &&
	    chan->num_pending_acks + num <= CM_MAX_PENDING_ACKS) {
		memcpy(chan->pending_acks + chan->num_pending_acks, acks,
		       num * sizeof(*acks));
		chan->num_pending_acks += num;
		num = 0;
	}
	pthread_mutex_unlock(&chan->lock);
	cm_ack_handles(chan, acks, num);
	errno = err;
}

int cm_ack_event(struct cm_event *evt)
{
	int ret, err;

	ret = cm_ack_handle(evt->chan, evt->handle);
	err = errno;
	free(evt);
	errno = err;
	return ret;
}

/* Acknowledges the event a synchronous id keeps in id->event, if any. */
void cm_ack_id_event(struct cm_id *id)
{
	if (id->id.event) {
		cm_ack_event(to_cm_event(id->id.event));
		id->id.event = NULL;
	}
}

/*
 * Around a kernel call that waits for acknowledgements of @chan: flush
 * the pending ones, and send any that come meanwhile at once.
 */
void cm_channel_wait_acks_begin(struct cm_channel *chan)
{
	uint32_t acks[CM_MAX_PENDING_ACKS];
	unsigned int num;
	int err = errno;

	pthread_mutex_lock(&chan->lock);
	chan->ack_waiters++;
	num = cm_take_pending_acks(chan, acks);
	pthread_mutex_unlock(&chan->lock);
	cm_ack_handles(chan, acks, num);
	errno = err;
}

void cm_channel_wait_acks_end(struct cm_channel *chan)
{
	pthread_mutex_lock(&chan->lock);
	chan->ack_waiters--;
	pthread_mutex_unlock(&chan->lock);
}

/* Sends the pending acknowledgements now, so the kernel's counts are exact. */
int cm_channel_flush_acks(struct cm_channel *chan)
{
	uint32_t acks[CM_MAX_PENDING_ACKS];
	unsigned int num;

	pthread_mutex_lock(&chan->lock);
	num = cm_take_pending_acks(chan, acks);
	pthread_mutex_unlock(&chan->lock);
	return cm_ack_handles(chan, acks, num);
}

int cm_destroy_kernel_id(struct cm_channel *chan, uint32_t handle)
{
	struct rdmachan_destroy cmd = {
		.size = sizeof(cmd),
		.handle = handle,
	};
	int ret, err;

	cm_channel_wait_acks_begin(chan);
	ret = rdmachan_ioctl(chan->ch.fd, RDMACHAN_IOC_DESTROY, &cmd);
	err = errno;
	cm_channel_wait_acks_end(chan);
	errno = err;
	return ret;
}

RDMACHAN_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (!event)
		return cm_err(EINVAL);
	return cm_ack_event(to_cm_event(event));
}

RDMACHAN_EXPORT int rdmachan_ack_cm_events(struct rdma_cm_event **events, int num)
{
	int i, ret = 0, err = 0;

	if (!events || num < 0)
		return cm_err(EINVAL);
	for (i = 0; i < num; i++)
		if (!events[i])
			return cm_err(EINVAL);
	/* each deferred to the channel's next read, as rdma_ack_cm_event */
	for (i = 0; i < num; i++) {
		if (cm_ack_event(to_cm_event(events[i])) && !err) {
			err = errno;
			ret = -1;
		}
	}
	if (ret)
		errno = err;
	return ret;
}
