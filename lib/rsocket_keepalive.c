// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' keepalive: a thread, started by the first SO_KEEPALIVE, writes
 * an empty RDMA write to each idle connection that asked for it, so that a
 * dead peer is noticed when the write is not acknowledged. It stands on
 * the engine; the options, raccept() and rclose() add and remove.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket.h"

/* The rsockets with SO_KEEPALIVE; taken before any rsocket's lock. */
static pthread_mutex_t rs_keepalive_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rsock *rs_keepalive_list;
static bool rs_keepalive_started;

static uint64_t rs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* rs_post_write() clears last_send_ms: any traffic restarts the idle time. */
static void rs_keepalive_one(struct rsock *rs, uint64_t now)
{
	pthread_mutex_lock(&rs->lock);
	if (rs->phase == RS_CONNECTED && rs->ctrl_free) {
		if (!rs->last_send_ms) {
			rs->last_send_ms = now;
		} else if (now - rs->last_send_ms >= (uint64_t)rs->keepidle * 1000) {
			rs->ctrl_free--;
			rs_post_write(rs, NULL, 0,
				      RS_MSG(RS_OP_CTRL, RS_CTRL_KEEPALIVE),
				      false, rs->remote_sgl.addr,
				      rs->remote_sgl.key);
			rs->last_send_ms = now;
		}
		rs_poll_completions(rs);
	}
	pthread_mutex_unlock(&rs->lock);
}

static void *rs_keepalive_run(void *arg)
{
	struct rsock *rs;

	(void)arg;
	for (;;) {
		uint64_t now = rs_now_ms();

		pthread_mutex_lock(&rs_keepalive_lock);
		for (rs = rs_keepalive_list; rs; rs = rs->keepalive_next)
			rs_keepalive_one(rs, now);
		pthread_mutex_unlock(&rs_keepalive_lock);
		sleep(1);
	}
	return NULL;
}

int rs_keepalive_add(struct rsock *rs)
{
	pthread_t thread;
	int ret = 0;

	pthread_mutex_lock(&rs_keepalive_lock);
	if (!rs_keepalive_started) {
		ret = pthread_create(&thread, NULL, rs_keepalive_run, NULL);
		if (!ret) {
			pthread_detach(thread);
			rs_keepalive_started = true;
		}
	}
	if (!ret && rs->closed)
		ret = EBADF;
	if (!ret && !rs->keepalive) {
		rs->keepalive = true;
		rs->keepalive_next = rs_keepalive_list;
		rs_keepalive_list = rs;
	}
	pthread_mutex_unlock(&rs_keepalive_lock);
	return ret ? rs_err(ret) : 0;
}

/* With the list's lock held. */
static void rs_keepalive_unlink(struct rsock *rs)
{
	struct rsock **p;

	for (p = &rs_keepalive_list; rs->keepalive && *p;
	     p = &(*p)->keepalive_next) {
		if (*p == rs) {
			*p = rs->keepalive_next;
			break;
		}
	}
	rs->keepalive = false;
}

void rs_keepalive_remove(struct rsock *rs)
{
	pthread_mutex_lock(&rs_keepalive_lock);
	rs_keepalive_unlink(rs);
	pthread_mutex_unlock(&rs_keepalive_lock);
}

/* rclose(): @rs leaves the list for good, before its last reference goes. */
void rs_keepalive_end(struct rsock *rs)
{
	pthread_mutex_lock(&rs_keepalive_lock);
	rs_keepalive_unlink(rs);
	rs->closed = true;
	pthread_mutex_unlock(&rs_keepalive_lock);
}
