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
 * a third of the steps are verbs*.c's, cq_ring.c's (mapped CQ rings) and
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
 *
 * This file is the supervisor: the options, the workers it forks, kills
 * and reaps, the module's counters before and after, the kernel fault
 * knobs, and the report. fuzz.h says which file holds the rest.
 */
#include "fuzz.h"

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
