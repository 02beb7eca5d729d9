// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MIGRATE_ID against concurrent readers and destroys, through raw ioctls.
 * An event names its id by the handle the id has in the file the event
 * is read from: never by its handle in the other file, whatever the
 * timing of the move. A destroy on the old file and a migrate of the same
 * id: exactly one of them wins, and the loser changes nothing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "rdmachan_cm_raw.h"
#include "kselftest_harness.h"

#define MAX_SEEN	4096
#define HANDLE_OFFSET	1000

/* An event a reader took: which file, which id, which iteration. */
struct seen {
	int file;
	__u32 id_handle;
	__u32 type;
	__u64 user_context;
};

struct readers {
	int fd[2];
	bool enabled[2];
	atomic_bool stop;
	pthread_mutex_t lock;
	struct seen seen[MAX_SEEN];
	unsigned int nseen;
	pthread_t thread[2];
};

struct reader_arg {
	struct readers *r;
	int file;
};

static struct reader_arg reader_args[2];

/* Spins on non-blocking reads of one file, records and acks each event. */
static void *reader_main(void *p)
{
	struct reader_arg *a = p;
	struct readers *r = a->r;
	struct rdmachan_cm_event ev[4];

	while (!atomic_load(&r->stop)) {
		struct rdmachan_get_events cmd = {
			.size = sizeof(cmd),
			.flags = RDMACHAN_GET_EVENTS_NONBLOCK,
			.events = (uintptr_t)ev, .event_size = sizeof(ev[0]),
			.max_events = 4,
		};
		unsigned int i;

		if (ioctl(r->fd[a->file], RDMACHAN_IOC_GET_EVENTS, &cmd))
			continue;
		pthread_mutex_lock(&r->lock);
		for (i = 0; i < cmd.out_num_events && r->nseen < MAX_SEEN; i++)
			r->seen[r->nseen++] = (struct seen){
				.file = a->file, .id_handle = ev[i].id_handle,
				.type = ev[i].event,
				.user_context = ev[i].user_context,
			};
		pthread_mutex_unlock(&r->lock);
		for (i = 0; i < cmd.out_num_events; i++)
			raw_ack(r->fd[a->file], &ev[i].event_handle, 1);
	}
	return NULL;
}

static void readers_start(struct readers *r, bool f0, bool f1)
{
	int i;

	r->enabled[0] = f0;
	r->enabled[1] = f1;
	atomic_store(&r->stop, false);
	pthread_mutex_init(&r->lock, NULL);
	for (i = 0; i < 2; i++) {
		reader_args[i] = (struct reader_arg){ .r = r, .file = i };
		if (r->enabled[i])
			pthread_create(&r->thread[i], NULL, reader_main,
				       &reader_args[i]);
	}
}

static void readers_stop(struct readers *r)
{
	int i;

	atomic_store(&r->stop, true);
	for (i = 0; i < 2; i++)
		if (r->enabled[i])
			pthread_join(r->thread[i], NULL);
}

/* How many events of iteration @uctx the readers took so far. */
static unsigned int seen_of(struct readers *r, __u64 uctx)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nseen; i++)
		n += r->seen[i].user_context == uctx;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int migrate(int to, int from_fd, __u32 handle, __u32 *out)
{
	struct rdmachan_migrate_id cmd = {
		.size = sizeof(cmd), .fd = from_fd, .handle = handle,
	};

	if (ioctl(to, RDMACHAN_IOC_MIGRATE_ID, &cmd))
		return errno;
	*out = cmd.out_handle;
	return 0;
}

/*
 * Each event the readers took for iteration @uctx names the id by its
 * handle in the file it was read from; returns the number that did not.
 */
static unsigned int misnamed(struct readers *r, __u64 uctx, const __u32 *h)
{
	unsigned int i, bad = 0;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nseen; i++) {
		struct seen *s = &r->seen[i];

		if (s->user_context != uctx || s->id_handle == h[s->file])
			continue;
		fprintf(stderr, "# iteration %llu: event %u read on file %d names id %u; the id is %u there, %u on the other file\n",
			(unsigned long long)uctx, s->type, s->file, s->id_handle,
			h[s->file], h[!s->file]);
		bad++;
	}
	/* forget this iteration's events: the array is reused */
	r->nseen = 0;
	pthread_mutex_unlock(&r->lock);
	return bad;
}

FIXTURE(migrate) {
	struct readers r;
	long objects_before;
};

FIXTURE_SETUP(migrate)
{
	self->objects_before = rdmachan_counter("cm_ids") +
			       rdmachan_counter("cm_events");
	self->r.fd[0] = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	self->r.fd[1] = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->r.fd[0]);
	ASSERT_LE(0, self->r.fd[1]);
	/*
	 * Handles are allocated cyclically from 1 in each file: set the new
	 * file's apart, so that an id's two handles differ.
	 */
	for (int i = 0; i < HANDLE_OFFSET; i++) {
		__u32 h = 0;

		ASSERT_EQ(0, raw_create_id(self->r.fd[1], RDMA_PS_TCP, 0, &h));
		ASSERT_EQ(0, raw_destroy(self->r.fd[1], h));
	}
}

FIXTURE_TEARDOWN(migrate)
{
	close(self->r.fd[0]);
	close(self->r.fd[1]);
	EXPECT_EQ(self->objects_before, rdmachan_counter("cm_ids") +
					rdmachan_counter("cm_events"));
}

/*
 * The id's ADDR_RESOLVED waits on the old file and its ROUTE_RESOLVED is
 * on its way while the id moves; a reader spins on the new file.
 */
TEST_F_TIMEOUT(migrate, reader_on_new_file_sees_new_handle, 240)
{
	struct readers *r = &self->r;
	unsigned int bad = 0, moved = 0, iter = 400, i;

	readers_start(r, false, true);
	for (i = 1; i <= iter; i++) {
		struct pollfd pfd = { .fd = r->fd[0], .events = POLLIN };
		__u32 h[2] = { 0, 0 };
		long end;
		int ret;

		ASSERT_EQ(0, raw_create_id(r->fd[0], RDMA_PS_TCP, i, &h[0]));
		ASSERT_EQ(0, raw_resolve_addr(r->fd[0], h[0], htons(1)));
		ASSERT_EQ(1, poll(&pfd, 1, 5000));
		/* the route may resolve during the move, or fail: either will do */
		raw_id_cmd(r->fd[0], RDMACHAN_IOC_RESOLVE_ROUTE, h[0], 2000);
		ret = migrate(r->fd[1], r->fd[0], h[0], &h[1]);
		ASSERT_EQ(0, ret);
		moved++;
		/* both events: ADDR_RESOLVED, then the route's */
		end = now_ms() + 5000;
		while (seen_of(r, i) < 2 && now_ms() < end)
			usleep(200);
		ASSERT_EQ(2, seen_of(r, i));
		h[0] = 0;
		bad += misnamed(r, i, h);
		ASSERT_EQ(0, raw_destroy(r->fd[1], h[1]));
	}
	readers_stop(r);
	printf("# %u ids moved with their events, %u events misnamed\n",
	       moved, bad);
	EXPECT_EQ(0, bad);
}

/*
 * Readers spin on both files while the id's first event arrives, and the
 * id moves at about the same time.
 */
TEST_F_TIMEOUT(migrate, readers_on_both_files, 240)
{
	struct readers *r = &self->r;
	unsigned int bad = 0, moved = 0, busy = 0, iter = 400, i;

	readers_start(r, true, true);
	for (i = 1; i <= iter; i++) {
		__u32 h[2] = { 0, 0 }, owner;
		long end;
		int ret;

		ASSERT_EQ(0, raw_create_id(r->fd[0], RDMA_PS_TCP, i, &h[0]));
		ASSERT_EQ(0, raw_resolve_addr(r->fd[0], h[0], htons(1)));
		ret = migrate(r->fd[1], r->fd[0], h[0], &h[1]);
		ASSERT_TRUE(ret == 0 || ret == EBUSY) {
			TH_LOG("migrate: %s", strerror(ret));
		}
		moved += !ret;
		busy += ret == EBUSY;
		end = now_ms() + 5000;
		while (seen_of(r, i) < 1 && now_ms() < end)
			usleep(200);
		ASSERT_EQ(1, seen_of(r, i));
		owner = ret ? 0 : 1;
		/* an event read on the old file before the move names the old handle */
		if (ret)
			h[1] = 0;
		bad += misnamed(r, i, h);
		ASSERT_EQ(0, raw_destroy(r->fd[owner], h[owner]));
	}
	readers_stop(r);
	printf("# %u ids moved, %u refused (EBUSY), %u events misnamed\n",
	       moved, busy, bad);
	EXPECT_EQ(0, bad);
}

struct destroyer {
	int fd;
	__u32 handle;
	atomic_int ready, go;
	int ret;
};

static void *destroy_main(void *p)
{
	struct destroyer *d = p;

	atomic_store(&d->ready, 1);
	while (!atomic_load(&d->go))
		;
	d->ret = raw_destroy(d->fd, d->handle);
	return NULL;
}

/*
 * A destroy of the id on its old file races the migrate: one wins. A
 * migrate that lost leaves no handle and no event on the new file.
 */
TEST_F_TIMEOUT(migrate, destroy_on_old_file_races_migrate, 240)
{
	struct readers *r = &self->r;
	unsigned int migrate_won = 0, destroy_won = 0, bad = 0, iter = 300, i;

	readers_start(r, false, true);
	for (i = 1; i <= iter; i++) {
		struct pollfd pfd = { .fd = r->fd[0], .events = POLLIN };
		struct destroyer d = { .fd = r->fd[0] };
		__u32 h[2] = { 0, 0 };
		pthread_t thread;
		int ret;

		ASSERT_EQ(0, raw_create_id(r->fd[0], RDMA_PS_TCP, i, &h[0]));
		ASSERT_EQ(0, raw_resolve_addr(r->fd[0], h[0], htons(1)));
		ASSERT_EQ(1, poll(&pfd, 1, 5000));
		d.handle = h[0];
		pthread_create(&thread, NULL, destroy_main, &d);
		while (!atomic_load(&d.ready))
			;
		atomic_store(&d.go, 1);
		ret = migrate(r->fd[1], r->fd[0], h[0], &h[1]);
		pthread_join(thread, NULL);
		if (!ret) {
			/* the move came first: the destroy found no such handle */
			migrate_won++;
			EXPECT_EQ(ENOENT, d.ret);
			EXPECT_EQ(0, raw_destroy(r->fd[1], h[1]));
		} else {
			destroy_won++;
			/* ENODEV: the id was found, then torn down under it */
			EXPECT_TRUE(ret == ENOENT || ret == ENODEV) {
				TH_LOG("migrate: %s", strerror(ret));
			}
			EXPECT_EQ(0, d.ret);
			/* its ADDR_RESOLVED went with it, unread */
			usleep(1000);
			EXPECT_EQ(0, seen_of(r, i));
		}
		h[0] = 0;
		bad += misnamed(r, i, h);
	}
	readers_stop(r);
	printf("# migrate won %u, destroy won %u, %u events misnamed\n",
	       migrate_won, destroy_won, bad);
	EXPECT_EQ(0, bad);
}

struct listener_mover {
	int fd[2];
	__u32 handle[2];
	atomic_int where;	/* the file the listener is in */
	atomic_bool stop;
	unsigned int moves;
};

/* Moves the listener back and forth between the files until told to stop. */
static void *move_main(void *p)
{
	struct listener_mover *m = p;

	while (!atomic_load(&m->stop)) {
		int from = atomic_load(&m->where);
		__u32 h = 0;

		/* EBUSY while a request waits on the listener's file */
		if (migrate(m->fd[!from], m->fd[from], m->handle[from], &h))
			continue;
		m->handle[!from] = h;
		atomic_store(&m->where, !from);
		m->moves++;
	}
	return NULL;
}

/*
 * Events of @fd, without waiting: each connect request's new id must be
 * an id of the file the request is read from, and destroying it there
 * rejects the request.
 */
static unsigned int take_requests(int fd, int file, unsigned int *bad)
{
	struct rdmachan_cm_event ev;
	unsigned int n = 0;

	while (!raw_get_event(fd, &ev, 0)) {
		if (raw_ack(fd, &ev.event_handle, 1))
			(*bad)++;
		if (ev.event != RDMA_CM_EVENT_CONNECT_REQUEST)
			continue;
		n++;
		if (raw_destroy(fd, ev.new_id_handle)) {
			fprintf(stderr, "# request read on file %d: its new id %u is not there\n",
				file, ev.new_id_handle);
			(*bad)++;
		}
	}
	return n;
}

/*
 * A wildcard listener's requests come through the CM's listen id of each
 * device, not through the listener's own, while the listener moves from
 * file to file: each request is read once, in one file, with its new id
 * there, and every client gets its answer.
 */
TEST_F_TIMEOUT(migrate, wildcard_listener_moves_while_requests_come, 300)
{
	struct listener_mover m = { .fd = { self->r.fd[0], self->r.fd[1] } };
	struct rdmachan_bind_addr bind = { .size = sizeof(bind) };
	struct sockaddr_in *sin = (struct sockaddr_in *)&bind.addr;
	unsigned int clients = 150, requests = 0, bad = 0, i;
	int cfd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	struct rdmachan_cm_event ev = {};
	pthread_t mover;
	__u16 port;

	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_create_id(m.fd[0], RDMA_PS_TCP, 1, &m.handle[0]));
	bind.handle = m.handle[0];
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_ANY);
	ASSERT_EQ(0, ioctl(m.fd[0], RDMACHAN_IOC_BIND_ADDR, &bind));
	port = ((struct sockaddr_in *)&bind.out_route.src_addr)->sin_port;
	ASSERT_EQ(0, raw_id_cmd(m.fd[0], RDMACHAN_IOC_LISTEN, m.handle[0], 64));
	pthread_create(&mover, NULL, move_main, &m);

	for (i = 0; i < clients; i++) {
		__u32 c = 0;

		ASSERT_EQ(0, raw_create_id(cfd, RDMA_PS_TCP, 0, &c));
		ASSERT_EQ(0, raw_resolve_addr(cfd, c, port));
		ASSERT_EQ(0, raw_expect(cfd, c, RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
		ASSERT_EQ(0, raw_id_cmd(cfd, RDMACHAN_IOC_RESOLVE_ROUTE, c, 2000));
		ASSERT_EQ(0, raw_expect(cfd, c, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
		ASSERT_EQ(0, raw_connect(cfd, RDMACHAN_IOC_CONNECT, c, NULL));
		/* one request at a time: a queued one keeps the listener put */
		for (;;) {
			unsigned int got = take_requests(m.fd[0], 0, &bad) +
					   take_requests(m.fd[1], 1, &bad);

			requests += got;
			if (got)
				break;
			/* an answer with no request read: it was lost */
			if (!raw_get_event(cfd, &ev, 0)) {
				EXPECT_EQ(0, raw_ack(cfd, &ev.event_handle, 1));
				TH_LOG("client %u: event %u before its request",
				       i, ev.event);
				break;
			}
		}
		/* the client's answer: REJECTED, from the destroyed new id */
		if (ev.id_handle != c)
			EXPECT_EQ(0, raw_expect(cfd, c, RDMA_CM_EVENT_REJECTED,
						NULL));
		ev.id_handle = 0;
		ASSERT_EQ(0, raw_destroy(cfd, c));
	}
	atomic_store(&m.stop, true);
	pthread_join(mover, NULL);
	printf("# %u requests, listener moved %u times, %u bad\n",
	       requests, m.moves, bad);
	EXPECT_EQ(clients, requests);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, raw_destroy(m.fd[atomic_load(&m.where)],
				 m.handle[atomic_load(&m.where)]));
	close(cfd);
}

TEST_HARNESS_MAIN
