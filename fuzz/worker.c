// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: a worker process: its threads, each step's choice of
 * action, and the worker's end.
 */
#include "fuzz.h"

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

void worker_main(int index, int gen, u64 seed, int nthr, u64 end_ns)
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
