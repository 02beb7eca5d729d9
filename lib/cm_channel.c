// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: event channels (rdma_create_event_channel,
 * rdma_destroy_event_channel) and, per channel, the ids it knows by their
 * kernel handle.
 *
 * The table is how an event's id handles become the ids the library
 * allocated. Reading events is cm_event.c's, acknowledging them cm_ack.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cm.h"

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
static void cm_channel_migration_begin(struct cm_channel *chan)
{
	pthread_mutex_lock(&chan->lock);
	chan->migrating++;
	pthread_mutex_unlock(&chan->lock);
}

static void cm_channel_migration_end(struct cm_channel *chan)
{
	pthread_mutex_lock(&chan->lock);
	chan->migrating--;
	pthread_cond_broadcast(&chan->cond);
	pthread_mutex_unlock(&chan->lock);
}

/* The live id an event of @chan is for, NULL if there is none. */
struct cm_id *cm_channel_event_id(struct cm_channel *chan, uint32_t handle)
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

/*
 * Move @id to @dest, or to a channel of its own when @dest is NULL. The
 * kernel waits until every event read for the id on its old channel has
 * been acknowledged, then moves the id and its queued events.
 */
int cm_id_migrate(struct cm_id *id, struct cm_channel *dest)
{
	struct rdmachan_migrate_id cmd = { .size = sizeof(cmd) };
	struct cm_channel *old = id->chan, *to = dest;
	bool was_sync = id->sync;
	int ret, err;

	if (!to) {
		to = cm_channel_create();
		if (!to)
			return -1;
	}
	cmd.fd = old->ch.fd;
	cmd.handle = id->handle;

	cm_channel_migration_begin(to);
	/* The kernel waits for the acknowledgements of the old channel. */
	cm_channel_wait_acks_begin(old);
	ret = rdmachan_ioctl(to->ch.fd, RDMACHAN_IOC_MIGRATE_ID, &cmd);
	err = errno;
	cm_channel_wait_acks_end(old);
	if (ret) {
		cm_channel_migration_end(to);
		if (!dest)
			cm_channel_destroy(to);
		return cm_err(err);
	}
	cm_channel_remove(old, id);
	id->handle = cmd.out_handle;
	id->chan = to;
	id->id.channel = &to->ch;
	id->sync = !dest;
	cm_channel_insert(to, id);
	cm_channel_migration_end(to);

	if (was_sync)
		cm_channel_destroy(old);
	return 0;
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
