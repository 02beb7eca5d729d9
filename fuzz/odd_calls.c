// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: calls that must fail: unknown commands, and every call
 * of a forked child.
 */
#include "fuzz.h"

void act_unknown(struct thr *t)
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

void act_fork(struct thr *t)
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
