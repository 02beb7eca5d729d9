// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: a structured fuzzer for the /dev/rdmachan ioctls.
 *
 * A supervisor forks -j worker processes and watches them. Each worker
 * runs -T threads on one shared model of its open files: their device
 * contexts, their CM ids and the state each id is in, the events read and
 * not yet acknowledged, and the history of every handle (live, or gone
 * since which call). The threads mostly make plausible calls: create ids,
 * bind them to $RDMACHAN_ADDR port 0, resolve, listen, connect to the
 * worker's own listeners, accept or reject, establish, disconnect, read
 * events (non-blocking, after poll, or blocking under a timer that
 * interrupts them), acknowledge them right, wrong or twice, migrate ids
 * between files, destroy. About a quarter of the calls get one fault:
 * an unknown command or direction, a NULL, unmapped, kernel, read-only or
 * page-straddling argument, a short, long (zero or non-zero tail) or huge
 * size, unknown flags, a non-zero reserved field, a handle that is not
 * the file's (destroyed, zero, random, of another file, of another type),
 * a value out of range, a bad pointer inside the struct. Besides, threads
 * close files while others are in calls on them (the fds are dup'd, the
 * release comes with the last reference), fork children whose calls must
 * all fail with EACCES, leave destroys waiting for acknowledgements that
 * another thread gives later or never gives, and the supervisor kills
 * workers with SIGKILL at random times. On a module with verbs objects,
 * a third of the steps are verbs.c's, cq_ring.c's (mapped CQ rings) and
 * async_events.c's (async event files and their acks). With -F, on a
 * kernel with fault injection, a share of the calls also get one kernel
 * fault through fail-nth: an allocation or user copy on their path fails.
 *
 * Every result is checked against the errnos the ABI allows for the call
 * as it was made: exact for what the module decides (ENOTTY, EACCES,
 * EFAULT, EINVAL, E2BIG, ENOENT, EAGAIN, ...), a set of the RDMA CM's own
 * errnos where the CM decides on an id's state. Events are checked too:
 * handles unique, no event for an id whose destroy had returned, nothing
 * uninitialised copied out. A call that does not return within the hang
 * limit while no acknowledgement is outstanding is a hang. At the end the
 * module's live-object counters must be back to their values before.
 *
 * The seed fixes every thread's choices; thread timing does not repeat, so
 * a run with the same seed makes the same kinds of calls, not the same
 * interleaving.
 */
#include "fuzz.h"

static const char *const fault_names[NFAULTS] = {
	[F_NONE] = "none",
	[F_UNKNOWN_CMD] = "unknown-command",
	[F_BAD_DIR] = "bad-direction",
	[F_ARG_NULL] = "arg-null",
	[F_ARG_UNMAPPED] = "arg-unmapped",
	[F_ARG_KERNEL] = "arg-kernel-address",
	[F_ARG_STRADDLE_HDR] = "arg-header-straddles-page",
	[F_ARG_STRADDLE] = "arg-straddles-page",
	[F_ARG_READONLY] = "arg-read-only",
	[F_SIZE_SHORT] = "size-short",
	[F_SIZE_LONG_ZERO] = "size-long-zero-tail",
	[F_SIZE_LONG_TAIL] = "size-long-nonzero-tail",
	[F_SIZE_HUGE] = "size-huge",
	[F_FLAGS] = "unknown-flags",
	[F_RESERVED] = "reserved-nonzero",
	[F_HANDLE_ZERO] = "handle-zero",
	[F_HANDLE_HUGE] = "handle-huge",
	[F_HANDLE_DEAD] = "handle-destroyed",
	[F_HANDLE_WRONG_TYPE] = "handle-wrong-type",
	[F_HANDLE_OTHER_FILE] = "handle-of-other-file",
	[F_HANDLE_RANDOM] = "handle-random",
	[F_VALUE] = "bad-value",
	[F_PTR] = "bad-pointer-in-struct",
	[F_ACK_BAD] = "bad-ack-batch",
	[F_CHILD] = "forked-child",
};


static const char *const stat_names[NSTATS] = {
	[ST_EVENTS] = "events read",
	[ST_ACKS] = "events acknowledged",
	[ST_ACKS_REFUSED] = "ack batches refused (ENOENT/EINVAL/EFAULT)",
	[ST_CONNECT_REQUESTS] = "connect requests",
	[ST_ESTABLISHED] = "ESTABLISHED events",
	[ST_REFUSED] = "REJECTED/UNREACHABLE/CONNECT_ERROR events",
	[ST_DISCONNECTED] = "DISCONNECTED events",
	[ST_EINTR] = "calls interrupted (EINTR)",
	[ST_EAGAIN] = "empty non-blocking reads (EAGAIN)",
	[ST_EVENT_DROPPED_IN_SLOT] = "events dropped after being written out (id destroyed)",
	[ST_CM_ERRORS] = "CM state errors",
	[ST_FILES_OPENED] = "files opened",
	[ST_FILES_CLOSED] = "files closed",
	[ST_CLOSE_DURING_CALL] = "files closed during a call on them",
	[ST_ENOTTY_CLOSED] = "calls racing a close (ENOTTY)",
	[ST_FORKS] = "forked children",
	[ST_DESTROY_DEFERRED] = "destroys waiting for another thread's ack",
	[ST_DESTROY_TRAPPED] = "destroys/migrates waiting for acks never given",
	[ST_MIGRATES] = "ids migrated",
	[ST_WORKERS] = "worker processes",
	[ST_KILLS_RANDOM] = "workers killed at random",
	[ST_KILLS_TRAP] = "workers killed in a never-acked wait",
	[ST_KILLS_BLOCKED] = "workers killed blocked on outstanding acks",
	[ST_VERBS_OBJS] = "verbs objects made",
	[ST_QP_RTS] = "QPs taken to RTS",
	[ST_QP_CM] = "QPs made for CM ids",
	[ST_QP_DEVICE_ERR] = "UD QPs the device had moved to the error state",
	[ST_WRS_POSTED] = "work requests posted",
	[ST_WCS] = "completions polled",
	[ST_WC_ERRORS] = "completions with an error status",
	[ST_CQ_EVENTS] = "completion events taken",
	[ST_CQ_EVENTS_STALE] = "completion events of CQs of closed files",
	[ST_CHANNELS_CLOSED] = "completion channels closed",
	[ST_SCRATCH_REMAPS] = "MR memory unmapped and mapped again",
	[ST_ASYNC_FDS] = "async event files opened",
	[ST_ASYNC_FDS_CLOSED] = "async event files closed",
	[ST_ASYNC_EVENTS] = "async events read",
	[ST_ASYNC_EVENTS_STALE] = "async events of objects of closed files",
	[ST_ASYNC_ACKS] = "async events acknowledged",
	[ST_ASYNC_ACKS_REFUSED] = "async acks refused (EINVAL/ENOENT), as wanted",
	[ST_ASYNC_DESTROY_WAITS] = "destroys waiting for another thread's async ack",
	[ST_RING_WCS] = "completions read from mapped CQ rings",
	[ST_RING_UPDATES] = "CQ rings handed back (UPDATE_CQ_RING)",
	[ST_RING_UNMAPS] = "CQ rings read after their CQ or file went",
	[ST_MODEL_LOST] = "model overflows (objects not tracked)",
	[ST_KFAULT_ARMED] = "calls with fail-nth armed",
	[ST_KFAULT_FIRED] = "kernel faults injected (fail-nth)",
	[ST_KFAULT_FAILED] = "kernel faults that failed their call",
};


struct shm *shm;


#define CMD(nr, st, out, rsv, hk) \
	[RDMACHAN_CMD_##nr] = { #nr, sizeof(struct st), out, \
		offsetof(struct st, rsv), \
		sizeof(((struct st *)0)->rsv), hk }
#define CMD_NR(nr, st, out, hk) \
	[RDMACHAN_CMD_##nr] = { #nr, sizeof(struct st), out, -1, 0, hk }

const struct cmd_info cmds[NCMD] = {
	CMD(GET_INFO, rdmachan_get_info, true, __reserved, HK_NONE),
	CMD(LIST_DEVICES, rdmachan_list_devices, true, __reserved, HK_NONE),
	CMD(OPEN_DEVICE, rdmachan_open_device, true, __reserved, HK_NONE),
	CMD(DESTROY, rdmachan_destroy, false, __reserved, HK_ANY),
	CMD(QUERY_DEVICE, rdmachan_query_device, true, __reserved, HK_CTX),
	CMD(QUERY_PORT, rdmachan_query_port, true, __reserved, HK_CTX),
	CMD(QUERY_GID, rdmachan_query_gid, true, __reserved, HK_CTX),
	CMD(CREATE_ID, rdmachan_create_id, true, __reserved, HK_NONE),
	CMD(BIND_ADDR, rdmachan_bind_addr, true, __reserved, HK_ID),
	CMD_NR(RESOLVE_ADDR, rdmachan_resolve_addr, false, HK_ID),
	CMD_NR(RESOLVE_ROUTE, rdmachan_resolve_route, false, HK_ID),
	CMD_NR(LISTEN, rdmachan_listen, false, HK_ID),
	CMD(CONNECT, rdmachan_connect, false, __reserved, HK_ID),
	CMD(ACCEPT, rdmachan_connect, false, __reserved, HK_ID),
	CMD(REJECT, rdmachan_reject, false, __reserved, HK_ID),
	CMD(DISCONNECT, rdmachan_disconnect, false, __reserved, HK_ID),
	CMD(ESTABLISH, rdmachan_establish, false, __reserved, HK_ID),
	CMD_NR(NOTIFY, rdmachan_notify, false, HK_ID),
	CMD_NR(GET_EVENTS, rdmachan_get_events, true, HK_NONE),
	CMD_NR(ACK_EVENTS, rdmachan_get_events, false, HK_NONE),
	CMD(SET_OPTION, rdmachan_set_option, false, __reserved, HK_ID),
	CMD(INIT_QP_ATTR, rdmachan_init_qp_attr, true, __reserved, HK_ID),
	CMD(MIGRATE_ID, rdmachan_migrate_id, true, __reserved, HK_ID),
	CMD(CREATE_COMP_CHANNEL, rdmachan_create_comp_channel, true, __reserved,
	    HK_NONE),
	/* on a completion channel, not on /dev/rdmachan */
	CMD(GET_CQ_EVENT, rdmachan_get_cq_event, true, __reserved, HK_NONE),
	CMD_NR(ALLOC_PD, rdmachan_alloc_pd, true, HK_CTX),
	CMD(REG_MR, rdmachan_reg_mr, true, __reserved, HK_PD),
	CMD_NR(CREATE_CQ, rdmachan_create_cq, true, HK_CTX),
	CMD_NR(REQ_NOTIFY_CQ, rdmachan_notify_cq, false, HK_CQ),
	CMD_NR(ACK_CQ_EVENTS, rdmachan_notify_cq, false, HK_CQ),
	CMD_NR(POLL_CQ, rdmachan_poll_cq, true, HK_CQ),
	CMD(CREATE_QP, rdmachan_create_qp, true, __reserved, HK_PD),
	CMD_NR(MODIFY_QP, rdmachan_modify_qp, false, HK_QP),
	CMD_NR(QUERY_QP, rdmachan_query_qp, true, HK_QP),
	CMD(POST_SEND, rdmachan_post, true, __reserved, HK_QP),
	CMD(POST_RECV, rdmachan_post, true, __reserved, HK_QP),
	CMD(CREATE_SRQ, rdmachan_create_srq, true, __reserved, HK_PD),
	CMD_NR(MODIFY_SRQ, rdmachan_modify_srq, false, HK_SRQ),
	CMD(QUERY_SRQ, rdmachan_query_srq, true, __reserved, HK_SRQ),
	CMD(POST_SRQ_RECV, rdmachan_post, true, __reserved, HK_SRQ),
	CMD_NR(CREATE_AH, rdmachan_create_ah, true, HK_PD),
	CMD(JOIN_MCAST, rdmachan_join_mcast, true, __reserved, HK_ID),
	/* writes out_fd itself: a reply it cannot write is EFAULT */
	CMD_NR(OPEN_ASYNC_FD, rdmachan_open_async_fd, true, HK_CTX),
	/* on an asynchronous event file, not on /dev/rdmachan */
	CMD_NR(GET_ASYNC_EVENT, rdmachan_get_async_event, true, HK_NONE),
	/* a QP, CQ or SRQ */
	CMD_NR(ACK_ASYNC_EVENT, rdmachan_ack_async_event, false, HK_ANY),
	CMD_NR(UPDATE_CQ_RING, rdmachan_update_cq_ring, false, HK_CQ),
	CMD(BIND_USER_QP, rdmachan_bind_user_qp, false, __reserved, HK_ID),
	CMD(QUERY_EVENTS, rdmachan_query_events, true, __reserved, HK_NONE),
	CMD(QUERY_ASYNC_EVENTS, rdmachan_query_async_events, true, __reserved,
	    HK_ANY),
};


void es_add(struct errset *s, int e)
{
	if (e >= 0 && e < 192)
		s->b[e / 64] |= 1ull << (e % 64);
}

bool es_has(const struct errset *s, int e)
{
	return e >= 0 && e < 192 && (s->b[e / 64] >> (e % 64) & 1);
}

void es_del(struct errset *s, int e)
{
	if (e >= 0 && e < 192)
		s->b[e / 64] &= ~(1ull << (e % 64));
}

struct errset es_of(const int *list)
{
	struct errset s = {};

	for (; *list >= 0; list++)
		es_add(&s, *list);
	return s;
}

void es_merge(struct errset *s, struct errset o)
{
	int i;

	for (i = 0; i < 3; i++)
		s->b[i] |= o.b[i];
}

static void es_str(const struct errset *s, char *buf, size_t len)
{
	size_t n = 0;
	int e;

	buf[0] = '\0';
	for (e = 0; e < 192 && n + 16 < len; e++) {
		if (!es_has(s, e))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
			      e ? errno_name(e) : "0");
	}
}

/* The RDMA CM's own errnos for a call its state or its input refuses. */
static struct errset cm_errs(int cmd)
{
	struct errset s = ES(EINVAL, ENOMEM);

	switch (cmd) {
	case RDMACHAN_CMD_BIND_ADDR:
		/* EPROTONOSUPPORT: no port space for the address (AF_IB) */
		es_merge(&s, ES(EADDRINUSE, EADDRNOTAVAIL, ENODEV, EAFNOSUPPORT,
				EPROTONOSUPPORT));
		break;
	case RDMACHAN_CMD_RESOLVE_ADDR:
		es_merge(&s, ES(EADDRINUSE, EADDRNOTAVAIL, ENODEV, EAFNOSUPPORT,
				EPROTONOSUPPORT, ENETUNREACH, EHOSTUNREACH));
		break;
	case RDMACHAN_CMD_RESOLVE_ROUTE:
		es_merge(&s, ES(ENOSYS, ENODEV));
		break;
	case RDMACHAN_CMD_LISTEN:
		es_merge(&s, ES(EADDRINUSE, EADDRNOTAVAIL, ENODEV, ENOSYS,
				EPROTONOSUPPORT));
		break;
	case RDMACHAN_CMD_CONNECT:
		/* EACCES: a QP number that names another process's QP */
		es_merge(&s, ES(ENOSYS, ENODEV, EACCES));
		break;
	case RDMACHAN_CMD_BIND_USER_QP:
		/* no uverbs QP here: every bind is refused, somehow */
		es_merge(&s, ES(EBADF, EACCES, ENOENT, ENODEV, EOPNOTSUPP));
		break;
	case RDMACHAN_CMD_NOTIFY:
		/* EISCONN: COMM_EST on an established connection */
		es_merge(&s, ES(ENOSYS, EISCONN));
		break;
	case RDMACHAN_CMD_INIT_QP_ATTR:
		/* ENODEV: an IPoIB id's Q_Key from the SA, which RoCE has not */
		es_merge(&s, ES(ENOSYS, ENODEV));
		break;
	case RDMACHAN_CMD_ACCEPT:
		es_merge(&s, ES(ENOSYS, EACCES));
		break;
	case RDMACHAN_CMD_REJECT:
	case RDMACHAN_CMD_ESTABLISH:
	case RDMACHAN_CMD_DISCONNECT:
		es_merge(&s, ES(ENOSYS));
		break;
	default:
		break;
	}
	return s;
}


static const char *const state_names[NSTATES] = {
	"new", "bound", "addr-query", "addr-resolved", "route-query",
	"route-resolved", "listen", "connecting", "request", "accepted",
	"responded", "connected", "disconnected", "failed",
};




u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC + ts.tv_nsec;
}

static void sleep_ns(u64 ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC, .tv_nsec = ns % NSEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static u64 splitmix(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

u32 rnd(struct thr *t, u32 n)
{
	return n ? (u32)(splitmix(&t->rng) % n) : 0;
}

u64 rnd64(struct thr *t)
{
	return splitmix(&t->rng);
}

bool chance(struct thr *t, u32 pct)
{
	return rnd(t, 100) < pct;
}

void stat_add(int st, u64 n)
{
	__atomic_fetch_add(&shm->stat[st], n, __ATOMIC_RELAXED);
}

static void put_str(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/* Records a failure; safe in a forked child (no locks, no malloc). */
void record_failure(const char *msg)
{
	int i = __atomic_fetch_add(&shm->nfail, 1, __ATOMIC_RELAXED);

	if (i < MAX_FAIL)
		snprintf(shm->fail[i], FAIL_LEN, "%s", msg);
	put_str(2, "rdmachan-fuzz: FAIL: ");
	put_str(2, msg);
	put_str(2, "\n");
}

static void dump_ring(struct slot *s, const char *who)
{
	char line[DESC_LEN + 64];
	u32 i, pos = s->ring_pos;

	snprintf(line, sizeof(line), "rdmachan-fuzz:   last calls of %s:\n", who);
	put_str(2, line);
	for (i = pos > RING_LEN ? pos - RING_LEN : 0; i < pos; i++) {
		snprintf(line, sizeof(line), "rdmachan-fuzz:     %s\n",
			 s->ring[i % RING_LEN]);
		put_str(2, line);
	}
}

void fail(struct thr *t, const char *fmt, ...)
{
	char msg[FAIL_LEN], who[64];
	va_list ap;
	int n;

	/* the report and the journal after it take a while to write */
	t->w->ws->reporting_until_ns = now_ns() + 20 * NSEC;
	snprintf(who, sizeof(who), "worker %d gen %d thread %d", t->w->index,
		 t->w->gen, t->idx);
	n = snprintf(msg, sizeof(msg), "seed %#llx %s: ",
		     (unsigned long long)t->w->seed, who);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	record_failure(msg);
	if (shm->nfail <= 4)
		dump_ring(t->slot, who);
}

/* ---- the model ---- */

void lock(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
}

void unlock(struct worker *w)
{
	pthread_mutex_unlock(&w->lock);
}

void journal(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->journal)
		return;
	va_start(ap, fmt);
	vsnprintf(w->journal[w->njournal++ % JOURNAL_LEN], JOURNAL_LINE, fmt, ap);
	va_end(ap);
}

/* The journal's lines about file @fi, once per worker. */
void journal_dump(struct worker *w, int fi)
{
	char tag[16], line[JOURNAL_LINE + 32];
	u32 i = w->njournal > JOURNAL_LEN ? w->njournal - JOURNAL_LEN : 0;

	if (w->journal_dumped || !w->journal)
		return;
	w->journal_dumped = true;
	snprintf(tag, sizeof(tag), " f%d", fi);
	put_str(2, "rdmachan-fuzz:   journal of the file:\n");
	for (; i < w->njournal; i++) {
		const char *l = w->journal[i % JOURNAL_LEN];

		(void)tag;
		snprintf(line, sizeof(line), "rdmachan-fuzz:     %s\n", l);
		put_str(2, line);
	}
	/* the calls other threads are still in: often the other half of a race */
	for (i = 0; i < (u32)w->nthr; i++) {
		const struct call *c = w->thr[i].cur_call;

		if (!c)
			continue;
		snprintf(line, sizeof(line),
			 "rdmachan-fuzz:     t%u seq %u- in flight: %s\n", i,
			 c->start_seq, c->desc);
		put_str(2, line);
	}
}

u32 hist_get(struct mfile *f, u32 h)
{
	return h < f->hist_len ? f->hist[h] : 0;
}

void hist_set(struct mfile *f, u32 h, u32 v)
{
	u32 len;
	u32 *n;

	if (h >= HIST_MAX)
		return;
	if (h >= f->hist_len) {
		len = f->hist_len ? f->hist_len : 256;
		while (len <= h)
			len *= 2;
		n = realloc(f->hist, len * sizeof(*n));
		if (!n)
			return;
		memset(n + f->hist_len, 0, (len - f->hist_len) * sizeof(*n));
		f->hist = n;
		f->hist_len = len;
	}
	f->hist[h] = v;
}

static bool hist_gone(struct mfile *f, u32 h)
{
	u32 v = hist_get(f, h);

	return v && v != HIST_LIVE;
}

static struct mobj *obj_find(struct mfile *f, u32 h)
{
	int i;

	if (!h)
		return NULL;
	for (i = 0; i < MAX_OBJS; i++)
		if (f->objs[i].used && f->objs[i].handle == h)
			return &f->objs[i];
	return NULL;
}

/* @h is a device context of @f that no destroy is after. */
bool ctx_live(struct mfile *f, u32 h)
{
	struct mobj *o = obj_find(f, h);

	return o && o->ctx && !o->dying;
}

static void model_dup(struct worker *w, struct mfile *f, u32 h, bool ctx);

static struct mobj *obj_add(struct worker *w, struct mfile *f, u32 h, bool ctx)
{
	struct mobj *o = NULL;
	int i;

	if (obj_find(f, h))
		model_dup(w, f, h, ctx);
	journal(w, "model f%d: + %s %u (gen %d)", (int)(f - w->files),
		ctx ? "ctx" : "id", h, f->gen);
	hist_set(f, h, HIST_LIVE);
	for (i = 0; i < MAX_OBJS && !o; i++)
		if (!f->objs[i].used)
			o = &f->objs[i];
	if (!o) {
		stat_add(ST_MODEL_LOST, 1);
		return NULL;
	}
	(void)w;
	memset(o, 0, sizeof(*o));
	o->used = true;
	o->ctx = ctx;
	o->handle = h;
	if (ctx)
		f->nctx++;
	else
		f->nids++;
	return o;
}

static void obj_gone(struct worker *w, struct mfile *f, struct mobj *o,
		     bool migrated)
{
	hist_set(f, o->handle, ++w->seq << 2 |
		 (migrated ? HIST_MIGRATED : HIST_DESTROYED));
	journal(w, "model f%d: - %u (%s) seq %u", (int)(f - w->files), o->handle,
		migrated ? "migrated" : "destroyed", w->seq);
	f->dead[f->ndead++ % DEAD_RING] = o->handle;
	if (o->ctx)
		f->nctx--;
	else
		f->nids--;
	o->used = false;
}

static struct mev *ev_find(struct mfile *f, u32 h)
{
	int i;

	for (i = 0; i < MAX_EVS; i++)
		if (f->evs[i].state != E_FREE && f->evs[i].handle == h)
			return &f->evs[i];
	return NULL;
}

static bool acked_recently(struct mfile *f, u32 h)
{
	u32 i, n = f->nacked < ACKED_RING ? f->nacked : ACKED_RING;

	for (i = 0; i < n; i++)
		if (f->acked[i] == h)
			return true;
	return false;
}

static void ev_acked(struct mfile *f, struct mev *e)
{
	f->acked[f->nacked++ % ACKED_RING] = e->handle;
	e->state = E_FREE;
	stat_add(ST_ACKS, 1);
}

static int nevents(struct mfile *f, int state, u32 id_handle)
{
	int i, n = 0;

	for (i = 0; i < MAX_EVS; i++)
		if (f->evs[i].state != E_FREE &&
		    (state < 0 || f->evs[i].state == state) &&
		    (!id_handle || f->evs[i].id_handle == id_handle))
			n++;
	return n;
}

static int free_ev_slots(struct mfile *f)
{
	return MAX_EVS - nevents(f, -1, 0) - f->ev_reserved;
}

static void file_reset(struct mfile *f)
{
	struct worker *w = f->w;
	int gen = f->gen, idx = f->idx;

	verbs_file_gone(f);
	free(f->hist);
	memset(f, 0, sizeof(*f));
	f->w = w;
	f->idx = idx;
	f->gen = gen + 1;
	f->state = FS_CLOSED;
}

/* The last call pinning a closed file is gone: its fd numbers go too. */
static void file_finish_close(struct mfile *f)
{
	int i;

	if (f->nfds)
		journal(f->w, "close f%d gen %d: fds %d %d %d closed", f->idx, f->gen,
			f->fds[0], f->nfds > 1 ? f->fds[1] : -1,
			f->nfds > 2 ? f->fds[2] : -1);
	for (i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	file_reset(f);
	stat_add(ST_FILES_CLOSED, 1);
}

void pin(struct mfile *f)
{
	f->pins++;
}

void unpin(struct mfile *f)
{
	if (--f->pins == 0 && f->state == FS_CLOSING)
		file_finish_close(f);
}

int pick_file(struct thr *t)
{
	struct worker *w = t->w;
	int i, n = 0, pick[MAX_FILES];

	for (i = 0; i < MAX_FILES; i++)
		if (w->files[i].state == FS_OPEN)
			pick[n++] = i;
	return n ? pick[rnd(t, n)] : -1;
}

int pick_fd(struct thr *t, struct mfile *f)
{
	return f->fds[rnd(t, f->nfds)];
}

/* A random object of @f: ids when @want_ctx is false, in @states if set. */
struct mobj *pick_obj(struct thr *t, struct mfile *f, bool want_ctx,
		      u32 states, bool allow_dying)
{
	struct mobj *pick[MAX_OBJS];
	int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct mobj *o = &f->objs[i];

		if (!o->used || o->ctx != want_ctx || (o->dying && !allow_dying))
			continue;
		if (!want_ctx && states && !(states & (1u << o->state)))
			continue;
		pick[n++] = o;
	}
	return n ? pick[rnd(t, n)] : NULL;
}

/* The calling thread, for a failure found where no thread is at hand. */
struct thr *self_thr(struct worker *w)
{
	int i;

	for (i = 0; i < w->nthr; i++)
		if (pthread_equal(w->thr[i].pt, pthread_self()))
			return &w->thr[i];
	return &w->thr[0];
}

static void model_dup(struct worker *w, struct mfile *f, u32 h, bool ctx)
{
	struct mobj *o = obj_find(f, h);

	fail(self_thr(w),
	     "model: file %d handle %u added as a new %s while the model has it as a live %s (state %s)",
	     (int)(f - w->files), h, ctx ? "context" : "id",
	     o->ctx ? "context" : "id", state_names[o->state]);
}

struct fz_cfg cfg;

/* ---- calls ---- */

static void slot_begin(struct thr *t, struct call *c, int may_block)
{
	struct slot *s = t->slot;

	memcpy(s->desc, c->desc, DESC_LEN);
	memcpy(s->ring[s->ring_pos % RING_LEN], c->desc, DESC_LEN);
	s->ring_pos++;
	s->may_block = may_block;
	s->cmd = c->cmd;
	s->start_ns = now_ns();
	__atomic_store_n(&s->in_call, 1, __ATOMIC_RELEASE);
}

static void slot_end(struct thr *t)
{
	__atomic_store_n(&t->slot->in_call, 0, __ATOMIC_RELEASE);
	t->slot->may_block = 0;
	t->slot->calls++;
}

static void arm_timer(struct thr *t, u64 ns)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = ns / NSEC, .tv_nsec = ns % NSEC },
		/* again and again, in case the first one came too early */
		.it_interval = { .tv_sec = 0, .tv_nsec = 200 * MSEC },
	};

	if (t->have_timer)
		timer_settime(t->timer, 0, &its, NULL);
}

static void disarm_timer(struct thr *t)
{
	struct itimerspec its = {};

	if (t->have_timer)
		timer_settime(t->timer, 0, &its, NULL);
}

void call_init(struct call *c, int cmd, int fi, int gen, int fd)
{
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->fi = fi;
	c->gen = gen;
	c->fd = fd;
	c->ksize = cmds[cmd].size;
	c->usize = c->ksize;
	c->ioc = _IOC(_IOC_READ | _IOC_WRITE, RDMACHAN_IOCTL_TYPE, cmd,
		      c->ksize);
	c->a.get_info.size = c->ksize;
	c->ok = ES(0);
}

static u32 field32(struct call *c, size_t off)
{
	u32 v;

	memcpy(&v, c->a.raw + off, 4);
	return v;
}

static void set_field32(struct call *c, size_t off, u32 v)
{
	memcpy(c->a.raw + off, &v, 4);
}

/* Offset of the handle field; MIGRATE_ID's handle names an id of fd's file. */
static size_t handle_off(int cmd)
{
	return cmd == RDMACHAN_CMD_MIGRATE_ID ?
	       offsetof(struct rdmachan_migrate_id, handle) : 8;
}

static bool destructive(int cmd)
{
	return cmd == RDMACHAN_CMD_DESTROY || cmd == RDMACHAN_CMD_MIGRATE_ID;
}

/* A fault that leaves the call's meaning alone: the handler runs as usual. */
static bool benign(const struct call *c)
{
	return c->fault == F_NONE || c->fault == F_SIZE_LONG_ZERO ||
	       (c->fault == F_ARG_READONLY && !cmds[c->cmd].output);
}

static void mark_dying(struct mobj *o)
{
	o->dying = true;
	o->dying_ns = now_ns();
}

/*
 * Replaces the call's handle with one that is not an object of the right
 * kind in file @hf. Returns false when no such handle could be found.
 */
static bool bad_handle(struct thr *t, struct call *c, struct mfile *hf,
		       int kind)
{
	struct worker *w = t->w;
	u32 h = 0, v;
	int tries;
	bool unsure = false;

	for (tries = 0; tries < 8; tries++) {
		int k = F_HANDLE_ZERO + rnd(t, F_HANDLE_RANDOM - F_HANDLE_ZERO + 1);
		struct mobj *o;
		int i;

		unsure = false;
		switch (k) {
		case F_HANDLE_ZERO:
			h = 0;
			break;
		case F_HANDLE_HUGE:
			h = 0x80000000u | (u32)rnd64(t);
			break;
		case F_HANDLE_DEAD:
			if (!hf->ndead)
				continue;
			h = hf->dead[rnd(t, hf->ndead < DEAD_RING ? hf->ndead : DEAD_RING)];
			if (!hist_gone(hf, h))
				continue;
			break;
		case F_HANDLE_WRONG_TYPE:
			if (kind == HK_ANY)
				continue;
			if (kind >= HK_PD || (cfg.verbs && chance(t, 30))) {
				/* a verbs object of another kind, or a CM one */
				h = vobj_pick_handle(t, hf, kind, true);
				if (!h)
					continue;
				break;
			}
			o = pick_obj(t, hf, kind == HK_ID, 0, true);
			if (!o)
				continue;
			h = o->handle;
			break;
		case F_HANDLE_OTHER_FILE:
			i = rnd(t, MAX_FILES);
			if (&w->files[i] == hf || w->files[i].state == FS_CLOSED)
				continue;
			if (kind >= HK_PD) {
				h = vobj_pick_handle(t, &w->files[i], kind, false);
				if (!h)
					continue;
			} else {
				o = pick_obj(t, &w->files[i], kind == HK_CTX, 0,
					     true);
				if (!o)
					continue;
				h = o->handle;
			}
			v = hist_get(hf, h);
			if (v == HIST_LIVE)
				continue;
			unsure = !v;
			break;
		default:
			h = 1 + rnd(t, hf->hist_len + 64);
			v = hist_get(hf, h);
			if (v == HIST_LIVE)
				continue;
			unsure = !v;
			break;
		}
		if (unsure && destructive(c->cmd))
			continue;
		set_field32(c, handle_off(c->cmd), h);
		c->target = 0;
		c->fault = k;
		c->handle_unsure = unsure;
		if (unsure) {
			/* it may be a new id not yet seen here: anything goes */
			es_add(&c->ok, ENOENT);
		} else {
			c->ok = ES(ENOENT);
		}
		return true;
	}
	return false;
}

/*
 * Maybe turns the call into a hostile one: one fault, with the errnos the
 * ABI prescribes for it. The builder may have injected a fault already.
 */
/* The flags a command knows; any other is EINVAL. */
static u32 known_flags(int cmd)
{
	switch (cmd) {
	case RDMACHAN_CMD_GET_EVENTS:
		return RDMACHAN_GET_EVENTS_NONBLOCK;
	case RDMACHAN_CMD_GET_CQ_EVENT:
		return RDMACHAN_GET_CQ_EVENT_NONBLOCK;
	case RDMACHAN_CMD_GET_ASYNC_EVENT:
		return RDMACHAN_GET_ASYNC_EVENT_NONBLOCK;
	case RDMACHAN_CMD_REQ_NOTIFY_CQ:
		return RDMACHAN_NOTIFY_SOLICITED;
	case RDMACHAN_CMD_CREATE_QP:
		return RDMACHAN_CREATE_QP_CM_ID | RDMACHAN_CREATE_QP_SQ_SIG_ALL;
	case RDMACHAN_CMD_CREATE_CQ:
		return RDMACHAN_CREATE_CQ_RING;
	default:
		return 0;
	}
}

/* The first layout's size: anything shorter is EINVAL. */
static u32 min_size(const struct call *c)
{
	if (c->cmd == RDMACHAN_CMD_CREATE_CQ)
		return offsetof(struct rdmachan_create_cq, out_ring_entries);
	return c->ksize;
}

void inject(struct thr *t, struct call *c, struct mfile *hf)
{
	const struct cmd_info *ci = &cmds[c->cmd];
	int kind = c->cmd == RDMACHAN_CMD_MIGRATE_ID ? HK_ID : ci->handle_kind;
	int f;

	if (c->fault != F_NONE || !chance(t, cfg.pct_fault))
		return;
	for (;;) {
		f = F_BAD_DIR + rnd(t, F_HANDLE_RANDOM - F_BAD_DIR + 1);
		if (f == F_RESERVED && ci->rsv_off < 0)
			continue;
		if (f >= F_HANDLE_ZERO && f <= F_HANDLE_RANDOM) {
			if (kind == HK_NONE || !hf)
				continue;
			if (!bad_handle(t, c, hf, kind))
				continue;
			return;
		}
		/* migrate's reply carries the moved id's new handle */
		if (f == F_ARG_READONLY && c->cmd == RDMACHAN_CMD_MIGRATE_ID)
			continue;
		break;
	}
	c->fault = f;
	switch (f) {
	case F_BAD_DIR:
		c->ioc = _IOC(rnd(t, 3), RDMACHAN_IOCTL_TYPE, c->cmd, c->ksize);
		c->ok = ES(ENOTTY);
		break;
	case F_ARG_NULL:
	case F_ARG_UNMAPPED:
	case F_ARG_KERNEL:
	case F_ARG_STRADDLE_HDR:
	case F_ARG_STRADDLE:
	case F_SIZE_HUGE:
		c->ok = ES(EFAULT);
		break;
	case F_ARG_READONLY:
		/* the handler runs; a reply it cannot write is EFAULT */
		if (ci->output) {
			es_del(&c->ok, 0);
			es_add(&c->ok, EFAULT);
		}
		break;
	case F_SIZE_SHORT:
		c->usize = rnd(t, min_size(c));
		c->ok = ES(EINVAL);
		break;
	case F_SIZE_LONG_ZERO:
		c->usize = c->ksize + 1 + rnd(t, chance(t, 50) ? 16 : 8192);
		break;
	case F_SIZE_LONG_TAIL:
		c->usize = c->ksize + 1 + rnd(t, chance(t, 50) ? 16 : 8192);
		c->tail_off = c->ksize + rnd(t, c->usize - c->ksize);
		c->ok = ES(E2BIG);
		break;
	case F_FLAGS:
		c->a.get_info.flags |= 1u << rnd(t, 32);
		if (!(c->a.get_info.flags & ~known_flags(c->cmd)))
			c->a.get_info.flags |= 0x80000000u;
		c->ok = ES(EINVAL);
		break;
	case F_RESERVED:
		c->a.raw[ci->rsv_off + rnd(t, ci->rsv_len)] = 1 + rnd(t, 255);
		c->ok = ES(EINVAL);
		break;
	}
}

static const char *ps_name(u32 ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return "/tcp";
	case RDMA_PS_UDP:
		return "/udp";
	case RDMA_PS_IPOIB:
		return "/ipoib";
	default:
		return "/ib";
	}
}

static void describe(struct thr *t, struct call *c)
{
	u32 h = 0;

	if (c->cmd >= 0 && cmds[c->cmd].handle_kind != HK_NONE)
		h = field32(c, handle_off(c->cmd));
	snprintf(c->desc, DESC_LEN,
		 "#%llu %s f%d(fd %d) size %u/%u flags %#x h %u%s%s%s fault %s%s%s",
		 (unsigned long long)t->ncalls,
		 c->cmd >= 0 ? cmds[c->cmd].name : "UNKNOWN", c->fi, c->fd,
		 c->usize, c->ksize, c->a.get_info.flags, h,
		 c->target && c->tstate >= 0 ? " " : "",
		 c->target && c->tstate >= 0 ? state_names[c->tstate] : "",
		 c->target && c->tstate >= 0 ? ps_name(c->tps) : "",
		 fault_names[c->fault], c->why ? ": " : "", c->why ? c->why : "");
}

/* Puts the argument where the fault wants it; returns the pointer. */
static void place(struct thr *t, struct call *c)
{
	u8 *guard = t->argmap + ARENA_LEN;
	u32 hdr = c->usize;

	c->a.get_info.size = c->usize;
	c->readback = false;
	c->ran = true;
	c->dirty_lo = 0;
	c->dirty_hi = c->ksize;
	switch (c->fault) {
	case F_ARG_NULL:
		c->uptr = NULL;
		c->ran = false;
		return;
	case F_ARG_UNMAPPED:
		c->uptr = guard + rnd(t, cfg.page);
		c->ran = false;
		return;
	case F_ARG_KERNEL:
		c->uptr = (void *)(chance(t, 50) ? 0xffff888000000000ull + rnd(t, 1 << 20) * 8 :
				   0x0000800000000000ull);
		c->ran = false;
		return;
	case F_ARG_STRADDLE_HDR:
		/* the size field itself crosses into the guard page */
		c->uptr = guard - 1 - rnd(t, 3);
		memcpy(c->uptr, &hdr, guard - (u8 *)c->uptr);
		c->dirty_lo = (u8 *)c->uptr - t->argmap;
		c->dirty_hi = ARENA_LEN;
		c->ran = false;
		return;
	case F_ARG_STRADDLE:
		/* header readable, the rest of the struct is not */
		c->uptr = guard - 8 - 8 * rnd(t, (c->ksize - 8) / 8);
		memcpy(c->uptr, c->a.raw, guard - (u8 *)c->uptr);
		c->dirty_lo = (u8 *)c->uptr - t->argmap;
		c->dirty_hi = ARENA_LEN;
		c->ran = false;
		return;
	case F_ARG_READONLY:
		memcpy(t->rw_view, c->a.raw, c->ksize);
		c->uptr = t->ro_view;
		c->dirty_hi = 0;
		return;
	case F_SIZE_HUGE:
		c->usize = chance(t, 50) ? 0xffffffffu : ARENA_LEN + rnd(t, 1 << 24);
		c->a.get_info.size = c->usize;
		memcpy(t->argmap, c->a.raw, c->ksize);
		c->uptr = t->argmap;
		c->ran = false;
		return;
	case F_SIZE_SHORT:
	case F_SIZE_LONG_TAIL:
	case F_BAD_DIR:
	case F_FLAGS:
		c->ran = false;
		break;
	default:
		break;
	}
	memcpy(t->argmap, c->a.raw, c->ksize);
	if (c->fault == F_SIZE_LONG_TAIL) {
		t->argmap[c->tail_off] = 1 + rnd(t, 255);
		c->dirty_hi = c->tail_off + 1;
	}
	c->uptr = t->argmap;
	c->readback = true;
}

/* Reads the reply back and leaves the arena all zero for the next call. */
static void unplace(struct thr *t, struct call *c)
{
	u32 n, i;

	if (c->readback) {
		memcpy(c->a.raw, t->argmap, c->ksize);
		n = c->usize > c->ksize ? c->usize : c->ksize;
		if (n > ARENA_LEN)
			n = ARENA_LEN;
		/* at most sizeof of the module's struct is written back */
		for (i = c->ksize; i < n; i++)
			if (t->argmap[i] && i != c->tail_off) {
				fail(t, "%s: wrote byte %u beyond its struct (%u bytes)",
				     c->desc, i, c->ksize);
				break;
			}
		if (n > c->dirty_hi)
			c->dirty_hi = n;
	}
	if (c->dirty_hi > c->dirty_lo)
		memset(t->argmap + c->dirty_lo, 0, c->dirty_hi - c->dirty_lo);
}

/* Arms fail-nth: the @nth fault-injection point of this thread fails. */
static bool nth_arm(int fd, unsigned int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", nth);

	return pwrite(fd, buf, len, 0) == len;
}

/*
 * Disarms it; true when the armed point was reached (it reads 0 then).
 * The read's own user copy is a point too: going off there reads as a
 * failed read, and the call did not reach it.
 */
static bool nth_disarm(int fd)
{
	char buf[16] = "";
	bool fired = false;
	int i;

	if (pread(fd, buf, sizeof(buf) - 1, 0) > 0)
		fired = strtoul(buf, NULL, 10) == 0;
	for (i = 0; i < 3 && pwrite(fd, "0", 1, 0) != 1; i++)
		;
	return fired;
}

/*
 * Not the calls that make rxe create queues: 6.1's rxe allocates them
 * with vmalloc, whose failure dumps a stack (warn_alloc), and the error
 * path of its QP creation deletes timers it never set up (an ODEBUG
 * WARN). Those would be reports about rxe, not about the module.
 */
static bool kfault_ok(int cmd)
{
	if (cfg.kfault_only_some)
		return cmd >= 0 && cfg.kfault_only[cmd];
	return cmd != RDMACHAN_CMD_CREATE_CQ && cmd != RDMACHAN_CMD_CREATE_QP &&
	       cmd != RDMACHAN_CMD_CREATE_SRQ;
}

/*
 * Makes the call. Entered with the model locked and the file pinned;
 * unlocks around the ioctl and returns locked, the result checked.
 */
void do_call(struct thr *t, struct call *c, int may_block, u64 timer_ns)
{
	struct worker *w = t->w;
	/* none for a call on a completion channel */
	struct mfile *f = c->fi >= 0 ? &w->files[c->fi] : NULL;
	char want[256];
	bool armed;
	int e;

	if (c->cmd >= 0 && cfg.excluded[c->cmd]) {
		c->ret = -1;
		c->err = ECANCELED;
		c->ran = false;
		return;
	}
	c->start_seq = ++w->seq;
	t->ncalls++;
	t->cur_fi = c->fi;
	t->cur_cmd = c->cmd;
	/* under the lock, so that a journal dump can show the call in flight */
	place(t, c);
	describe(t, c);
	t->cur_call = c;
	unlock(w);

	slot_begin(t, c, may_block);
	if (c->blocking)
		arm_timer(t, timer_ns);
	/*
	 * Not while a signal may come: a fault in writing its frame to the
	 * stack is a SIGSEGV.
	 */
	armed = t->nth_fd >= 0 && !c->no_kfault && !c->blocking &&
		kfault_ok(c->cmd) && chance(t, cfg.pct_kfault) &&
		nth_arm(t->nth_fd, 1 + rnd(t, 12));
	c->ret = ioctl(c->fd, c->ioc, c->uptr);
	c->err = c->ret ? errno : 0;
	if (armed)
		c->kfault = nth_disarm(t->nth_fd);
	c->end_ns = now_ns();
	if (c->blocking)
		disarm_timer(t);
	slot_end(t);
	unplace(t, c);
	if (armed)
		stat_add(ST_KFAULT_ARMED, 1);
	if (c->kfault) {
		/* an allocation, a user copy, or the IP stack's route lookup */
		es_merge(&c->ok, ES(ENOMEM, EFAULT, ENOBUFS));
		stat_add(ST_KFAULT_FIRED, 1);
		if (c->ret)
			stat_add(ST_KFAULT_FAILED, 1);
	}

	__atomic_fetch_add(&shm->calls[c->cmd >= 0 ? c->cmd : STAT_UNKNOWN], 1,
			   __ATOMIC_RELAXED);
	if (c->fault != F_NONE)
		__atomic_fetch_add(&shm->faults[c->fault], 1, __ATOMIC_RELAXED);

	lock(w);
	t->cur_cmd = -1;
	t->cur_call = NULL;
	c->closing = f && (f->gen != c->gen || f->state != FS_OPEN);
	e = c->ret ? c->err : 0;
	journal(w, "t%d seq %u-%u %s -> %s%s", t->idx, c->start_seq, w->seq,
		c->desc, e ? errno_name(e) : "ok",
		c->cmd == RDMACHAN_CMD_MIGRATE_ID && !e ?
		" (see model lines)" : "");
	if (c->ret && c->ret != -1) {
		fail(t, "%s: ioctl returned %d", c->desc, c->ret);
		return;
	}
	if ((c->closing || (c->chan && !c->chan->used) ||
	     (c->async && !c->async->used)) && e == ENOTTY) {
		/* the call came after the fd (file, channel, async) became /dev/null */
		stat_add(ST_ENOTTY_CLOSED, 1);
		c->ran = false;
		return;
	}
	if (e == EINTR)
		stat_add(ST_EINTR, 1);
	if (e == ENOENT && f && !es_has(&c->ok, e) && vobj_raced(f, c)) {
		/* a destroy of a verbs object it names overlapped the call */
		c->ran = false;
		return;
	}
	if ((e == ENOENT || e == ENODEV) && c->target && f && !es_has(&c->ok, e)) {
		/* a destroy or migrate of the object overlapped the call */
		struct mobj *o = obj_find(f, c->target);

		if ((o && o->dying && o->dying_ns < c->end_ns) ||
		    (!o && hist_gone(f, c->target))) {
			c->ran = false;
			return;
		}
	}
	if (!es_has(&c->ok, e)) {
		es_str(&c->ok, want, sizeof(want));
		fail(t, "%s: got %s, allowed %s", c->desc,
		     e ? errno_name(e) : "success", want);
		if (e == ENOENT || e == ENODEV)
			journal_dump(w, c->fi);
		return;
	}
	if (e && c->ran && c->fault == F_NONE && e != EAGAIN && e != EINTR &&
	    e != ENOENT)
		stat_add(ST_CM_ERRORS, 1);
	if (cfg.verbose && c->cmd != RDMACHAN_CMD_GET_EVENTS &&
	    c->cmd != RDMACHAN_CMD_ACK_EVENTS)
		fprintf(stderr, "w%d.%d.t%d %s -> %s\n", w->index, w->gen, t->idx,
			c->desc, e ? errno_name(e) : "ok");
}

/* ---- events ---- */

static const char *ev_name(u32 type)
{
	static const char *const names[] = {
		"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
		"CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR",
		"UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED",
		"DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR",
		"ADDR_CHANGE", "TIMEWAIT_EXIT",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "UNKNOWN";
}

static bool all_zero(const void *p, size_t len)
{
	const u8 *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static void model_event(struct thr *t, struct mfile *f, int fi,
			const struct rdmachan_cm_event *ev)
{
	struct mobj *o = obj_find(f, ev->id_handle), *n;

	(void)fi;
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		stat_add(ST_CONNECT_REQUESTS, 1);
		n = obj_add(t->w, f, ev->new_id_handle, false);
		if (n) {
			n->state = S_REQ;
			n->role = R_SERVER;
			n->ps = o ? o->ps : RDMA_PS_TCP;
			n->uctx = ev->user_context;
			n->prev_uctx = ev->user_context;
		}
		return;
	case RDMA_CM_EVENT_ESTABLISHED:
		stat_add(ST_ESTABLISHED, 1);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		stat_add(ST_REFUSED, 1);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		stat_add(ST_DISCONNECTED, 1);
		break;
	default:
		break;
	}
	if (!o)
		return;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		o->state = S_ADDR_RESOLVED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		o->state = S_BOUND;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		o->state = S_ROUTE_RESOLVED;
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		o->state = S_ADDR_RESOLVED;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		o->state = S_RESPONDED;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		o->state = S_CONNECTED;
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		o->state = S_FAILED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		o->state = S_DISCONNECTED;
		break;
	default:
		break;
	}
}

/*
 * Does the event name an id migrated into @f by the handle it had in its
 * old file? Reported once per event: a reader on the new file can take
 * the id's events between the move and the id's new handle.
 */
static bool migrated_old_handle(struct thr *t, struct call *c, struct mfile *f,
				const struct rdmachan_cm_event *ev,
				const struct mobj *o)
{
	u32 i, n = f->nmigr < MIGR_RING ? f->nmigr : MIGR_RING;

	for (i = 0; i < n; i++) {
		struct migr *m = &f->migr[i];

		/* in flight: the orphan check settles it once the new handle is known */
		if (!m->seq_end || !m->new_h || m->old_h != ev->id_handle ||
		    m->old_h == m->new_h || m->seq_end < c->start_seq)
			continue;
		if (ev->user_context != m->uctx && ev->user_context != m->prev_uctx &&
		    ev->user_context != m->pending_uctx)
			continue;
		if (o && (ev->user_context == o->uctx ||
			  ev->user_context == o->prev_uctx ||
			  ev->user_context == o->pending_uctx))
			continue;
		fail(t, "%s: event %u %s names id %u by the handle it had in the file it was migrated from (new handle %u)%s",
		     c->desc, ev->event_handle, ev_name(ev->event), ev->id_handle,
		     m->new_h, o ? ", which here is another id" : "");
		return true;
	}
	return false;
}

/* A migrate into @f of an id with this user_context is still running. */
static bool migr_in_flight(struct mfile *f, const struct rdmachan_cm_event *ev)
{
	u32 i, n = f->nmigr < MIGR_RING ? f->nmigr : MIGR_RING;

	for (i = 0; i < n; i++) {
		struct migr *m = &f->migr[i];

		if (!m->seq_end && m->old_h == ev->id_handle &&
		    (ev->user_context == m->uctx || ev->user_context == m->prev_uctx ||
		     ev->user_context == m->pending_uctx))
			return true;
	}
	return false;
}

/*
 * One event returned by GET_EVENTS on file @fi, checked and recorded.
 * @raw is the whole element, @stride bytes.
 */
static void take_event(struct thr *t, struct call *c, int fi, const u8 *raw,
		       u32 stride)
{
	struct mfile *f = &t->w->files[fi];
	struct rdmachan_cm_event ev;
	struct mev *e;
	struct mobj *o;
	u32 v, i;

	/* an old layout's reader (stride RDMACHAN_CM_EVENT_SIZE_V1) sees less */
	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, raw, stride < EV_SIZE ? stride : EV_SIZE);
	stat_add(ST_EVENTS, 1);
	journal(t->w, "t%d   f%d event %u %s status %d id %u new %u uctx %#llx (read #%llu seq %u)",
		t->idx, fi, ev.event_handle, ev_name(ev.event), ev.status,
		ev.id_handle, ev.new_id_handle,
		(unsigned long long)ev.user_context,
		(unsigned long long)t->ncalls, c->start_seq);
	if (stride > EV_SIZE && !all_zero(raw + EV_SIZE, stride - EV_SIZE))
		fail(t, "%s: bytes past the event (stride %u) not cleared",
		     c->desc, stride);
	if (!ev.event_handle || ev.event_handle >= 0x80000000u)
		fail(t, "%s: event handle %u", c->desc, ev.event_handle);
	if (ev.event > RDMA_CM_EVENT_TIMEWAIT_EXIT)
		fail(t, "%s: event type %u", c->desc, ev.event);
	if (ev.__reserved || !all_zero(ev.ah_attr.__reserved,
				       sizeof(ev.ah_attr.__reserved)))
		fail(t, "%s: reserved bytes of an event set", c->desc);
	if (!(ev.valid & RDMACHAN_CM_EVENT_ROUTE) ||
	    ev.valid & ~(RDMACHAN_CM_EVENT_ROUTE | RDMACHAN_CM_EVENT_CONN |
			 RDMACHAN_CM_EVENT_UD))
		fail(t, "%s: event valid bits %#x", c->desc, ev.valid);
	if (!all_zero(ev.private_data + ev.private_data_len,
		      sizeof(ev.private_data) - ev.private_data_len))
		fail(t, "%s: event private data past its length (%u) not zero",
		     c->desc, ev.private_data_len);
	if (ev.route.num_paths > RDMACHAN_CM_MAX_PATHS)
		fail(t, "%s: %u paths", c->desc, ev.route.num_paths);
	for (i = ev.route.num_paths; i < RDMACHAN_CM_MAX_PATHS; i++)
		if (!all_zero(&ev.route.path[i], sizeof(ev.route.path[i])))
			fail(t, "%s: unused path record %u not zero", c->desc, i);
	if ((ev.event == RDMA_CM_EVENT_CONNECT_REQUEST) != !!ev.new_id_handle)
		fail(t, "%s: event %u with new id handle %u", c->desc, ev.event,
		     ev.new_id_handle);
	if (ev_find(f, ev.event_handle) || acked_recently(f, ev.event_handle)) {
		e = ev_find(f, ev.event_handle);
		fail(t, "%s: event handle %u returned twice (%s, %s for id %u)",
		     c->desc, ev.event_handle, e ? "unacked" : "acked",
		     e ? ev_name(e->type) : "-", e ? e->id_handle : 0);
		journal_dump(t->w, fi);
	}
	if (ev.new_id_handle && hist_get(f, ev.new_id_handle))
		fail(t, "%s: connect request's new id %u was already known",
		     c->desc, ev.new_id_handle);

	v = hist_get(f, ev.id_handle);
	if (v && v != HIST_LIVE && (v >> 2) < c->start_seq &&
	    !migrated_old_handle(t, c, f, &ev, NULL))
		fail(t, "%s: event %u %s for id %u that was %s before the read began",
		     c->desc, ev.event_handle, ev_name(ev.event), ev.id_handle,
		     (v & 3) == HIST_MIGRATED ? "migrated away" : "destroyed"),
		journal_dump(t->w, -1);
	o = obj_find(f, ev.id_handle);
	if (o && ev.user_context != o->uctx && ev.user_context != o->prev_uctx &&
	    ev.user_context != o->pending_uctx &&
	    !migrated_old_handle(t, c, f, &ev, o) && !migr_in_flight(f, &ev))
		fail(t, "%s: event %u %s for id %u (%s %s): user_context %#llx, the id's is %#llx",
		     c->desc, ev.event_handle, ev_name(ev.event), ev.id_handle,
		     o->role == R_SERVER ? "passive" : o->role == R_LISTENER ?
		     "listener" : "active", state_names[o->state],
		     (unsigned long long)ev.user_context,
		     (unsigned long long)o->uctx);
	if (!v && f->norphans < MAX_ORPHANS) {
		/* a new id or a migrated one that its thread has not noted yet */
		struct orphan *orph = &f->orphans[f->norphans++];

		orph->id_handle = ev.id_handle;
		orph->type = ev.event;
		orph->uctx = ev.user_context;
		orph->start_seq = c->start_seq;
		orph->ns = now_ns();
		snprintf(orph->desc, DESC_LEN, "%s", c->desc);
	}

	e = NULL;
	for (i = 0; i < MAX_EVS && !e; i++)
		if (f->evs[i].state == E_FREE)
			e = &f->evs[i];
	if (!e) {
		/* cannot happen: readers reserve their slots */
		fail(t, "%s: no room for event in the model", c->desc);
		return;
	}
	e->state = E_UNACKED;
	e->handle = ev.event_handle;
	e->id_handle = ev.id_handle;
	e->type = ev.event;
	e->due_ns = 0;
	if (o && o->dying) {
		/* its destroy waits for this one too: ack it soon */
		e->state = E_DEFERRED;
	}
	if (cfg.verbose)
		fprintf(stderr, "w%d.%d.t%d   event %u %s status %d id %u (%s) new %u\n",
			t->w->index, t->w->gen, t->idx, ev.event_handle,
			ev_name(ev.event), ev.status, ev.id_handle,
			o ? state_names[o->state] : "?", ev.new_id_handle);
	model_event(t, f, fi, &ev);
}

/* Events whose id this file did not know must be explained soon. */
static void check_orphans(struct thr *t)
{
	u64 now = now_ns();
	int fi, i;

	for (fi = 0; fi < MAX_FILES; fi++) {
		struct mfile *f = &t->w->files[fi];

		for (i = 0; i < f->norphans; i++) {
			struct orphan *o = &f->orphans[i];

			if (!hist_get(f, o->id_handle) && now - o->ns < 5 * NSEC)
				continue;
			if (!hist_get(f, o->id_handle)) {
				struct rdmachan_cm_event ev = {
					.id_handle = o->id_handle,
					.event = o->type,
					.user_context = o->uctx,
				};
				struct call c = { .start_seq = o->start_seq };

				memcpy(c.desc, o->desc, DESC_LEN);
				if (!migrated_old_handle(t, &c, f, &ev, NULL))
					fail(t, "event %s for id %u that this file never had (%s)",
					     ev_name(o->type), o->id_handle, o->desc);
			}
			f->orphans[i--] = f->orphans[--f->norphans];
		}
	}
}

/* ---- actions ---- */

static void act_open(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *f = NULL;
	int i, fd, flags = O_RDWR;

	for (i = 0; i < MAX_FILES && !f; i++)
		if (w->files[i].state == FS_CLOSED)
			f = &w->files[i];
	if (!f)
		return;
	if (chance(t, 20))
		flags |= O_NONBLOCK;
	fd = open(DEV_PATH, flags);
	if (fd < 0) {
		fail(t, "open %s: %s", DEV_PATH, strerror(errno));
		return;
	}
	f->state = FS_OPEN;
	f->fds[0] = fd;
	f->nfds = 1;
	f->nonblock = flags & O_NONBLOCK;
	for (i = rnd(t, MAX_DUPS); i > 0; i--) {
		fd = dup(f->fds[0]);
		if (fd >= 0)
			f->fds[f->nfds++] = fd;
	}
	journal(w, "t%d open f%d gen %d fds %d %d %d", t->idx, (int)(f - w->files),
		f->gen, f->fds[0], f->nfds > 1 ? f->fds[1] : -1,
		f->nfds > 2 ? f->fds[2] : -1);
	stat_add(ST_FILES_OPENED, 1);
}

/*
 * Closes a file, maybe while other threads are in calls on it: every fd
 * becomes /dev/null at once (dup2), so the file's release comes with the
 * last call's reference, and the fd numbers stay taken until no thread
 * can use them.
 */
static void act_close(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *f;
	struct call c;
	int fi, i;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &w->files[fi];
	/* destroys waiting on this file's acks now wait forever */
	for (i = 0; i < w->nthr; i++) {
		struct thr *o = &w->thr[i];

		if (o != t && (o->cur_fi == fi || o->cur_src_fi == fi) &&
		    destructive(o->cur_cmd) && o->slot->in_call &&
		    (nevents(f, -1, 0) || async_owed(f))) {
			o->slot->kill_after_ns = rnd(t, 2000) * MSEC;
			o->slot->may_block = 2;
		}
	}
	f->state = FS_CLOSING;
	if (f->pins)
		stat_add(ST_CLOSE_DURING_CALL, 1);
	/* the release may run here: watched like a call */
	snprintf(c.desc, DESC_LEN, "#%llu close of f%d (%d fds, %d calls in it)",
		 (unsigned long long)++t->ncalls, fi, f->nfds, f->pins);
	c.cmd = -1;
	slot_begin(t, &c, 0);
	for (i = 0; i < f->nfds; i++)
		dup2(w->nullfd, f->fds[i]);
	slot_end(t);
	if (!f->pins)
		file_finish_close(f);
}

static void act_nonblock(struct thr *t)
{
	struct mfile *f;
	int fi, fl;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &t->w->files[fi];
	fl = fcntl(f->fds[0], F_GETFL);
	if (fl < 0)
		return;
	f->nonblock = !f->nonblock;
	f->nb_seq++;
	fcntl(f->fds[0], F_SETFL, f->nonblock ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static void act_get_info(struct thr *t)
{
	struct call c;
	int fi = pick_file(t);
	struct mfile *f;

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_GET_INFO, fi, f->gen, pick_fd(t, f));
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback &&
	    (c.a.get_info.out_abi_version != RDMACHAN_ABI_VERSION ||
	     (c.a.get_info.out_features & 3) != 3))
		fail(t, "%s: abi %u features %#llx", c.desc,
		     c.a.get_info.out_abi_version,
		     (unsigned long long)c.a.get_info.out_features);
	unpin(f);
}

static void act_list_devices(struct thr *t)
{
	static const u32 esizes[] = { 80, 88, 96, 128, 200 };
	struct rdmachan_device_entry *ent;
	struct mfile *f;
	struct call c;
	u8 *buf = t->bufmap + 4096;
	int fi = pick_file(t);
	u32 i, n, es;

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_LIST_DEVICES, fi, f->gen, pick_fd(t, f));
	es = esizes[rnd(t, ARRAY_SIZE(esizes))];
	c.a.list_devices.entry_size = es;
	c.a.list_devices.max_entries = rnd(t, 5);
	c.a.list_devices.entries = (uintptr_t)buf;
	memset(buf, POISON, 8 * 200);
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		c.a.list_devices.entry_size = rnd(t, 80);
		c.ok = ES(EINVAL);
	} else if (chance(t, 8) && c.a.list_devices.max_entries) {
		c.fault = F_PTR;
		c.a.list_devices.entries = chance(t, 50) ? 0 :
			(uintptr_t)(t->bufmap + ARENA_LEN);
		c.ok = ES(EFAULT);
	}
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback && c.fault != F_PTR && c.a.list_devices.entries) {
		n = c.a.list_devices.out_num_devices;
		if (n < 1)
			fail(t, "%s: %u devices", c.desc, n);
		if (n > c.a.list_devices.max_entries)
			n = c.a.list_devices.max_entries;
		for (i = 0; i < n; i++) {
			ent = (void *)(buf + i * es);
			if (ent->__reserved || !memchr(ent->name, 0, sizeof(ent->name)) ||
			    !all_zero(ent->name + strlen(ent->name),
				      sizeof(ent->name) - strlen(ent->name)))
				fail(t, "%s: entry %u: reserved or name bytes", c.desc, i);
			if (es > sizeof(*ent) &&
			    (buf[i * es + sizeof(*ent)] != POISON ||
			     buf[i * es + es - 1] != POISON))
				fail(t, "%s: entry %u: wrote past the known entry",
				     c.desc, i);
		}
		if (buf[n * es] != POISON)
			fail(t, "%s: wrote past max_entries", c.desc);
	}
	unpin(f);
}

void act_open_device(struct thr *t)
{
	struct mfile *f;
	struct call c;
	struct mobj *o;
	int fi = pick_file(t);

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	if (f->nctx >= MAX_CTXS)
		return;
	call_init(&c, RDMACHAN_CMD_OPEN_DEVICE, fi, f->gen, pick_fd(t, f));
	c.a.open_device.device_index = cfg.dev_index;
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		c.a.open_device.device_index = 1000 + rnd(t, 0x7fffffff);
		c.ok = ES(ENODEV);
	}
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback) {
		u32 h = c.a.open_device.out_handle;

		if (!h || hist_get(f, h))
			fail(t, "%s: new handle %u is not fresh", c.desc, h);
		o = obj_add(t->w, f, h, true);
		(void)o;
	}
	unpin(f);
}

static void act_query(struct thr *t)
{
	static const int q[] = { RDMACHAN_CMD_QUERY_DEVICE,
				 RDMACHAN_CMD_QUERY_PORT,
				 RDMACHAN_CMD_QUERY_GID };
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi = pick_file(t), cmd = q[rnd(t, 3)];

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	o = pick_obj(t, f, true, 0, true);
	if (!o)
		return;
	call_init(&c, cmd, fi, f->gen, pick_fd(t, f));
	c.a.query_port.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	if (cmd == RDMACHAN_CMD_QUERY_PORT) {
		c.a.query_port.port_num = 1;
		if (chance(t, 10)) {
			c.fault = F_VALUE;
			c.a.query_port.port_num = chance(t, 50) ? 0 : 2 + rnd64(t) % 0xfffffff0u;
			c.ok = ES(EINVAL);
		}
	} else if (cmd == RDMACHAN_CMD_QUERY_GID) {
		c.a.query_gid.port_num = 1;
		c.a.query_gid.index = rnd(t, 4);
		es_add(&c.ok, ENODATA);
		if (chance(t, 10)) {
			c.fault = F_VALUE;
			c.a.query_gid.index = chance(t, 50) ?
				cfg.gid_tbl_len + rnd(t, 1000) :
				0x80000000u + rnd(t, 1000);
			c.ok = ES(EINVAL);
		}
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback && cmd == RDMACHAN_CMD_QUERY_DEVICE &&
	    (c.a.query_device.out_phys_port_cnt != 1 ||
	     !memchr(c.a.query_device.out_fw_str, 0,
		     sizeof(c.a.query_device.out_fw_str))))
		fail(t, "%s: ports %u or fw_str not terminated", c.desc,
		     c.a.query_device.out_phys_port_cnt);
	unpin(f);
}

static u16 listener_port(struct thr *t, u32 ps);

static void act_create_id(struct thr *t, int role)
{
	static const u32 ps[] = { RDMA_PS_TCP, RDMA_PS_TCP, RDMA_PS_TCP,
				  RDMA_PS_UDP, RDMA_PS_UDP, RDMA_PS_IPOIB,
				  RDMA_PS_IB };
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi = pick_file(t);
	u32 p;

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	if (f->nids >= MAX_IDS)
		return;
	call_init(&c, RDMACHAN_CMD_CREATE_ID, fi, f->gen, pick_fd(t, f));
	p = ps[rnd(t, ARRAY_SIZE(ps))];
	if (role < 0)
		role = !listener_port(t, p) && chance(t, 60) ? R_LISTENER :
		       chance(t, 25) ? R_LISTENER : R_CLIENT;
	c.a.create_id.port_space = p;
	c.a.create_id.qp_type = p == RDMA_PS_TCP ? IBV_QPT_RC :
				p == RDMA_PS_IB && chance(t, 50) ? IBV_QPT_RC :
				IBV_QPT_UD;
	c.a.create_id.user_context = rnd64(t);
	c.ok = ES(0, ENOMEM);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		if (chance(t, 50)) {
			c.a.create_id.qp_type = p == RDMA_PS_TCP ? IBV_QPT_UD :
						p == RDMA_PS_IB ? 7 : IBV_QPT_RC;
		} else {
			c.a.create_id.port_space = 0x4242 + rnd(t, 100);
		}
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback) {
		u32 h = c.a.create_id.out_handle;

		if (!h || hist_get(f, h))
			fail(t, "%s: new handle %u is not fresh", c.desc, h);
		o = obj_add(t->w, f, h, false);
		journal(t->w, "t%d create f%d h %u uctx %#llx", t->idx, fi, h,
			(unsigned long long)c.a.create_id.user_context);
		if (o) {
			o->state = S_NEW;
			o->role = role;
			o->ps = p;
			o->uctx = o->prev_uctx = c.a.create_id.user_context;
		}
	}
	unpin(f);
}

static void set_in(struct __kernel_sockaddr_storage *ss, struct in_addr a,
		   u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = port;
	sin->sin_addr = a;
}

/* An address to bind to or resolve; mostly the test address. */
static void some_addr(struct thr *t, struct __kernel_sockaddr_storage *ss,
		      u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct in_addr a = cfg.addr;
	u32 r = cfg.only_test_addr ? 0 : rnd(t, 100);

	if (r < 82) {
		set_in(ss, a, port);
	} else if (r < 87) {
		a.s_addr = htonl(INADDR_LOOPBACK);
		set_in(ss, a, port);
	} else if (r < 91) {
		/* nobody there: the dummy netdev swallows it */
		a.s_addr = htonl((ntohl(cfg.addr.s_addr) & ~0xffu) | (100 + rnd(t, 100)));
		set_in(ss, a, port);
	} else if (r < 95) {
		memset(ss, 0, sizeof(*ss));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		sin6->sin6_addr = in6addr_loopback;
	} else {
		/* AF_IB, sockaddr_ib: family, pkey, flowinfo, gid, sid... */
		memset(ss, 0, sizeof(*ss));
		ss->ss_family = AF_IB;
		((u8 *)ss)[2] = 0xff;
		((u8 *)ss)[3] = 0xff;
		((u8 *)ss)[8] = 0xfe;
		((u8 *)ss)[9] = 0x80;
		((u8 *)ss)[23] = rnd(t, 256);
	}
}

static struct mobj *pick_id(struct thr *t, int *fip, u32 states)
{
	int fi;

	if (t->force) {
		struct mobj *o = t->force;

		t->force = NULL;
		*fip = t->force_fi;
		return o;
	}
	fi = pick_file(t);

	*fip = fi;
	if (fi < 0)
		return NULL;
	return pick_obj(t, &t->w->files[fi], false, states, false);
}

#define ST(s)	(1u << (s))

static void act_bind(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, chance(t, 85) ? ST(S_NEW) : 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_BIND_ADDR, fi, f->gen, pick_fd(t, f));
	c.a.bind_addr.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	if (o->role == R_LISTENER || chance(t, 85))
		set_in(&c.a.bind_addr.addr, cfg.addr, 0);
	else if (chance(t, 30) && !cfg.only_test_addr)
		set_in(&c.a.bind_addr.addr, (struct in_addr){ 0 }, 0);
	else
		some_addr(t, &c.a.bind_addr.addr, htons(20000 + rnd(t, 20000)));
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 6)) {
		c.fault = F_VALUE;
		c.a.bind_addr.addr.ss_family = chance(t, 50) ? 0 : AF_UNIX;
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    (!c.ret || (c.fault == F_ARG_READONLY && c.err == EFAULT))) {
		struct sockaddr_in *sin =
			(struct sockaddr_in *)&c.a.bind_addr.out_route.src_addr;

		if (o->used && o->handle == field32(&c, 8) && o->state == S_NEW)
			o->state = S_BOUND;
		if (!c.ret && c.readback && o->used && sin->sin_family == AF_INET &&
		    sin->sin_addr.s_addr == cfg.addr.s_addr) {
			o->port = sin->sin_port;
			o->has_port = true;
			if (!sin->sin_port)
				fail(t, "%s: bound to port 0", c.desc);
			if (c.a.bind_addr.out_route.device_index != cfg.dev_index)
				fail(t, "%s: bound to device %u, not %u", c.desc,
				     c.a.bind_addr.out_route.device_index,
				     cfg.dev_index);
		}
	}
	unpin(f);
}

/* A listener of the worker's with port space @ps: its port, or 0. */
static u16 listener_port(struct thr *t, u32 ps)
{
	u16 ports[MAX_FILES * MAX_OBJS];
	int fi, i, n = 0;

	for (fi = 0; fi < MAX_FILES; fi++) {
		struct mfile *f = &t->w->files[fi];

		if (f->state == FS_CLOSED)
			continue;
		for (i = 0; i < MAX_OBJS; i++) {
			struct mobj *o = &f->objs[i];

			if (o->used && !o->ctx && o->state == S_LISTEN &&
			    o->has_port && o->ps == ps)
				ports[n++] = o->port;
		}
	}
	return n ? ports[rnd(t, n)] : 0;
}

static void act_resolve_addr(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	u16 port;
	int fi;

	o = pick_id(t, &fi, chance(t, 85) ? ST(S_NEW) | ST(S_BOUND) : 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_RESOLVE_ADDR, fi, f->gen, pick_fd(t, f));
	c.a.resolve_addr.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.resolve_addr.timeout_ms = chance(t, 5) ? rnd(t, 10) : 300 + rnd(t, 3000);
	port = listener_port(t, o->ps);
	if (port && (o->role == R_CLIENT || chance(t, 85)))
		set_in(&c.a.resolve_addr.dst_addr, cfg.addr, port);
	else
		some_addr(t, &c.a.resolve_addr.dst_addr,
			  htons(20000 + rnd(t, 20000)));
	if (chance(t, 10))
		set_in(&c.a.resolve_addr.src_addr, cfg.addr, 0);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 6)) {
		c.fault = F_VALUE;
		if (chance(t, 50))
			c.a.resolve_addr.dst_addr.ss_family = 0;
		else
			c.a.resolve_addr.src_addr.ss_family = AF_UNIX;
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.resolve_addr.handle)
		o->state = S_ADDR_QUERY;
	unpin(f);
}

/*
 * Would the call make the CM send a REJ while the id's own REQ or REP is
 * still outstanding? 6.1's ib_cm does not cancel that MAD, and destroying
 * or closing the id then waits, uninterruptibly, until the MAD's retries
 * run out (70 to 100 s). Left out unless -k.
 */
static bool risky(struct mobj *o, int cmd)
{
	if (cfg.known_slow)
		return false;
	if (o->cm_busy)
		return true;
	switch (cmd) {
	case RDMACHAN_CMD_ACCEPT:
	case RDMACHAN_CMD_REJECT:
	case RDMACHAN_CMD_ESTABLISH:
		/*
		 * The CM would reject with its own REQ or REP still out; the
		 * module refuses such an answer (EINVAL), which is under test.
		 */
		return false;
	case RDMACHAN_CMD_NOTIFY:
		/*
		 * COMM_EST on an accepted request establishes the CM id before
		 * the REP is cancelled; a DREQ then takes the REP's place.
		 */
		return o->role == R_SERVER && o->accepted &&
		       o->state != S_CONNECTED && o->state != S_DISCONNECTED &&
		       o->state != S_FAILED;
	default:
		return false;
	}
}

/* Marks @o busy with a CM call; returns its handle to find it again. */
static u32 cm_begin(struct mobj *o, int cmd)
{
	o->cm_busy = true;
	if (cmd == RDMACHAN_CMD_ACCEPT && o->role == R_SERVER)
		o->accepted = true;
	return o->handle;
}

static void cm_end(struct mfile *f, u32 h)
{
	struct mobj *o = obj_find(f, h);

	if (o)
		o->cm_busy = false;
}

/* The id commands that take one value: route, listen, disconnect, ... */
static void act_id_cmd(struct thr *t, int cmd)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	u32 states = 0, busy;
	int fi, next = -1;

	switch (cmd) {
	case RDMACHAN_CMD_RESOLVE_ROUTE:
		states = ST(S_ADDR_RESOLVED);
		next = S_ROUTE_QUERY;
		break;
	case RDMACHAN_CMD_LISTEN:
		states = ST(S_BOUND);
		next = S_LISTEN;
		break;
	case RDMACHAN_CMD_DISCONNECT:
		states = ST(S_CONNECTED) | ST(S_ACCEPTED) | ST(S_RESPONDED) |
			 ST(S_CONNECTING) | ST(S_DISCONNECTED);
		break;
	case RDMACHAN_CMD_ESTABLISH:
		states = ST(S_RESPONDED);
		next = S_CONNECTED;
		break;
	default:
		states = ST(S_CONNECTED);
		break;
	}
	o = pick_id(t, &fi, chance(t, 85) ? states : 0);
	if (!o || ((cmd == RDMACHAN_CMD_ESTABLISH || cmd == RDMACHAN_CMD_NOTIFY) &&
		   risky(o, cmd)))
		return;
	f = &t->w->files[fi];
	call_init(&c, cmd, fi, f->gen, pick_fd(t, f));
	c.a.id_cmd.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.ok = cm_errs(cmd);
	es_add(&c.ok, 0);
	switch (cmd) {
	case RDMACHAN_CMD_RESOLVE_ROUTE:
		c.a.id_cmd.value = 300 + rnd(t, 3000);
		if (chance(t, 8)) {
			c.fault = F_VALUE;
			c.a.id_cmd.value = -1 - (int)rnd(t, 0x7fffffff);
			c.ok = ES(EINVAL);
		}
		break;
	case RDMACHAN_CMD_LISTEN:
		c.a.id_cmd.value = chance(t, 20) ? -(int)rnd(t, 3) :
				   chance(t, 5) ? 2000 + (int)rnd(t, 1000) :
				   1 + (int)rnd(t, 16);
		break;
	case RDMACHAN_CMD_NOTIFY:
		/* the only event the module passes on (PATH_MIG leaks in the CM) */
		c.a.id_cmd.value = IBV_EVENT_COMM_EST;
		if (chance(t, 15)) {
			c.fault = F_VALUE;
			c.a.id_cmd.value = chance(t, 30) ? 19 + (int)rnd(t, 1000) :
					   chance(t, 30) ? -1 - (int)rnd(t, 1000) :
					   chance(t, 50) ? IBV_EVENT_PATH_MIG :
					   (int)rnd(t, IBV_EVENT_COMM_EST);
			c.ok = ES(EINVAL);
		}
		break;
	default:
		if (chance(t, 8)) {
			c.fault = F_VALUE;
			c.a.id_cmd.value = 1 + rnd(t, 1000);
			c.ok = ES(EINVAL);
		}
		break;
	}
	pin(f);
	inject(t, &c, f);
	busy = (cmd == RDMACHAN_CMD_ESTABLISH || cmd == RDMACHAN_CMD_NOTIFY) &&
	       benign(&c) ? cm_begin(o, cmd) : 0;
	do_call(t, &c, 0, 0);
	if (busy)
		cm_end(f, busy);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.id_cmd.handle && next >= 0)
		o->state = next;
	unpin(f);
}

static void conn_param(struct thr *t, struct rdmachan_conn_param *p,
		       bool random_len)
{
	u32 len = random_len && chance(t, 5) ? rnd(t, 256) :
		  chance(t, 60) ? rnd(t, 57) : 0;
	u32 i;

	/* the CM refuses a QPN pair it still remembers: keep them apart */
	p->qp_num = ((getpid() & 0x3ff) << 14 | (++t->w->qpn & 0x3fff)) & 0xffffff;
	if (!p->qp_num)
		p->qp_num = 1;
	p->responder_resources = rnd(t, 3);
	p->initiator_depth = rnd(t, 3);
	p->flow_control = rnd(t, 2);
	p->retry_count = rnd(t, 8);
	p->rnr_retry_count = rnd(t, 8);
	p->private_data_len = len;
	for (i = 0; i < len; i++)
		p->private_data[i] = rnd(t, 256);
}

static void act_connect(struct thr *t, int cmd)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	u32 busy;
	int fi;

	o = pick_id(t, &fi, chance(t, 85) ?
		    (cmd == RDMACHAN_CMD_CONNECT ? ST(S_ROUTE_RESOLVED) : ST(S_REQ)) : 0);
	if (!o || risky(o, cmd))
		return;
	f = &t->w->files[fi];
	call_init(&c, cmd, fi, f->gen, pick_fd(t, f));
	c.a.connect.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	conn_param(t, &c.a.connect.conn, true);
	if (cmd == RDMACHAN_CMD_ACCEPT) {
		c.a.connect.user_context = rnd64(t);
		/* events read while the accept runs may carry it already */
		o->pending_uctx = c.a.connect.user_context;
	}
	c.ok = cm_errs(cmd);
	es_add(&c.ok, 0);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		if (cmd == RDMACHAN_CMD_CONNECT && chance(t, 50))
			c.a.connect.user_context = 1 + rnd64(t) % 0xffffffff;
		else
			c.a.connect.conn.__reserved = 1 + rnd(t, 255);
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	busy = benign(&c) ? cm_begin(o, cmd) : 0;
	do_call(t, &c, 0, 0);
	if (busy)
		cm_end(f, busy);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.connect.handle) {
		if (cmd == RDMACHAN_CMD_CONNECT) {
			o->state = S_CONNECTING;
		} else {
			o->state = o->ps == RDMA_PS_TCP ? S_ACCEPTED : S_CONNECTED;
			o->prev_uctx = o->uctx;
			o->uctx = c.a.connect.user_context;
		}
	} else if (cmd == RDMACHAN_CMD_ACCEPT && c.ret && c.ran && o->used &&
		   o->handle == c.a.connect.handle && c.fault == F_NONE &&
		   o->state == S_REQ) {
		/* a failed accept rejects the request in the CM */
		o->state = S_FAILED;
	}
	unpin(f);
}

static void act_reject(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;
	u32 i, busy;

	o = pick_id(t, &fi, chance(t, 85) ? ST(S_REQ) | ST(S_RESPONDED) : 0);
	if (!o || risky(o, RDMACHAN_CMD_REJECT))
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_REJECT, fi, f->gen, pick_fd(t, f));
	c.a.reject.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.reject.reason = chance(t, 60) ? 0 : chance(t, 50) ? 28 : 35;
	c.a.reject.private_data_len = chance(t, 50) ? rnd(t, 149) : 0;
	for (i = 0; i < c.a.reject.private_data_len; i++)
		c.a.reject.private_data[i] = rnd(t, 256);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		if (chance(t, 50))
			c.a.reject.reason = 36 + rnd(t, 1000);
		else
			c.a.reject.private_data_len = 256 + rnd(t, 100000);
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	busy = benign(&c) ? cm_begin(o, RDMACHAN_CMD_REJECT) : 0;
	do_call(t, &c, 0, 0);
	if (busy)
		cm_end(f, busy);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.reject.handle)
		o->state = S_FAILED;
	unpin(f);
}

static void act_set_option(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_SET_OPTION, fi, f->gen, pick_fd(t, f));
	c.a.set_option.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.set_option.optname = rnd(t, 4);
	c.a.set_option.value = c.a.set_option.optname == 1 ||
			       c.a.set_option.optname == 2 ? rnd(t, 3) : rnd(t, 256);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	/* an ACK timeout has 5 bits: refused before the id is looked up */
	if (c.a.set_option.optname == 3 && c.a.set_option.value > 31) {
		c.fault = F_VALUE;
		c.ok = ES(EINVAL);
	}
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		switch (rnd(t, 3)) {
		case 0:
			c.a.set_option.level = 1 + rnd(t, 1000);
			c.ok = ES(ENOPROTOOPT);
			break;
		case 1:
			c.a.set_option.optname = 4 + rnd(t, 1000);
			c.ok = ES(ENOPROTOOPT);
			break;
		default:
			c.a.set_option.optname = chance(t, 50) ? 0 : 3;
			c.a.set_option.value = 256 + rnd64(t) % 0xffffffffff;
			c.ok = ES(EINVAL);
			break;
		}
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unpin(f);
}

/* Bypass mode's binding of a uverbs QP: with fds and numbers at random. */
static void act_bind_user_qp(struct thr *t)
{
	struct rdmachan_bind_user_qp *a;
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_BIND_USER_QP, fi, f->gen, pick_fd(t, f));
	a = &c.a.bind_user_qp;
	a->handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	if (chance(t, 20)) {
		a->flags = RDMACHAN_BIND_USER_QP_UNBIND;
	} else {
		a->uverbs_fd = chance(t, 50) ? pick_fd(t, f) : (int)rnd(t, 64) - 1;
		a->qp_num = rnd(t, 1 << 24);
	}
	c.ok = cm_errs(c.cmd);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unpin(f);
}

/*
 * Introspection of a file's CM events, of one id or all: it changes
 * nothing, so only its errors and its counts are checked.
 */
static void act_query_events(struct thr *t)
{
	const u32 ssize = sizeof(struct rdmachan_event_state);
	struct rdmachan_query_events *a;
	struct mfile *f;
	struct mobj *o = NULL;
	struct call c;
	u32 max;
	int fi;

	if (chance(t, 50))
		o = pick_id(t, &fi, 0);
	if (!o)
		fi = pick_file(t);
	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_QUERY_EVENTS, fi, f->gen, pick_fd(t, f));
	a = &c.a.query_events;
	a->id_handle = o ? o->handle : chance(t, 50) ? 0 : rnd(t, 64);
	max = chance(t, 95) ? rnd(t, 9) : RDMACHAN_MAX_EVENT_STATES + rnd(t, 4);
	a->max_states = max;
	a->state_size = chance(t, 90) ? ssize : rnd(t, 2 * ssize);
	/* right-aligned: writing past max_states runs into the guard page */
	if (max <= RDMACHAN_MAX_EVENT_STATES && a->state_size &&
	    (u64)max * a->state_size <= ARENA_LEN)
		a->states = (uintptr_t)(t->bufmap + ARENA_LEN -
					max * a->state_size);
	if (chance(t, 5))
		a->states = chance(t, 50) ? 8 : (uintptr_t)t->ro_view;
	c.handle_unsure = true;
	c.ok = ES(0, ENOENT, EINVAL, EFAULT);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback && c.a.query_events.out_num_states > max)
		fail(t, "%s: %u states for at most %u", c.desc,
		     c.a.query_events.out_num_states, max);
	unpin(f);
}

static void act_init_qp_attr(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_INIT_QP_ATTR, fi, f->gen, pick_fd(t, f));
	c.a.init_qp_attr.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.init_qp_attr.qp_state = rnd(t, 7);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		c.a.init_qp_attr.qp_state = 7 + rnd(t, 1000);
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unpin(f);
}

/*
 * Claims up to @max unacked events of @f (of id @id_handle if non-zero)
 * into @handles; returns how many.
 */
static u32 claim_events(struct thr *t, struct mfile *f, u32 *handles, u32 max,
			u32 id_handle, bool due_only)
{
	u64 now = now_ns();
	u32 n = 0;
	int i, start = rnd(t, MAX_EVS);

	for (i = 0; i < MAX_EVS && n < max; i++) {
		struct mev *e = &f->evs[(start + i) % MAX_EVS];

		if (e->state != E_UNACKED && e->state != E_DEFERRED)
			continue;
		if (id_handle && e->id_handle != id_handle)
			continue;
		if (due_only && (e->state != E_DEFERRED || e->due_ns > now))
			continue;
		e->state = E_CLAIMED;
		handles[n++] = e->handle;
	}
	return n;
}

static void release_claims(struct mfile *f, const u32 *handles, u32 n,
			   bool acked)
{
	struct mev *e;
	u32 i;

	for (i = 0; i < n; i++) {
		e = ev_find(f, handles[i]);
		if (!e || e->state != E_CLAIMED)
			continue;
		if (acked)
			ev_acked(f, e);
		else
			e->state = E_UNACKED;
	}
}

/*
 * Spoils an ack batch so that the module must refuse all of it with
 * ENOENT: a handle never delivered, acked before, duplicated, or zero.
 * Returns false when it cannot be made certain.
 */
static bool spoil_acks(struct thr *t, struct mfile *f, u32 *acks, u32 *n,
		       u32 room)
{
	u32 h, pos;

	if (*n >= room)
		return false;
	switch (rnd(t, 4)) {
	case 0:
		h = 0;
		break;
	case 1:
		h = 0x80000000u | (u32)rnd64(t);
		break;
	case 2:
		if (!f->nacked)
			return false;
		h = f->acked[rnd(t, f->nacked < ACKED_RING ? f->nacked : ACKED_RING)];
		break;
	default:
		if (!*n)
			return false;
		h = acks[rnd(t, *n)];
		break;
	}
	pos = rnd(t, *n + 1);
	acks[*n] = acks[pos];
	acks[pos] = h;
	(*n)++;
	return true;
}

/*
 * An event written out just past the last one counted is one the module
 * dropped because its id was destroyed meanwhile (the uAPI allows it):
 * that id must be dying or gone.
 */
static bool dropped_event(struct mfile *f, const u8 *raw)
{
	struct rdmachan_cm_event ev;
	struct mobj *o;

	memcpy(&ev, raw, RDMACHAN_CM_EVENT_SIZE_V1);
	o = obj_find(f, ev.id_handle);
	if (!((o && o->dying) || (!o && hist_gone(f, ev.id_handle))))
		return false;
	stat_add(ST_EVENT_DROPPED_IN_SLOT, 1);
	return true;
}

/* Reads events, maybe with acks riding along; mostly the way the library does. */
static void act_get_events(struct thr *t, bool deferred_only)
{
	struct worker *w = t->w;
	u32 *acks = (u32 *)t->bufmap;
	u8 *evbase = t->bufmap + 4096;
	struct mfile *f;
	struct call c;
	u32 nacks = 0, real_acks, stride, room, maxev, i, n;
	int fi, mode, fault_ptr = 0;
	u32 nb_seq;
	bool nonblock;
	u64 timer = 0;
	u8 *evbuf;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &w->files[fi];
	/* 0: non-blocking, 1: poll first, 2: blocking under a timer, 3: acks only */
	mode = deferred_only ? 3 : rnd(t, 10) < 4 ? 0 : rnd(t, 10) < 6 ? 1 :
	       rnd(t, 10) < 8 ? 2 : 3;
	if (mode == 2 && !t->have_timer)
		mode = 1;
	stride = chance(t, 75) ? EV_SIZE : chance(t, 20) ?
		 RDMACHAN_CM_EVENT_SIZE_V1 : EV_SIZE + 8 * (1 + rnd(t, 64));
	room = (ARENA_LEN - 4096) / stride;
	maxev = mode == 3 ? 0 : 1 + rnd(t, 8);
	if ((int)maxev > free_ev_slots(f))
		maxev = free_ev_slots(f) > 0 ? free_ev_slots(f) : 0;
	if (!maxev && mode != 3)
		mode = 3;
	if (chance(t, 50) || mode == 3)
		nacks = claim_events(t, f, acks, 1 + rnd(t, 8), 0, deferred_only);
	if (deferred_only && !nacks)
		return;
	real_acks = nacks;

	call_init(&c, RDMACHAN_CMD_GET_EVENTS, fi, f->gen, pick_fd(t, f));
	/* right-aligned, an overlong batch runs into the guard page */
	evbuf = chance(t, 50) ? evbase : t->bufmap + ARENA_LEN - room * stride;
	c.a.get_events.events = maxev ? (uintptr_t)evbuf : 0;
	c.a.get_events.event_size = maxev || chance(t, 50) ? stride : 0;
	c.a.get_events.max_events = maxev;
	c.a.get_events.acks = (uintptr_t)acks;
	c.a.get_events.num_acks = nacks;
	nonblock = f->nonblock;
	nb_seq = f->nb_seq;
	if (mode != 2)
		c.a.get_events.flags = RDMACHAN_GET_EVENTS_NONBLOCK;
	else
		c.blocking = true;

	/* EAGAIN on a blocking read is checked below, knowing O_NONBLOCK */
	c.ok = mode == 2 ? ES(0, EINTR, EAGAIN) : ES(0, EAGAIN);
	if (!maxev)
		c.ok = ES(0);
	if (!deferred_only && chance(t, 15)) {
		c.fault = F_VALUE;
		switch (rnd(t, 3)) {
		case 0:
			if (!maxev)
				c.a.get_events.max_events = maxev = 1;
			c.a.get_events.event_size = rnd(t, RDMACHAN_CM_EVENT_SIZE_V1);
			c.ok = ES(EINVAL);
			break;
		case 1:
			c.a.get_events.num_acks = RDMACHAN_MAX_ACKS + 1 + rnd(t, 100000);
			c.ok = ES(EINVAL);
			break;
		default:
			/* a batch the module must refuse as a whole */
			if (!spoil_acks(t, f, acks, &nacks, 256)) {
				c.fault = F_NONE;
				break;
			}
			c.a.get_events.num_acks = nacks;
			c.fault = F_ACK_BAD;
			c.ok = ES(ENOENT);
			break;
		}
	} else if (!deferred_only && chance(t, 8)) {
		c.fault = F_PTR;
		if (nacks && chance(t, 50)) {
			c.a.get_events.acks = chance(t, 50) ? 0 :
				(uintptr_t)(t->bufmap + ARENA_LEN - 4 * rnd(t, nacks));
			c.ok = ES(EFAULT);
			fault_ptr = 1;
		} else {
			if (!maxev)
				c.a.get_events.max_events = maxev = 1;
			c.a.get_events.event_size = stride;
			c.a.get_events.flags = RDMACHAN_GET_EVENTS_NONBLOCK;
			c.blocking = false;
			c.a.get_events.events = chance(t, 30) ? 0 : chance(t, 50) ?
				(uintptr_t)(t->bufmap + ARENA_LEN + rnd(t, 4096)) :
				(uintptr_t)(t->bufmap + ARENA_LEN - 8 * (1 + rnd(t, stride / 8 - 1)));
			c.ok = ES(EFAULT, EAGAIN);
			fault_ptr = 2;
		}
	}
	if (c.fault == F_NONE && maxev && evbuf != evbase && chance(t, 30) &&
	    (int)room < free_ev_slots(f)) {
		/* asking for more than fits: the guard page stops the copy */
		c.a.get_events.max_events = maxev = room + 1 + rnd(t, 4);
		if ((int)maxev > free_ev_slots(f))
			c.a.get_events.max_events = maxev = free_ev_slots(f);
	}
	if (c.fault == F_NONE)
		inject(t, &c, NULL);
	if (c.fault != F_NONE && c.fault != F_ACK_BAD && c.fault != F_PTR &&
	    c.fault != F_VALUE && c.fault != F_SIZE_LONG_ZERO &&
	    c.fault != F_ARG_READONLY) {
		/* the struct never gets read: no wait either */
		c.blocking = false;
	}
	if (c.a.get_events.events && maxev)
		memset(c.a.get_events.events == (uintptr_t)evbuf ? evbuf : evbase,
		       POISON, (size_t)room * stride);
	f->ev_reserved += maxev;
	f->readers++;
	f->reader_epoch++;
	pin(f);
	if (c.blocking)
		timer = (20 + rnd(t, 400)) * MSEC;
	if (mode == 1) {
		struct pollfd pfd = { .fd = c.fd, .events = POLLIN };

		unlock(w);
		poll(&pfd, 1, rnd(t, 100));
		lock(w);
	}
	do_call(t, &c, 0, timer);
	f->readers--;
	f->ev_reserved -= maxev;
	if (c.blocking && !nonblock && nb_seq == f->nb_seq && c.ret &&
	    c.err == EAGAIN && !c.closing)
		fail(t, "%s: a blocking read returned EAGAIN", c.desc);

	/*
	 * Were the acks taken? All or none, and before any wait; a call
	 * that failed after it took them clears num_acks to say so. One
	 * whose struct is read-only fails before (writing out_num_events).
	 */
	if (c.ret && (!c.ran || c.closing || !c.readback ||
		      c.a.get_events.num_acks)) {
		release_claims(f, acks, real_acks, false);
		stat_add(ST_ACKS_REFUSED, 1);
	} else {
		release_claims(f, acks, real_acks, true);
	}

	/* The events: from out_num_events, or from the poison if the reply was lost. */
	n = 0;
	if (!c.ret && c.readback) {
		n = c.a.get_events.out_num_events;
	} else if (c.ran && !c.closing && c.fault == F_ARG_READONLY &&
		   c.err == EFAULT && maxev) {
		while (n < maxev && n < room &&
		       memcmp(evbuf + (size_t)n * stride + 8, "\xa5\xa5\xa5\xa5", 4))
			n++;
	}
	if (n > maxev || (n && fault_ptr == 2))
		fail(t, "%s: %u events for max_events %u", c.desc, n, maxev);
	if (c.ret && c.err == EAGAIN)
		stat_add(ST_EAGAIN, 1);
	if (n > room) {
		fail(t, "%s: %u events, only %u fit before the guard page",
		     c.desc, n, room);
		n = room;
	}
	for (i = 0; i < n && fault_ptr != 2; i++)
		take_event(t, &c, fi, evbuf + (size_t)i * stride, stride);
	if (!c.ret && c.readback && fault_ptr != 2)
		for (i = n; i < room && i < maxev; i++)
			if (memcmp(evbuf + (size_t)i * stride + 8,
				   "\xa5\xa5\xa5\xa5", 4) &&
			    !(i == n && dropped_event(f, evbuf + (size_t)i * stride)))
				fail(t, "%s: event slot %u written (id %u), out_num_events %u",
				     c.desc, i,
				     *(u32 *)(evbuf + (size_t)i * stride +
					      offsetof(struct rdmachan_cm_event, id_handle)),
				     n);
	unpin(f);
}

/* ACK_EVENTS: right, wrong, twice. */
static void act_ack(struct thr *t, bool deferred_only)
{
	struct worker *w = t->w;
	u32 *acks = (u32 *)t->bufmap;
	struct mfile *f;
	struct call c;
	u32 n, real;
	int fi;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &w->files[fi];
	n = claim_events(t, f, acks, chance(t, 70) ? 1 : 1 + rnd(t, 16), 0,
			 deferred_only);
	if (deferred_only && !n)
		return;
	real = n;
	call_init(&c, RDMACHAN_CMD_ACK_EVENTS, fi, f->gen, pick_fd(t, f));
	c.a.get_events.acks = (uintptr_t)acks;
	c.a.get_events.num_acks = n;
	if (!deferred_only && chance(t, 25)) {
		c.fault = F_VALUE;
		switch (rnd(t, 4)) {
		case 0:
			if (!spoil_acks(t, f, acks, &n, 256)) {
				c.fault = F_NONE;
				break;
			}
			c.fault = F_ACK_BAD;
			c.a.get_events.num_acks = n;
			c.ok = ES(ENOENT);
			break;
		case 1:
			c.a.get_events.num_acks = RDMACHAN_MAX_ACKS + 1 + rnd(t, 1000);
			c.ok = ES(EINVAL);
			break;
		case 2:
			if (chance(t, 50))
				c.a.get_events.max_events = 1 + rnd(t, 8);
			else if (chance(t, 50))
				c.a.get_events.event_size = EV_SIZE;
			else
				c.a.get_events.out_num_events = 1 + rnd(t, 8);
			c.ok = ES(EINVAL);
			break;
		default:
			if (!n) {
				c.fault = F_NONE;
				break;
			}
			c.fault = F_PTR;
			c.a.get_events.acks = chance(t, 50) ? 0 :
				(uintptr_t)(t->bufmap + ARENA_LEN - 4 * rnd(t, n));
			c.ok = ES(EFAULT);
			break;
		}
	}
	if (c.fault == F_NONE)
		inject(t, &c, NULL);
	pin(f);
	do_call(t, &c, 0, 0);
	release_claims(f, acks, real, !c.ret && c.ran && !c.closing);
	if (c.ret)
		stat_add(ST_ACKS_REFUSED, 1);
	/* twice: the same handles again must be refused */
	if (!c.ret && c.ran && !c.closing && real && chance(t, 20)) {
		call_init(&c, RDMACHAN_CMD_ACK_EVENTS, fi, f->gen, pick_fd(t, f));
		c.a.get_events.acks = (uintptr_t)acks;
		c.a.get_events.num_acks = real;
		c.fault = F_ACK_BAD;
		c.ok = ES(ENOENT);
		do_call(t, &c, 0, 0);
	}
	unpin(f);
}

/*
 * What to do about the unacked events of an id about to be destroyed or
 * migrated: ack them first, leave them to another thread, or never.
 * Returns the watchdog's may_block value.
 */
static int settle_acks(struct thr *t, struct mfile *f, u32 h)
{
	struct worker *w = t->w;
	u32 *acks = (u32 *)(t->bufmap + 2048);
	struct call c;
	u32 n, i;
	int r;

	if (!nevents(f, E_UNACKED, h) && !nevents(f, E_DEFERRED, h))
		return nevents(f, -1, h) ? 1 : 0;
	r = rnd(t, 100);
	if (r < 60) {
		n = claim_events(t, f, acks, 256, h, false);
		call_init(&c, RDMACHAN_CMD_ACK_EVENTS, (int)(f - w->files), f->gen,
			  pick_fd(t, f));
		c.a.get_events.acks = (uintptr_t)acks;
		c.a.get_events.num_acks = n;
		/* the destroy that follows must not wait for acks nobody gives */
		c.no_kfault = true;
		do_call(t, &c, 0, 0);
		release_claims(f, acks, n, !c.ret && !c.closing);
		return nevents(f, -1, h) ? 1 : 0;
	}
	if (r < 90 || w->nthr < 2) {
		for (i = 0; i < MAX_EVS; i++) {
			struct mev *e = &f->evs[i];

			if (e->id_handle == h && e->state == E_UNACKED) {
				e->state = E_DEFERRED;
				e->due_ns = now_ns() + rnd(t, 300) * MSEC;
			}
		}
		stat_add(ST_DESTROY_DEFERRED, 1);
		return 1;
	}
	for (i = 0; i < MAX_EVS; i++) {
		struct mev *e = &f->evs[i];

		if (e->id_handle == h &&
		    (e->state == E_UNACKED || e->state == E_DEFERRED))
			e->state = E_TRAPPED;
	}
	t->slot->kill_after_ns = (200 + rnd(t, 3000)) * MSEC;
	stat_add(ST_DESTROY_TRAPPED, 1);
	return 2;
}

static void untrap(struct mfile *f, u32 h)
{
	int i;

	for (i = 0; i < MAX_EVS; i++)
		if (f->evs[i].id_handle == h && f->evs[i].state == E_TRAPPED)
			f->evs[i].state = E_UNACKED;
}

/* After a destroy returned: every event read for the id was acknowledged. */
static void check_destroyed(struct thr *t, struct call *c, struct mfile *f,
			    u32 h)
{
	int i;

	for (i = 0; i < MAX_EVS; i++) {
		struct mev *e = &f->evs[i];

		if (e->state == E_FREE || e->id_handle != h)
			continue;
		if (e->state == E_TRAPPED || e->state == E_UNACKED ||
		    (e->state == E_DEFERRED && e->due_ns > c->end_ns))
			fail(t, "%s: returned while event %u (%s) of the id was not acknowledged",
			     c->desc, e->handle, ev_name(e->type));
	}
}

static void act_destroy(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi, may_block = 0;
	bool twice;
	u32 h;

	if (t->force) {
		o = t->force;
		fi = t->force_fi;
		t->force = NULL;
	} else {
		fi = pick_file(t);
		if (fi < 0)
			return;
		o = pick_obj(t, &w->files[fi], chance(t, 15), 0, chance(t, 5));
	}
	if (!o)
		return;
	f = &w->files[fi];
	h = o->handle;
	twice = o->dying;
	call_init(&c, RDMACHAN_CMD_DESTROY, fi, f->gen, pick_fd(t, f));
	c.a.destroy.handle = h;
	pin(f);
	inject(t, &c, f);
	if (twice) {
		/* racing another destroy or a migrate: one of them wins */
		if (benign(&c)) {
			es_add(&c.ok, ENOENT);
			o->racers++;
		}
	} else if (benign(&c)) {
		mark_dying(o);
		if (!o->ctx)
			may_block = settle_acks(t, f, h);
		/*
		 * settle_acks drops the lock for its ACK_EVENTS: a racing
		 * destroy (which sees the id dying) may have won meanwhile.
		 */
		if (obj_find(f, h) != o)
			goto out;
		es_add(&c.ok, ENOENT);	/* only with a racer; checked below */
	}
	do_call(t, &c, may_block, 0);
	if (!benign(&c) || c.closing || !c.ran)
		goto out;
	o = obj_find(f, h);
	if (!c.ret) {
		if (!o && hist_gone(f, h))
			fail(t, "%s: handle %u destroyed twice", c.desc, h);
		if (o && !o->ctx)
			check_destroyed(t, &c, f, h);
		if (o)
			obj_gone(w, f, o, false);
	} else if (c.err == ENOENT && o && !twice && !o->racers) {
		fail(t, "%s: ENOENT for a live handle nobody else destroyed",
		     c.desc);
		journal_dump(w, fi);
	}
	if (twice && o)
		o->racers--;
	/*
	 * A racing destroy or migrate still in the kernel may have the
	 * handle (this call's ENOENT): the id stays dying until it returns.
	 */
	if (o && !twice && c.ret && !o->racers) {
		o->dying = false;
		untrap(f, h);
	}
out:
	unpin(f);
}

static void act_migrate(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *sf, *df;
	struct mobj *o, *n;
	struct call c;
	int sfi, dfi, may_block = 0, i, mig_slot = 0;
	u32 h, mig_n = 0;

	sfi = pick_file(t);
	dfi = pick_file(t);
	if (sfi < 0 || dfi < 0)
		return;
	sf = &w->files[sfi];
	df = &w->files[dfi];
	o = pick_obj(t, sf, false, 0, false);
	if (!o || (df != sf && df->nids >= MAX_IDS))
		return;
	/* the call's outcome would update the copy left behind */
	if (o->cm_busy && !cfg.known_slow)
		return;
	h = o->handle;
	call_init(&c, RDMACHAN_CMD_MIGRATE_ID, dfi, df->gen, pick_fd(t, df));
	c.a.migrate_id.fd = pick_fd(t, sf);
	c.a.migrate_id.handle = h;
	/*
	 * EBUSY: requests queued, or an event read meanwhile; ENOENT and
	 * ENODEV: a racing destroy; EBADF and EINVAL: the source file was
	 * closed meanwhile (checked below).
	 */
	c.ok = ES(0, EBUSY, ENOENT, ENODEV, EBADF, EINVAL);
	pin(sf);
	pin(df);
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		if (chance(t, 50)) {
			c.a.migrate_id.fd = -1 - rnd(t, 1000);
			c.ok = ES(EBADF);
		} else {
			c.a.migrate_id.fd = w->nullfd;
			c.ok = ES(EINVAL);
		}
	} else {
		inject(t, &c, sf);
	}
	/*
	 * The fd is checked before the handle: a source file closed during
	 * the call is /dev/null by then, EINVAL (checked below).
	 */
	if (c.fault >= F_HANDLE_ZERO && c.fault <= F_HANDLE_RANDOM)
		es_add(&c.ok, EINVAL);
	if (benign(&c)) {
		struct migr *m = &df->migr[df->nmigr++ % MIGR_RING];

		mark_dying(o);
		m->old_h = h;
		m->new_h = sf == df ? h : 0;
		m->uctx = o->uctx;
		m->prev_uctx = o->prev_uctx;
		m->pending_uctx = o->pending_uctx;
		m->seq_begin = w->seq;
		m->seq_end = 0;
		mig_slot = m - df->migr;
		mig_n = df->nmigr;
		if (sf != df)
			may_block = settle_acks(t, sf, h);
	}
	t->cur_src_fi = sfi;
	do_call(t, &c, may_block, 0);
	t->cur_src_fi = -1;
	if (mig_n && df->gen == c.gen && df->nmigr - mig_n < MIGR_RING) {
		df->migr[mig_slot].seq_end = ++w->seq;
		if (!c.ret)
			df->migr[mig_slot].new_h = c.a.migrate_id.out_handle;
		else
			df->migr[mig_slot].old_h = 0;
	}
	o = obj_find(sf, h);
	if (c.fault >= F_HANDLE_ZERO && c.fault <= F_HANDLE_RANDOM && c.ret &&
	    c.err == EINVAL && sf->state == FS_OPEN)
		fail(t, "%s: source file open, got EINVAL", c.desc);
	if (!benign(&c))
		goto out;
	if (!c.ran) {
		if (o && !o->racers) {
			o->dying = false;
			untrap(sf, h);
		}
		goto out;
	}
	if (c.ret && (c.err == EBADF || c.err == EINVAL) && sf->state == FS_OPEN)
		fail(t, "%s: source file open, got %s", c.desc,
		     errno_name(c.err));
	if (c.ret && (c.err == ENOENT || c.err == ENODEV) && o && !o->racers &&
	    sf->state == FS_OPEN) {
		fail(t, "%s: %s for a live id nobody destroyed", c.desc,
		     errno_name(c.err));
		journal_dump(w, sfi);
	}
	if (!c.ret && o) {
		/* moved, whether or not either file is being closed */
		u32 nh = c.a.migrate_id.out_handle;

		if (sf == df) {
			if (nh != h)
				fail(t, "%s: same file gave handle %u for %u", c.desc,
				     nh, h);
			o->dying = false;
			goto out;
		}
		if (!nh || hist_get(df, nh) == HIST_LIVE || hist_gone(df, nh))
			fail(t, "%s: new handle %u is not fresh", c.desc, nh);
		for (i = 0; i < MAX_EVS; i++)
			if (sf->evs[i].state != E_FREE &&
			    sf->evs[i].id_handle == h &&
			    sf->evs[i].state != E_CLAIMED)
				fail(t, "%s: migrated with event %u unacknowledged",
				     c.desc, sf->evs[i].handle);
		n = df->state == FS_OPEN ? obj_add(w, df, nh, false) : NULL;
		if (n) {
			*n = *o;
			n->handle = nh;
			n->dying = false;
			n->cm_busy = false;
			n->racers = 0;
		}
		journal(w, "t%d migrate f%d h %u -> f%d h %u uctx %#llx", t->idx,
			sfi, h, dfi, nh, (unsigned long long)o->uctx);
		obj_gone(w, sf, o, true);
		stat_add(ST_MIGRATES, 1);
	} else if (o && !o->racers) {
		/* with a racer still in the kernel, as in act_destroy */
		o->dying = false;
		untrap(sf, h);
	}
out:
	/*
	 * Only a benign call marked the id dying, and undid that above; a
	 * faulty one leaves the mark alone: it is a racing destroy's or
	 * migrate's, still in the kernel.
	 */
	unpin(df);
	unpin(sf);
}

static void act_unknown(struct thr *t)
{
	static const u8 types[] = { 0x12, 0x33, 0x7a, 0xab, 0xd4, 0xd6, 0xee };
	struct mfile *f;
	struct call c;
	int fi = pick_file(t);

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_GET_INFO, fi, f->gen, pick_fd(t, f));
	c.cmd = -1;
	c.fault = F_UNKNOWN_CMD;
	c.ok = ES(ENOTTY);
	if (chance(t, 50))
		c.ioc = _IOC(_IOC_READ | _IOC_WRITE, RDMACHAN_IOCTL_TYPE,
			     NCMD_ABI + rnd(t, 256 - NCMD_ABI), rnd(t, 1 << 14));
	else
		c.ioc = _IOC(rnd(t, 4), types[rnd(t, ARRAY_SIZE(types))],
			     rnd(t, 256), rnd(t, 1 << 14));
	pin(f);
	t->ncalls++;
	unlock(t->w);
	snprintf(c.desc, DESC_LEN, "#%llu ioctl %#lx on f%d(fd %d)",
		 (unsigned long long)t->ncalls, c.ioc, fi, c.fd);
	slot_begin(t, &c, 0);
	c.ret = ioctl(c.fd, c.ioc, chance(t, 50) ? NULL : (void *)rnd64(t));
	c.err = errno;
	slot_end(t);
	__atomic_fetch_add(&shm->calls[STAT_UNKNOWN], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&shm->faults[F_UNKNOWN_CMD], 1, __ATOMIC_RELAXED);
	lock(t->w);
	if (c.ret != -1 || c.err != ENOTTY)
		fail(t, "%s: got %d/%s, want ENOTTY", c.desc, c.ret,
		     errno_name(c.err));
	unpin(f);
}

/*
 * A forked child: on the inherited files every command fails with
 * EACCES (unknown ones with ENOTTY), so does migrating from them into a
 * file of its own. It holds its copies a while, so the parent may close
 * first and the release happen here.
 */
static void child_channels(struct thr *t, const int *chfds, int nch,
			   u64 *calls, int *bad);

static void child_main(struct thr *t, const int *fds, int nfds,
		       const int *chfds, int nch)
{
	char msg[512];
	struct stat st;
	int i, k, own, bad = 0;
	u64 calls = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < nfds; i++) {
		if (fstat(fds[i], &st) || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != cfg.rdev)
			continue;
		for (k = 0; k < 4; k++) {
			union {
				u8 raw[1024];
				u32 size;
			} a;
			u32 nr = rnd(t, NCMD);
			unsigned long ioc = _IOC(_IOC_READ | _IOC_WRITE,
						 RDMACHAN_IOCTL_TYPE, nr, 0);
			void *arg = a.raw;
			int r;

			memset(&a, 0, sizeof(a));
			a.size = cmds[nr].size;
			if (chance(t, 20))
				arg = NULL;
			/* a channel's or an async event file's command is unknown here */
			int want = nr == RDMACHAN_CMD_GET_CQ_EVENT ||
				   nr == RDMACHAN_CMD_GET_ASYNC_EVENT ? ENOTTY :
				   EACCES;

			r = ioctl(fds[i], ioc, arg);
			calls++;
			if (r != -1 || errno != want) {
				snprintf(msg, sizeof(msg),
					 "seed %#llx worker %d: forked child: %s on inherited fd %d: %d/%s, want %s",
					 (unsigned long long)t->w->seed,
					 t->w->index, cmds[nr].name, fds[i], r,
					 r ? errno_name(errno) : "success",
					 errno_name(want));
				record_failure(msg);
				bad = 1;
			}
		}
		own = open(DEV_PATH, O_RDWR);
		if (own >= 0) {
			struct rdmachan_migrate_id mig = {
				.size = sizeof(mig), .fd = fds[i], .handle = 1,
			};
			struct rdmachan_get_info info = { .size = sizeof(info) };

			calls += 2;
			if (ioctl(own, RDMACHAN_IOC_MIGRATE_ID, &mig) != -1 ||
			    errno != EACCES) {
				snprintf(msg, sizeof(msg),
					 "seed %#llx worker %d: forked child: MIGRATE_ID from inherited fd: %s, want EACCES",
					 (unsigned long long)t->w->seed,
					 t->w->index, errno_name(errno));
				record_failure(msg);
				bad = 1;
			}
			if (ioctl(own, RDMACHAN_IOC_GET_INFO, &info)) {
				snprintf(msg, sizeof(msg),
					 "seed %#llx worker %d: forked child: GET_INFO on its own file: %s",
					 (unsigned long long)t->w->seed,
					 t->w->index, errno_name(errno));
				record_failure(msg);
				bad = 1;
			}
			close(own);
		}
	}
	child_channels(t, chfds, nch, &calls, &bad);
	async_child(t, &calls, &bad);
	__atomic_fetch_add(&shm->calls[STAT_CHILD], calls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&shm->faults[F_CHILD], calls, __ATOMIC_RELAXED);
	sleep_ns(rnd(t, 300) * MSEC);
	_exit(bad);
}

/*
 * The parent's completion channels: taking an event is EACCES, and so is
 * a CQ of the child's own file on one of them.
 */
static void child_channels(struct thr *t, const int *chfds, int nch,
			   u64 *calls, int *bad)
{
	struct rdmachan_open_device open_dev = {
		.size = sizeof(open_dev), .device_index = cfg.dev_index,
	};
	char msg[512];
	int i, own;

	if (!nch)
		return;
	own = open(DEV_PATH, O_RDWR);
	if (own >= 0 && ioctl(own, RDMACHAN_IOC_OPEN_DEVICE, &open_dev)) {
		close(own);
		own = -1;
	}
	for (i = 0; i < nch; i++) {
		struct rdmachan_get_cq_event ev = {
			.size = sizeof(ev), .flags = RDMACHAN_GET_CQ_EVENT_NONBLOCK,
		};
		struct rdmachan_create_cq cq = {
			.size = sizeof(cq), .context = open_dev.out_handle,
			.cqe = 4, .comp_channel = chfds[i],
		};
		int r = ioctl(chfds[i], RDMACHAN_IOC_GET_CQ_EVENT, &ev);

		++*calls;
		if (r != -1 || errno != EACCES) {
			snprintf(msg, sizeof(msg),
				 "seed %#llx worker %d: forked child: GET_CQ_EVENT on an inherited channel: %s, want EACCES",
				 (unsigned long long)t->w->seed, t->w->index,
				 r ? errno_name(errno) : "success");
			record_failure(msg);
			*bad = 1;
		}
		if (own < 0)
			continue;
		r = ioctl(own, RDMACHAN_IOC_CREATE_CQ, &cq);
		++*calls;
		if (r != -1 || errno != EACCES) {
			snprintf(msg, sizeof(msg),
				 "seed %#llx worker %d: forked child: CREATE_CQ on an inherited channel: %s, want EACCES",
				 (unsigned long long)t->w->seed, t->w->index,
				 r ? errno_name(errno) : "success");
			record_failure(msg);
			*bad = 1;
		}
	}
	if (own >= 0)
		close(own);
}

static void act_fork(struct thr *t)
{
	struct worker *w = t->w;
	int fds[MAX_FILES * MAX_DUPS], pinned[MAX_FILES], n = 0, np = 0, i, st;
	int chfds[MAX_CHANS], nch = 0;
	struct call c;
	u64 child_rng;
	pid_t pid;

	for (i = 0; i < MAX_FILES; i++) {
		struct mfile *f = &w->files[i];

		if (f->state != FS_OPEN)
			continue;
		memcpy(fds + n, f->fds, f->nfds * sizeof(int));
		n += f->nfds;
		pin(f);
		pinned[np++] = i;
	}
	for (i = 0; i < MAX_CHANS; i++)
		if (w->chans[i].used)
			chfds[nch++] = w->chans[i].fd;
	child_rng = rnd64(t);
	stat_add(ST_FORKS, 1);
	w->forks++;
	pid = fork();
	if (pid == 0) {
		t->rng = child_rng;
		child_main(t, fds, n, chfds, nch);
	}
	for (i = 0; i < np; i++)
		unpin(&w->files[pinned[i]]);
	if (pid < 0) {
		w->forks--;
		return;
	}
	/* the child may do the last release of a file: watched like a call */
	snprintf(c.desc, DESC_LEN, "#%llu wait for forked child %d",
		 (unsigned long long)++t->ncalls, pid);
	c.cmd = -1;
	unlock(w);
	slot_begin(t, &c, 0);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	slot_end(t);
	lock(w);
	w->forks--;
}

/* ---- threads ---- */

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* The next plausible call for one id, by its role and state. */
static void act_advance(struct thr *t)
{
	struct worker *w = t->w;
	struct mobj *o;
	int fi = pick_file(t), r = rnd(t, 100);

	if (fi < 0)
		return;
	o = pick_obj(t, &w->files[fi], false, 0, false);
	if (!o) {
		act_create_id(t, -1);
		return;
	}
	t->force = o;
	t->force_fi = fi;
	switch (o->state) {
	case S_NEW:
		if (o->role == R_LISTENER)
			act_bind(t);
		else if (listener_port(t, o->ps))
			act_resolve_addr(t);
		else
			act_create_id(t, R_LISTENER);
		break;
	case S_BOUND:
		if (o->role == R_LISTENER)
			act_id_cmd(t, RDMACHAN_CMD_LISTEN);
		else if (listener_port(t, o->ps))
			act_resolve_addr(t);
		break;
	case S_ADDR_RESOLVED:
		act_id_cmd(t, RDMACHAN_CMD_RESOLVE_ROUTE);
		break;
	case S_ROUTE_RESOLVED:
		act_connect(t, RDMACHAN_CMD_CONNECT);
		break;
	case S_REQ:
		if (r < 75)
			act_connect(t, RDMACHAN_CMD_ACCEPT);
		else if (r < 92)
			act_reject(t);
		else
			act_destroy(t);
		break;
	case S_RESPONDED:
		if (r < 85)
			act_id_cmd(t, RDMACHAN_CMD_ESTABLISH);
		else if (r < 95)
			act_reject(t);
		else
			act_id_cmd(t, RDMACHAN_CMD_DISCONNECT);
		break;
	case S_CONNECTED:
		if (r < 30)
			act_id_cmd(t, RDMACHAN_CMD_DISCONNECT);
		else if (r < 35)
			act_destroy(t);
		break;
	case S_LISTEN:
		if (r < 3)
			act_destroy(t);
		break;
	case S_DISCONNECTED:
	case S_FAILED:
		if (r < 60)
			act_destroy(t);
		break;
	default:
		/* waiting for an event */
		if (r < 3)
			act_destroy(t);
		break;
	}
	t->force = NULL;
	if (r >= 50)
		act_get_events(t, false);
}

/* One step: a plausible next call for some id, or anything else. */
static void step(struct thr *t)
{
	struct worker *w = t->w;
	int r, nopen = 0, i;

	for (i = 0; i < MAX_FILES; i++)
		if (w->files[i].state == FS_OPEN)
			nopen++;
	check_orphans(t);
	if (cfg.verbs)
		async_ack_due(t);
	if (cfg.verbs && nopen && chance(t, 35)) {
		verbs_step(t);
		return;
	}
	/* acks others wait for come first */
	if (chance(t, 50)) {
		if (chance(t, 50))
			act_ack(t, true);
		else
			act_get_events(t, true);
	}
	if (nopen == 0 || (nopen < 2 && chance(t, 30)) || chance(t, 1)) {
		act_open(t);
		return;
	}
	r = rnd(t, 1000);
	if (r < 300)
		act_advance(t);
	else if (r < 450)
		act_get_events(t, false);
	else if (r < 500)
		act_ack(t, false);
	else if (r < 525)
		act_create_id(t, -1);
	else if (r < 540)
		act_bind(t);
	else if (r < 555)
		act_resolve_addr(t);
	else if (r < 570)
		act_id_cmd(t, RDMACHAN_CMD_RESOLVE_ROUTE);
	else if (r < 585)
		act_id_cmd(t, RDMACHAN_CMD_LISTEN);
	else if (r < 605)
		act_connect(t, RDMACHAN_CMD_CONNECT);
	else if (r < 625)
		act_connect(t, RDMACHAN_CMD_ACCEPT);
	else if (r < 640)
		act_reject(t);
	else if (r < 655)
		act_id_cmd(t, RDMACHAN_CMD_ESTABLISH);
	else if (r < 670)
		act_id_cmd(t, RDMACHAN_CMD_DISCONNECT);
	else if (r < 680)
		act_id_cmd(t, RDMACHAN_CMD_NOTIFY);
	else if (r < 690)
		act_set_option(t);
	else if (r < 693)
		act_bind_user_qp(t);
	else if (r < 695)
		act_query_events(t);
	else if (r < 710)
		act_init_qp_attr(t);
	else if (r < 765)
		act_destroy(t);
	else if (r < 790)
		act_migrate(t);
	else if (r < 805)
		act_open_device(t);
	else if (r < 835)
		act_query(t);
	else if (r < 845)
		act_list_devices(t);
	else if (r < 855)
		act_get_info(t);
	else if (r < 875)
		act_unknown(t);
	else if (r < 883)
		act_close(t);
	else if (r < 886)
		act_fork(t);
	else if (r < 889)
		act_nonblock(t);
	else
		act_get_events(t, false);
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	struct worker *w = t->w;
	struct sigevent sev = {};

	t->tid = gettid();
	t->nth_fd = cfg.pct_kfault ? open("/proc/thread-self/fail-nth",
					  O_RDWR | O_CLOEXEC) : -1;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = t->tid;
	t->have_timer = !timer_create(CLOCK_MONOTONIC, &sev, &t->timer);
	lock(w);
	while (!w->stop && !shm->stop)
		step(t);
	unlock(w);
	return NULL;
}

static u8 *map_arena(void)
{
	u8 *p = mmap(NULL, ARENA_LEN + cfg.page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + ARENA_LEN, cfg.page, PROT_NONE))
		return NULL;
	return p;
}

static int thr_setup(struct worker *w, struct thr *t, int idx)
{
	int mfd;

	t->w = w;
	t->idx = idx;
	t->rng = w->seed ^ (u64)(idx + 1) * 0x9e3779b97f4a7c15ull;
	splitmix(&t->rng);
	t->slot = &w->ws->slots[idx];
	t->cur_fi = -1;
	t->cur_src_fi = -1;
	t->cur_cmd = -1;
	t->argmap = map_arena();
	t->bufmap = map_arena();
	mfd = memfd_create("rdmachan-fuzz", 0);
	if (!t->argmap || !t->bufmap || mfd < 0 || ftruncate(mfd, cfg.page))
		return -1;
	t->rw_view = mmap(NULL, cfg.page, PROT_READ | PROT_WRITE, MAP_SHARED,
			  mfd, 0);
	t->ro_view = mmap(NULL, cfg.page, PROT_READ, MAP_SHARED, mfd, 0);
	close(mfd);
	if (t->rw_view == MAP_FAILED || t->ro_view == MAP_FAILED)
		return -1;
	return 0;
}

/* Worker process: threads on a shared model until told to stop. */
static struct worker *crash_worker;

/*
 * A crash of the worker itself: where, and what each thread was doing,
 * before it dies of the signal. Only async-signal-safe calls.
 */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	struct worker *w = crash_worker;
	void *frames[32];
	char line[DESC_LEN + 96];
	int i, n;

	(void)uc;
	snprintf(line, sizeof(line),
		 "rdmachan-fuzz: worker %d gen %d: signal %d at address %p, backtrace:\n",
		 w ? w->index : -1, w ? w->gen : -1, sig, si->si_addr);
	put_str(2, line);
	n = backtrace(frames, ARRAY_SIZE(frames));
	backtrace_symbols_fd(frames, n, 2);
	for (i = 0; w && i < w->nthr; i++) {
		snprintf(line, sizeof(line), "rdmachan-fuzz:   thread %d %s: %s\n",
			 i, w->ws->slots[i].in_call ? "in" : "after",
			 w->ws->slots[i].desc);
		put_str(2, line);
	}
}

static void worker_main(int index, int gen, u64 seed, int nthr, u64 end_ns)
{
	struct sigaction crash = {
		.sa_sigaction = on_crash,
		.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER,
	};
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct worker *w;
	struct timespec ts;
	int i, joined = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: calls see EINTR */
	w = calloc(1, sizeof(*w));
	if (!w)
		_exit(3);
	crash_worker = w;
	sigaction(SIGSEGV, &crash, NULL);
	sigaction(SIGBUS, &crash, NULL);
	w->index = index;
	w->gen = gen;
	w->seed = seed;
	w->journal = calloc(JOURNAL_LEN, JOURNAL_LINE);
	w->ws = &shm->w[index];
	w->nthr = nthr;
	pthread_mutex_init(&w->lock, NULL);
	w->nullfd = open("/dev/null", O_RDWR);
	for (i = 0; i < MAX_FILES; i++) {
		w->files[i].state = FS_CLOSED;
		w->files[i].w = w;
		w->files[i].idx = i;
	}
	for (i = 0; i < nthr; i++)
		if (thr_setup(w, &w->thr[i], i))
			_exit(3);
	for (i = 0; i < nthr; i++)
		if (pthread_create(&w->thr[i].pt, NULL, thread_main, &w->thr[i]))
			_exit(3);
	while (!shm->stop && now_ns() < end_ns)
		sleep_ns(50 * MSEC);
	w->stop = 1;
	/* threads blocked in a read are interrupted by their timers */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	for (i = 0; i < nthr; i++)
		if (!pthread_timedjoin_np(w->thr[i].pt, NULL, &ts))
			joined++;
	if (joined == nthr && rnd(&w->thr[0], 2)) {
		/* an orderly end: acks, destroys, closes */
		struct thr *t = &w->thr[0];

		lock(w);
		for (i = 0; i < MAX_FILES; i++) {
			struct mfile *f = &w->files[i];
			int k;

			if (f->state != FS_OPEN)
				continue;
			for (k = 0; k < MAX_EVS; k++)
				if (f->evs[k].state == E_TRAPPED)
					f->evs[k].state = E_UNACKED;
			for (k = 0; k < MAX_OBJS; k++) {
				struct mobj *o = &f->objs[k];
				struct call c;

				if (!o->used || o->dying)
					continue;
				o->dying = true;
				if (!o->ctx) {
					u32 *acks = (u32 *)t->bufmap;
					u32 n = claim_events(t, f, acks, 256,
							     o->handle, false);

					call_init(&c, RDMACHAN_CMD_ACK_EVENTS, i,
						  f->gen, f->fds[0]);
					c.a.get_events.acks = (uintptr_t)acks;
					c.a.get_events.num_acks = n;
					c.no_kfault = true;
					pin(f);
					do_call(t, &c, 0, 0);
					release_claims(f, acks, n, !c.ret);
					unpin(f);
				}
				call_init(&c, RDMACHAN_CMD_DESTROY, i, f->gen,
					  f->fds[0]);
				c.a.destroy.handle = o->handle;
				pin(f);
				do_call(t, &c, 1, 0);
				if (!c.ret)
					obj_gone(w, f, o, false);
				unpin(f);
			}
			f->state = FS_CLOSING;
			if (!f->pins)
				file_finish_close(f);
		}
		unlock(w);
	}
	_exit(0);
}

/* ---- supervisor ---- */

static const char *kfault_note = "not asked for (-F)";

/* The module's live-object counters, but for IB devices (not ours). */
#define MAX_COUNTERS	32

struct counters {
	int n;
	char name[MAX_COUNTERS][32];
	long val[MAX_COUNTERS];
};

static int read_counters(struct counters *c)
{
	FILE *f = fopen(DEBUGFS "/objects", "r");
	char key[32];
	long val;

	if (!f)
		return -1;
	c->n = 0;
	while (c->n < MAX_COUNTERS && fscanf(f, "%31s %ld", key, &val) == 2) {
		if (!strcmp(key, "devices"))
			continue;
		memcpy(c->name[c->n], key, sizeof(key));
		c->val[c->n++] = val;
	}
	fclose(f);
	return 0;
}

static bool counters_equal(const struct counters *a, const struct counters *b)
{
	int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->name[i], b->name[i]) || a->val[i] != b->val[i])
			return false;
	return true;
}

static void print_counters(const char *what, const struct counters *c)
{
	int i;

	printf("rdmachan-fuzz: live objects %s", what);
	for (i = 0; i < c->n; i++)
		printf(" %s %ld", c->name[i], c->val[i]);
}

/* Unacknowledged events the module lists for the files of process @pid. */
static int unacked_of(pid_t pid)
{
	char prefix[32], path[512], line[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(DEBUGFS "/files");
	if (!d)
		return -1;
	snprintf(prefix, sizeof(prefix), "%d-", pid);
	while ((de = readdir(d))) {
		FILE *f;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), DEBUGFS "/files/%s", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "unacked ", 8) ||
			    !strncmp(line, "async_unacked ", 14))
				n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* What the workers need to know: the device, the address, /dev's rdev. */
static int probe(void)
{
	struct rdmachan_device_entry ent[8];
	struct rdmachan_list_devices list = {
		.size = sizeof(list), .entry_size = sizeof(ent[0]),
		.max_entries = 8, .entries = (uintptr_t)ent,
	};
	struct rdmachan_open_device open_dev = { .size = sizeof(open_dev) };
	struct rdmachan_query_port port = { .size = sizeof(port), .port_num = 1 };
	struct rdmachan_get_info info = { .size = sizeof(info) };
	const char *addr = getenv("RDMACHAN_ADDR");
	struct stat st;
	int fd;

	if (inet_pton(AF_INET, addr ? addr : "10.77.0.1", &cfg.addr) != 1) {
		fprintf(stderr, "rdmachan-fuzz: bad RDMACHAN_ADDR %s\n", addr);
		return -1;
	}
	fd = open(DEV_PATH, O_RDWR);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "rdmachan-fuzz: %s: %s\n", DEV_PATH,
			strerror(errno));
		return -1;
	}
	cfg.rdev = st.st_rdev;
	if (ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &list) || !list.out_num_devices) {
		fprintf(stderr, "rdmachan-fuzz: no RDMA device\n");
		close(fd);
		return -1;
	}
	cfg.dev_index = ent[0].device_index;
	open_dev.device_index = cfg.dev_index;
	if (ioctl(fd, RDMACHAN_IOC_OPEN_DEVICE, &open_dev)) {
		fprintf(stderr, "rdmachan-fuzz: OPEN_DEVICE: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	port.handle = open_dev.out_handle;
	cfg.gid_tbl_len = ioctl(fd, RDMACHAN_IOC_QUERY_PORT, &port) ? 16 :
			  port.out_gid_tbl_len;
	cfg.num_comp_vectors = open_dev.out_num_comp_vectors;
	cfg.verbs = !ioctl(fd, RDMACHAN_IOC_GET_INFO, &info) &&
		    (info.out_features & RDMACHAN_FEATURE_VERBS);
	if (cfg.verbs && verbs_setup(fd, open_dev.out_handle)) {
		fprintf(stderr, "rdmachan-fuzz: no RoCE v2 GID of %s on port 1\n",
			addr ? addr : "10.77.0.1");
		close(fd);
		return -1;
	}
	close(fd);
	printf("rdmachan-fuzz: device %s (index %u), %u GIDs, address %s\n",
	       ent[0].name, cfg.dev_index, cfg.gid_tbl_len,
	       addr ? addr : "10.77.0.1");
	printf("rdmachan-fuzz: verbs objects and data path: %s\n",
	       cfg.verbs ? "yes" : "no (the module has no RDMACHAN_FEATURE_VERBS)");
	return 0;
}

static struct {
	pid_t pid;
	int gen;
	u64 started;
	u64 killed;	/* when it was sent SIGKILL */
	bool stacks_shown;
} workers[MAX_WORKERS];

static int nworkers, nthreads;
static u64 master_seed, run_end;

static u64 worker_seed(int i, int gen)
{
	u64 s = master_seed ^ ((u64)i << 48) ^ ((u64)gen << 32);

	return splitmix(&s);
}

static void spawn(int i)
{
	struct wshm *ws = &shm->w[i];
	u64 seed;
	pid_t pid;

	seed = worker_seed(i, workers[i].gen);
	memset(ws, 0, sizeof(*ws));
	ws->gen = workers[i].gen;
	ws->seed = seed;
	ws->nthreads = nthreads;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("rdmachan-fuzz: fork");
		return;
	}
	if (pid == 0)
		worker_main(i, workers[i].gen, seed, nthreads, run_end);
	ws->pid = pid;
	workers[i].pid = pid;
	workers[i].started = now_ns();
	stat_add(ST_WORKERS, 1);
}

/* Where the kernel holds a process's threads (needs root): for hangs. */
static void show_kernel_stacks(pid_t pid)
{
	char path[64], line[256];
	struct dirent *de;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack",
			 (int)pid, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		printf("rdmachan-fuzz:   kernel stack of task %s:\n", de->d_name);
		while (fgets(line, sizeof(line), f))
			printf("rdmachan-fuzz:     %s", line);
		fclose(f);
	}
	closedir(dir);
	fflush(stdout);
}

static void kill_worker(int i, int why)
{
	if (workers[i].pid <= 0)
		return;
	kill(workers[i].pid, SIGKILL);
	workers[i].killed = now_ns();
	workers[i].stacks_shown = false;
	stat_add(why, 1);
}

/* A finished worker: a crash is a failure; it is replaced while time remains. */
static void reaped(int i, int st, bool killed)
{
	char msg[256];

	/* exit releases the worker's files: that must not hang either */
	if (killed && workers[i].killed &&
	    now_ns() - workers[i].killed > (u64)cfg.hang_limit * NSEC) {
		snprintf(msg, sizeof(msg),
			 "seed %#llx worker %d gen %d (worker seed %#llx): HANG: took %llu s to exit after SIGKILL",
			 (unsigned long long)master_seed, i, workers[i].gen,
			 (unsigned long long)shm->w[i].seed,
			 (unsigned long long)((now_ns() - workers[i].killed) / NSEC));
		record_failure(msg);
	}
	workers[i].killed = 0;
	if (!killed && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		snprintf(msg, sizeof(msg),
			 "seed %#llx worker %d gen %d (worker seed %#llx) ended with %s %d",
			 (unsigned long long)master_seed, i, workers[i].gen,
			 (unsigned long long)shm->w[i].seed,
			 WIFSIGNALED(st) ? "signal" : "status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		record_failure(msg);
	}
	workers[i].pid = 0;
	workers[i].gen++;
	if (!shm->stop && now_ns() + NSEC < run_end)
		spawn(i);
}

static bool killed_flag[MAX_WORKERS];

/* The watchdog: hangs, never-acked waits, random kills. */
static void watch(u64 *next_kill, u64 *rng)
{
	u64 now = now_ns();
	int i, k;

	for (i = 0; i < nworkers; i++) {
		struct wshm *ws = &shm->w[i];

		/* a killed worker that does not go: say where it is stuck */
		if (workers[i].pid > 0 && workers[i].killed &&
		    !workers[i].stacks_shown &&
		    now - workers[i].killed > (u64)cfg.hang_limit * NSEC) {
			printf("rdmachan-fuzz: worker %d gen %d still exiting %d s after SIGKILL\n",
			       i, workers[i].gen, cfg.hang_limit);
			show_kernel_stacks(workers[i].pid);
			workers[i].stacks_shown = true;
		}
		if (workers[i].pid <= 0 || killed_flag[i] ||
		    now < ws->reporting_until_ns)
			continue;
		for (k = 0; k < nthreads; k++) {
			struct slot *s = &ws->slots[k];
			u64 start = s->start_ns, in = now > start ? now - start : 0;
			char msg[FAIL_LEN], who[64];
			int unacked;

			if (!__atomic_load_n(&s->in_call, __ATOMIC_ACQUIRE) || !start)
				continue;
			if (s->may_block == 2 && in > s->kill_after_ns) {
				kill_worker(i, ST_KILLS_TRAP);
				killed_flag[i] = true;
				break;
			}
			if (in < (u64)cfg.hang_limit * NSEC)
				continue;
			unacked = unacked_of(workers[i].pid);
			/* a destroy or migrate may wait for acks the model lost track of */
			if (unacked > 0 && (s->may_block || s->cmd == RDMACHAN_CMD_DESTROY ||
					    s->cmd == RDMACHAN_CMD_MIGRATE_ID)) {
				printf("rdmachan-fuzz: note: worker %d gen %d thread %d waits %llu s for %d unacked event(s) (may_block %d), killed: %s\n",
				       i, ws->gen, k, (unsigned long long)(in / NSEC),
				       unacked, s->may_block, s->desc);
				kill_worker(i, ST_KILLS_BLOCKED);
				killed_flag[i] = true;
				break;
			}
			snprintf(who, sizeof(who), "worker %d gen %d thread %d", i,
				 ws->gen, k);
			snprintf(msg, sizeof(msg),
				 "seed %#llx %s (worker seed %#llx): HANG: call in progress for %llu s, %d unacked event(s) listed in debugfs: %s",
				 (unsigned long long)master_seed, who,
				 (unsigned long long)ws->seed,
				 (unsigned long long)(in / NSEC), unacked, s->desc);
			record_failure(msg);
			dump_ring(s, who);
			kill_worker(i, ST_KILLS_BLOCKED);
			killed_flag[i] = true;
			break;
		}
	}
	if (*next_kill && now >= *next_kill) {
		i = splitmix(rng) % nworkers;
		if (workers[i].pid > 0 && !killed_flag[i] &&
		    now - workers[i].started > 500 * MSEC &&
		    now >= shm->w[i].reporting_until_ns) {
			kill_worker(i, ST_KILLS_RANDOM);
			killed_flag[i] = true;
		}
		*next_kill = now + (1000 + splitmix(rng) % 7000) * MSEC;
	}
}

static void reap_all(bool block)
{
	int st, i;
	pid_t pid;

	for (;;) {
		pid = waitpid(-1, &st, block ? 0 : WNOHANG);
		if (pid <= 0) {
			if (pid < 0 && errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < nworkers; i++)
			if (workers[i].pid == pid) {
				bool killed = killed_flag[i];

				killed_flag[i] = false;
				reaped(i, st, killed);
			}
	}
}

static void report(u64 secs_ns, const struct counters *before,
		   const struct counters *after,
		   bool counters_ok, bool have_counters)
{
	u64 total = 0, faults = 0;
	double secs = secs_ns / 1e9;
	int i;

	for (i = 0; i < NSTAT_CMDS; i++)
		total += shm->calls[i];
	for (i = 1; i < NFAULTS; i++)
		faults += shm->faults[i];
	printf("rdmachan-fuzz: %llu calls in %.1f s (%.0f calls/s), seed %#llx\n",
	       (unsigned long long)total, secs, total / (secs > 0 ? secs : 1),
	       (unsigned long long)master_seed);
	printf("rdmachan-fuzz: calls per command:\n");
	for (i = 0; i < NSTAT_CMDS; i++)
		printf("rdmachan-fuzz:   %-14s %llu\n",
		       i < NCMD ? cmds[i].name : i == STAT_UNKNOWN ?
		       "(unknown)" : "(forked child)",
		       (unsigned long long)shm->calls[i]);
	printf("rdmachan-fuzz: faults injected: %llu\n",
	       (unsigned long long)faults);
	for (i = 1; i < NFAULTS; i++)
		if (shm->faults[i])
			printf("rdmachan-fuzz:   %-26s %llu\n", fault_names[i],
			       (unsigned long long)shm->faults[i]);
	printf("rdmachan-fuzz: kills survived: %llu (random %llu, never-acked waits %llu, blocked on acks %llu)\n",
	       (unsigned long long)(shm->stat[ST_KILLS_RANDOM] +
				    shm->stat[ST_KILLS_TRAP] +
				    shm->stat[ST_KILLS_BLOCKED]),
	       (unsigned long long)shm->stat[ST_KILLS_RANDOM],
	       (unsigned long long)shm->stat[ST_KILLS_TRAP],
	       (unsigned long long)shm->stat[ST_KILLS_BLOCKED]);
	if (cfg.pct_kfault)
		printf("rdmachan-fuzz: kernel faults injected: %llu (fail-nth armed in %llu calls; %llu failed the call, the rest were absorbed)\n",
		       (unsigned long long)shm->stat[ST_KFAULT_FIRED],
		       (unsigned long long)shm->stat[ST_KFAULT_ARMED],
		       (unsigned long long)shm->stat[ST_KFAULT_FAILED]);
	else
		printf("rdmachan-fuzz: kernel faults injected: 0 (fail-nth %s)\n",
		       kfault_note);
	for (i = 0; i < NSTATS; i++)
		if ((i < ST_KILLS_RANDOM || i > ST_KILLS_BLOCKED) &&
		    i < ST_KFAULT_ARMED)
			printf("rdmachan-fuzz: %s: %llu\n", stat_names[i],
			       (unsigned long long)shm->stat[i]);
	if (have_counters) {
		print_counters("before:", before);
		printf("\n");
		print_counters("after: ", after);
		printf(" (%s)\n", counters_ok ? "back to before" : "LEAKED");
	} else {
		printf("rdmachan-fuzz: no %s/objects: live-object counters not checked\n",
		       DEBUGFS);
	}
	printf("rdmachan-fuzz: errors found: %d\n", shm->nfail);
	if (shm->nfail) {
		printf("rdmachan-fuzz: %d failure(s):\n", shm->nfail);
		for (i = 0; i < shm->nfail && i < MAX_FAIL; i++)
			printf("rdmachan-fuzz:   %s\n", shm->fail[i]);
	}
}

/*
 * fail-nth needs GFP_KERNEL allocations to be injection points; each
 * fault's stack in the kernel log would read as a kernel report.
 */
static struct {
	char path[128];
	char saved[32];
} knobs[16];
static int nknobs;

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static int knob_set(const char *path, const char *val)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0] || nknobs == (int)ARRAY_SIZE(knobs) || write_str(path, val))
		return -1;
	snprintf(knobs[nknobs].path, sizeof(knobs[0].path), "%s", path);
	snprintf(knobs[nknobs].saved, sizeof(knobs[0].saved), "%s", buf);
	nknobs++;
	return 0;
}

static void knobs_restore(void)
{
	while (nknobs > 0) {
		nknobs--;
		write_str(knobs[nknobs].path, knobs[nknobs].saved);
	}
}

static void on_term(int sig)
{
	knobs_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void kfault_setup(void)
{
	static const char *const quiet[] = {
		"failslab", "fail_page_alloc", "fail_usercopy", "fail_futex",
		"fail_function", "fail_make_request", "fail_io_timeout",
	};
	char path[128];
	size_t i;

	if (access("/proc/thread-self/fail-nth", W_OK)) {
		kfault_note = "not in this kernel";
		cfg.pct_kfault = 0;
		return;
	}
	if (knob_set("/sys/kernel/debug/failslab/ignore-gfp-wait", "N") ||
	    knob_set("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N") ||
	    knob_set("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N")) {
		knobs_restore();
		kfault_note = "cannot set failslab and fail_page_alloc in debugfs";
		cfg.pct_kfault = 0;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(quiet); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/verbose",
			 quiet[i]);
		knob_set(path, "0");
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rdmachan-fuzz [-s SEED] [-t SECONDS] [-j WORKERS] [-T THREADS]\n"
		"                     [-f FAULT%%] [-F KFAULT%%] [-w HANG_SECONDS] [-x CMD,...]\n"
		"                     [-A] [-k] [-K] [-v]\n"
		"  -s SEED     seed of the run (default: from the clock); printed\n"
		"  -t SECONDS  how long to run (default 60)\n"
		"  -j WORKERS  worker processes (default 2, at most %d)\n"
		"  -T THREADS  threads per worker (default 4, at most %d)\n"
		"  -f PERCENT  calls that get a fault (default 25)\n"
		"  -F PERCENT  calls that get a kernel fault through fail-nth: an\n"
		"              allocation or user copy on their path fails (default 0;\n"
		"              needs a kernel with fault injection)\n"
		"  -w SECONDS  a call this long with no ack outstanding is a hang (default 30)\n"
		"  -x CMD,...  leave these commands out (names as in uapi, e.g. NOTIFY)\n"
		"  -X CMD,...  kernel faults (-F) only in these commands\n"
		"  -A          only the test address (no loopback, IPv6, AF_IB, unreachable)\n"
		"  -k          also the calls that can make 6.1's CM send a REJ while the\n"
		"              id's REQ/REP is out (NOTIFY of an accepted request, moving a\n"
		"              CM id's QP, CM calls racing on one id): destroy and close\n"
		"              then block for 70-100 s, so the hang limit becomes 150 s\n"
		"  -K          no random kills of workers\n"
		"  -v          verbose\n", MAX_WORKERS, MAX_THREADS);
	exit(2);
}

int main(int argc, char **argv)
{
	struct counters before = {}, after = {};
	bool have_counters, counters_ok = true, kills = true;
	u64 start, next_kill, krng, seconds = 60;
	void *frame;
	int opt, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	master_seed = now_ns() ^ ((u64)getpid() << 32);
	nworkers = 2;
	nthreads = 4;
	cfg.pct_fault = 25;
	cfg.hang_limit = 30;
	cfg.page = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "s:t:j:T:f:F:w:x:X:AkKvh")) != -1) {
		switch (opt) {
		case 'x':
		case 'X':
			for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				for (i = 0; i < NCMD; i++)
					if (!strcasecmp(tok, cmds[i].name))
						break;
				if (i == NCMD)
					usage();
				if (opt == 'x')
					cfg.excluded[i] = true;
				else
					cfg.kfault_only[i] = true;
			}
			cfg.kfault_only_some |= opt == 'X';
			break;
		case 's':
			master_seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			nworkers = atoi(optarg);
			break;
		case 'T':
			nthreads = atoi(optarg);
			break;
		case 'f':
			cfg.pct_fault = atoi(optarg);
			break;
		case 'F':
			cfg.pct_kfault = atoi(optarg);
			break;
		case 'w':
			cfg.hang_limit = atoi(optarg);
			break;
		case 'A':
			cfg.only_test_addr = true;
			break;
		case 'k':
			cfg.known_slow = true;
			if (cfg.hang_limit < 150)
				cfg.hang_limit = 150;
			break;
		case 'K':
			kills = false;
			break;
		case 'v':
			cfg.verbose = true;
			break;
		default:
			usage();
		}
	}
	if (nworkers < 1 || nworkers > MAX_WORKERS || nthreads < 1 ||
	    nthreads > MAX_THREADS || cfg.hang_limit < 1)
		usage();
	printf("rdmachan-fuzz: seed %#llx, %llu s, %d workers x %d threads, %d%% faults (reproduce: -s %#llx)\n",
	       (unsigned long long)master_seed, (unsigned long long)seconds,
	       nworkers, nthreads, cfg.pct_fault,
	       (unsigned long long)master_seed);
	if (probe())
		return 2;
	if (cfg.pct_kfault)
		kfault_setup();
	printf("rdmachan-fuzz: kernel faults: %s\n", cfg.pct_kfault ?
	       "fail-nth in some calls" : kfault_note);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("rdmachan-fuzz: mmap");
		return 2;
	}
	/* grandchildren whose worker was killed are ours to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
	have_counters = !read_counters(&before);

	start = now_ns();
	run_end = start + seconds * NSEC;
	krng = master_seed ^ 0x5a5a5a5a;
	next_kill = kills ? start + (1000 + splitmix(&krng) % 5000) * MSEC : 0;
	/*
	 * Loads what the crash handler's backtrace() needs before any fork.
	 * A worker killed with fail-nth armed makes its exit's allocations
	 * fail; were libgcc_s mapped by the worker alone, its last close is
	 * then a failed 9p clunk, and the guest's 9p root server keeps a
	 * fid the client reuses: every later lookup there fails EINVAL.
	 */
	backtrace(&frame, 1);
	for (i = 0; i < nworkers; i++)
		spawn(i);
	while (now_ns() < run_end) {
		sleep_ns(100 * MSEC);
		reap_all(false);
		watch(&next_kill, &krng);
	}
	shm->stop = 1;
	/* workers end within seconds; a stuck one is a finding */
	for (i = 0; i < (cfg.hang_limit + 15) * 10; i++) {
		bool any = false;
		int k;

		reap_all(false);
		watch(&(u64){ 0 }, &krng);
		for (k = 0; k < nworkers; k++)
			any |= workers[k].pid > 0;
		if (!any)
			break;
		sleep_ns(100 * MSEC);
	}
	for (i = 0; i < nworkers; i++) {
		if (workers[i].pid > 0) {
			char msg[256];

			snprintf(msg, sizeof(msg),
				 "seed %#llx worker %d did not end %d s after the run",
				 (unsigned long long)master_seed, i,
				 cfg.hang_limit + 15);
			record_failure(msg);
			dump_ring(&shm->w[i].slots[0], "its thread 0");
			kill(workers[i].pid, SIGKILL);
			killed_flag[i] = true;
		}
	}
	/* everything, forked children included */
	reap_all(true);

	if (have_counters) {
		/* file release is asynchronous to exit: give it time */
		for (i = 0; i < 300; i++) {
			counters_ok = !read_counters(&after) &&
				      counters_equal(&before, &after);
			if (counters_ok)
				break;
			sleep_ns(100 * MSEC);
		}
		if (!counters_ok)
			record_failure("live-object counters not back to their values before the run");
	}
	knobs_restore();
	report(now_ns() - start, &before, &after, counters_ok, have_counters);
	printf("rdmachan-fuzz: verdict: %s (seed %#llx)\n",
	       shm->nfail ? "FAIL" : "PASS", (unsigned long long)master_seed);
	return shm->nfail ? 1 : 0;
}
