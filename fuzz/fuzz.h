/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdmachan-fuzz: what its parts share: the model of a worker's files and
 * objects, the calls, the shared-memory report, and the helpers that make
 * and check a call. rdmachan_fuzz.c is the supervisor; worker.c a worker's
 * threads and their steps; model.c the model; calls.c making and checking
 * one call; errsets.c the errnos a call may return; names.c the names and
 * the command table; report.c time, randomness, statistics and failure
 * reports; file_actions.c files, devices and contexts; cm_actions.c the
 * CM id calls; cm_events.c and cm_event_actions.c the CM events, their
 * acknowledgements and the destroys and migrates that wait for them;
 * odd_calls.c unknown commands and forked children; verbs.c and
 * verbs_*.c the verbs objects and the data path (verbs.h says which file
 * holds what); cq_ring.c the mapped CQ rings; async_events.c the
 * asynchronous event files and acks.
 */
#ifndef RDMACHAN_FUZZ_H
#define RDMACHAN_FUZZ_H

#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>

#include "../uapi/rdmachan.h"

/* an errno's name for the log; strerrorname_np() is glibc 2.32's */
static inline const char *errno_name(int e)
{
#if __GLIBC_PREREQ(2, 32)
	const char *name = strerrorname_np(e);

	if (name)
		return name;
#endif
	/* a few at once in one message */
	static __thread char buf[4][24];
	static __thread unsigned int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "errno %d", e);
	return b;
}

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DEV_PATH	"/dev/rdmachan"
#define DEBUGFS		"/sys/kernel/debug/rdmachan"

#define MAX_WORKERS	16
#define MAX_THREADS	8
#define MAX_FILES	4
#define MAX_DUPS	3
#define MAX_OBJS	96
#define MAX_IDS		24	/* per file, made by this worker's create */
#define MAX_CTXS	4
#define MAX_EVS		96
#define DEAD_RING	64
#define ACKED_RING	256
#define MAX_ORPHANS	32
#define HIST_MAX	(1u << 20)
#define DESC_LEN	200
#define RING_LEN	16
#define MAX_FAIL	32
#define FAIL_LEN	1024
#define ARENA_LEN	(64 * 1024)
#define EV_SIZE		sizeof(struct rdmachan_cm_event)
#define POISON		0xa5
#define POISON32	0xa5a5a5a5u

#define NSEC		1000000000ull
#define MSEC		1000000ull

/* Commands, in the order of enum rdmachan_ioctl_nr. */
#define NCMD_CM		(RDMACHAN_CMD_MIGRATE_ID + 1)
/* The commands the module knows: the fuzzer makes all of them. */
#define NCMD_ABI	(RDMACHAN_CMD_QUERY_ASYNC_EVENTS + 1)
#define NCMD		NCMD_ABI
#define STAT_UNKNOWN	NCMD		/* calls of unknown commands */
#define STAT_CHILD	(NCMD + 1)	/* calls made by forked children */
#define NSTAT_CMDS	(NCMD + 2)

enum fault {
	F_NONE,
	F_UNKNOWN_CMD,
	F_BAD_DIR,
	F_ARG_NULL,
	F_ARG_UNMAPPED,
	F_ARG_KERNEL,
	F_ARG_STRADDLE_HDR,
	F_ARG_STRADDLE,
	F_ARG_READONLY,
	F_SIZE_SHORT,
	F_SIZE_LONG_ZERO,
	F_SIZE_LONG_TAIL,
	F_SIZE_HUGE,
	F_FLAGS,
	F_RESERVED,
	F_HANDLE_ZERO,
	F_HANDLE_HUGE,
	F_HANDLE_DEAD,
	F_HANDLE_WRONG_TYPE,
	F_HANDLE_OTHER_FILE,
	F_HANDLE_RANDOM,
	F_VALUE,
	F_PTR,
	F_ACK_BAD,
	F_CHILD,
	NFAULTS,
};

enum fz_stat {
	ST_EVENTS,
	ST_ACKS,
	ST_ACKS_REFUSED,
	ST_CONNECT_REQUESTS,
	ST_ESTABLISHED,
	ST_REFUSED,
	ST_DISCONNECTED,
	ST_EINTR,
	ST_EAGAIN,
	ST_EVENT_DROPPED_IN_SLOT,
	ST_CM_ERRORS,
	ST_FILES_OPENED,
	ST_FILES_CLOSED,
	ST_CLOSE_DURING_CALL,
	ST_ENOTTY_CLOSED,
	ST_FORKS,
	ST_DESTROY_DEFERRED,
	ST_DESTROY_TRAPPED,
	ST_MIGRATES,
	ST_WORKERS,
	ST_KILLS_RANDOM,
	ST_KILLS_TRAP,
	ST_KILLS_BLOCKED,
	ST_VERBS_OBJS,
	ST_QP_RTS,
	ST_QP_CM,
	ST_QP_DEVICE_ERR,
	ST_WRS_POSTED,
	ST_WCS,
	ST_WC_ERRORS,
	ST_CQ_EVENTS,
	ST_CQ_EVENTS_STALE,
	ST_CHANNELS_CLOSED,
	ST_SCRATCH_REMAPS,
	ST_ASYNC_FDS,
	ST_ASYNC_FDS_CLOSED,
	ST_ASYNC_EVENTS,
	ST_ASYNC_EVENTS_STALE,
	ST_ASYNC_ACKS,
	ST_ASYNC_ACKS_REFUSED,
	ST_ASYNC_DESTROY_WAITS,
	ST_RING_WCS,
	ST_RING_UPDATES,
	ST_RING_UNMAPS,
	ST_MODEL_LOST,
	ST_KFAULT_ARMED,
	ST_KFAULT_FIRED,
	ST_KFAULT_FAILED,
	NSTATS,
};

/* Per thread in shared memory: what it is doing, for the watchdog. */
struct slot {
	volatile int in_call;
	/* 1: waits for acks another thread gives; 2: for acks never given */
	volatile int may_block;
	volatile u64 start_ns;
	volatile u64 kill_after_ns;
	volatile u64 calls;
	volatile int cmd;
	char desc[DESC_LEN];
	volatile u32 ring_pos;
	char ring[RING_LEN][DESC_LEN];
};

struct wshm {
	volatile pid_t pid;
	volatile int gen;
	volatile int nthreads;
	volatile u64 seed;
	/* not killed before this: it is writing out a failure */
	volatile u64 reporting_until_ns;
	struct slot slots[MAX_THREADS];
};

struct shm {
	volatile int stop;
	volatile u64 calls[NSTAT_CMDS];
	volatile u64 faults[NFAULTS];
	volatile u64 stat[NSTATS];
	volatile int nfail;
	char fail[MAX_FAIL][FAIL_LEN];
	struct wshm w[MAX_WORKERS];
};

extern struct shm *shm;

struct cmd_info {
	const char *name;
	u32 size;
	bool output;
	/* a field that must be zero, or -1 */
	int rsv_off, rsv_len;
	/* the handle field and what it names: 0 none, 1 context, 2 CM id, 3 any */
	int handle_kind;
};

#define HK_NONE	0
#define HK_CTX	1
#define HK_ID	2
#define HK_ANY	3
/* verbs objects: HK_PD + (enum vkind - V_PD) */
#define HK_PD	4
#define HK_MR	5
#define HK_CQ	6
#define HK_QP	7
#define HK_SRQ	8
#define HK_AH	9

extern const struct cmd_info cmds[NCMD];

/* Errnos as a set; bit 0 stands for success. */
struct errset {
	u64 b[3];
};

enum id_state {
	S_NEW, S_BOUND, S_ADDR_QUERY, S_ADDR_RESOLVED, S_ROUTE_QUERY,
	S_ROUTE_RESOLVED, S_LISTEN, S_CONNECTING, S_REQ, S_ACCEPTED,
	S_RESPONDED, S_CONNECTED, S_DISCONNECTED, S_FAILED, NSTATES,
};

enum role { R_CLIENT, R_LISTENER, R_SERVER };

struct mobj {
	bool used, ctx, dying, has_port;
	/* a CONNECT/ACCEPT/REJECT/ESTABLISH in flight; an accept was tried */
	bool cm_busy, accepted;
	u8 state, role;
	u32 ps;
	u32 handle;
	u16 port;		/* network order */
	int racers;		/* destroys racing the one that marked it dying */
	u64 dying_ns;		/* when a destroy or migrate of it began */
	/* user_context now, before, and of an accept in flight */
	u64 uctx, prev_uctx, pending_uctx;
};

enum ev_state { E_FREE, E_UNACKED, E_CLAIMED, E_DEFERRED, E_TRAPPED };

struct mev {
	u8 state;
	u32 handle, id_handle, type;
	u64 due_ns;
};

/* An id migrated into a file: the handle it had in its old file. */
struct migr {
	u32 old_h, new_h;
	u64 uctx, prev_uctx, pending_uctx;
	u32 seq_begin, seq_end;	/* seq_end 0: in flight */
};

#define MIGR_RING	32

struct orphan {
	u32 id_handle, type, start_seq;
	u64 uctx;
	u64 ns;
	char desc[DESC_LEN];
};

enum { FS_CLOSED, FS_OPEN, FS_CLOSING };

/*
 * hist[h]: 0 never known, HIST_LIVE, else (seq << 2) | HIST_DESTROYED or
 * HIST_MIGRATED: when and how h went away.
 */
#define HIST_LIVE	1u
#define HIST_DESTROYED	2u
#define HIST_MIGRATED	3u

/* Verbs objects of a file (verbs_model.c), kinds in HK_* order. */
enum vkind { V_PD, V_MR, V_CQ, V_QP, V_SRQ, V_AH, NVKINDS };

#define MAX_VOBJS	40
#define MAX_CHANS	4
#define MAX_ASYNC	8
/* enum ibv_event_type, to IBV_EVENT_WQ_FATAL */
#define ASYNC_TYPES	(IBV_EVENT_WQ_FATAL + 1)
#define DEAD_LKEYS	16

/* QP states, as enum ibv_qp_state */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

struct vobj {
	bool used;
	/* a destroy of it is in flight, begun at @dying_ns */
	bool dying;
	u8 kind;
	u64 dying_ns;
	u32 handle;
	/* calls in flight that name it */
	int busy;
	/* MR, QP, SRQ, AH: its PD */
	u32 pd;
	/* MR */
	u64 iova, len;
	u32 lkey, rkey, access;
	/*
	 * CQ: its channel (index i in the worker's, -1 none, -2 - i: i closed),
	 * its user_context, events taken and not acked, armed at least once
	 */
	int chan;
	u64 tag;
	u32 cq_unacked;
	bool armed;
	/*
	 * CQ made with RDMACHAN_CREATE_CQ_RING: POLL_CQ is EINVAL on it; its
	 * mapping, completions read from it, the consumer index the module
	 * was given, an UPDATE_CQ_RING in flight
	 */
	bool ring;
	void *ring_map;
	u32 ring_size, ring_entries, ring_seen, ring_cons;
	bool ring_busy;
	/*
	 * QP; @mods counts the MODIFY_QPs begun on it, @mods_ended those
	 * that returned; @posted: requests were posted to it
	 */
	u8 qpt, qps;
	u32 mods, mods_ended;
	bool cm, posted;
	u32 qpn, send_cq, recv_cq, srq;
	u32 max_send_sge, max_recv_sge, max_inline;
	/* SRQ */
	u32 max_sge;
	/*
	 * PD, CQ, QP, SRQ: the device context it reports async events to;
	 * QP, SRQ: its user_context (a CQ's is @tag)
	 */
	u32 ctx;
	u64 uctx;
	/*
	 * QP, CQ, SRQ: async events read and not acknowledged, by type; acks
	 * in flight; when acks its destroy waits for are due (0: none owed)
	 */
	u8 aunacked[ASYNC_TYPES];
	u32 aclaimed;
	u64 ack_due_ns;
};

struct vgone {
	u32 handle;
	u8 kind;
	u64 dying_ns;
};

/* A device context's asynchronous event file, of the worker process. */
struct vasync {
	bool used;
	int fd;
	/* the context: of file @fi in its generation @gen */
	int fi, gen;
	u32 ctx;
	bool nonblock;
	/* calls in flight on it, of them blocking ones */
	int busy, blocked;
	/* closed, its fd is /dev/null until no call can use the number */
	bool stale;
};

/* A completion channel: a file of its own, of the worker process. */
struct vchan {
	bool used;
	int fd;
	/* calls in flight on it, of them blocked in GET_CQ_EVENT */
	int busy, blocked;
	/* closed, its fd is /dev/null until no call can use the number */
	bool stale;
};

struct mfile {
	struct worker *w;
	int idx;
	int state, gen;
	int fds[MAX_DUPS], nfds;
	int pins, readers;
	u32 reader_epoch;
	bool nonblock;
	u32 nb_seq;
	int nids, nctx, ev_reserved;
	struct mobj objs[MAX_OBJS];
	struct mev evs[MAX_EVS];
	u32 *hist;
	u32 hist_len;
	u32 dead[DEAD_RING], ndead;
	u32 acked[ACKED_RING], nacked;
	struct orphan orphans[MAX_ORPHANS];
	int norphans;
	struct migr migr[MIGR_RING];
	u32 nmigr;
	struct vobj vobjs[MAX_VOBJS];
	/* lkeys of destroyed MRs */
	u32 dead_lkeys[DEAD_LKEYS], ndead_lkeys;
	/* destroyed verbs objects and when their destroy began */
	struct vgone vgone[DEAD_RING];
	u32 nvgone;
};

struct worker;

struct thr {
	struct worker *w;
	int idx;
	pthread_t pt;
	pid_t tid;
	u64 rng;
	struct slot *slot;
	timer_t timer;
	bool have_timer;
	u8 *argmap, *bufmap, *rw_view, *ro_view;
	u64 ncalls;
	int cur_fi, cur_src_fi, cur_cmd;
	/* the call this thread is in, under the worker's lock */
	const struct call *cur_call;
	/* /proc/thread-self/fail-nth, or -1 */
	int nth_fd;
	/* the next action is about this id, the plausible way */
	struct mobj *force;
	int force_fi;
};

#define JOURNAL_LEN	4096
#define JOURNAL_LINE	240

struct worker {
	int index, gen;
	/* what happened, for the failure report */
	char (*journal)[JOURNAL_LINE];
	u32 njournal;
	bool journal_dumped;
	u64 seed;
	struct wshm *ws;
	pthread_mutex_t lock;
	struct mfile files[MAX_FILES];
	u32 seq;
	int nullfd;
	u32 qpn;
	volatile int stop;
	int nthr;
	struct thr thr[MAX_THREADS];
	struct vchan chans[MAX_CHANS];
	struct vasync asyncs[MAX_ASYNC];
	/* forked children alive (they hold the async files too); destroys
	 * waiting for acks other threads owe
	 */
	int forks, async_waits;
	/* memory that MRs are made of and that is unmapped under them */
	u8 *mr_mem;
	u64 wr_seq;
};

/* What every worker knows from the supervisor's probe. */
struct fz_cfg {
	u32 dev_index;
	u32 gid_tbl_len;
	dev_t rdev;
	struct in_addr addr;
	long page;
	int pct_fault;
	int hang_limit;
	bool verbose;
	bool only_test_addr;
	bool known_slow;
	/* calls that get a kernel fault through fail-nth, in percent */
	int pct_kfault;
	/* RDMACHAN_FEATURE_VERBS: the port's RoCE v2 GID of the address */
	bool verbs;
	int gid_index;
	u8 gid[16];
	u32 num_comp_vectors;
	bool excluded[NCMD];
	/* -X: kernel faults only in these */
	bool kfault_only[NCMD], kfault_only_some;
};

extern struct fz_cfg cfg;

struct call {
	int cmd;		/* RDMACHAN_CMD_*, or -1 for an unknown one */
	unsigned long ioc;
	int fi, gen, fd;
	int fault;
	bool blocking;		/* arm the interrupt timer */
	bool handle_unsure;	/* the handle may name an object unknown here */
	u32 target;		/* the live object the call is about, or 0 */
	int tstate;		/* its state in the model, for the record */
	u32 tps;		/* and its port space */
	union {
		u8 raw[1024];
		struct rdmachan_get_info get_info;
		struct rdmachan_list_devices list_devices;
		struct rdmachan_open_device open_device;
		struct rdmachan_destroy destroy;
		struct rdmachan_query_device query_device;
		struct rdmachan_query_port query_port;
		struct rdmachan_query_gid query_gid;
		struct rdmachan_create_id create_id;
		struct rdmachan_bind_addr bind_addr;
		struct rdmachan_resolve_addr resolve_addr;
		struct rdmachan_id_cmd id_cmd;
		struct rdmachan_connect connect;
		struct rdmachan_reject reject;
		struct rdmachan_get_events get_events;
		struct rdmachan_set_option set_option;
		struct rdmachan_init_qp_attr init_qp_attr;
		struct rdmachan_migrate_id migrate_id;
		struct rdmachan_create_comp_channel create_comp_channel;
		struct rdmachan_get_cq_event get_cq_event;
		struct rdmachan_alloc_pd alloc_pd;
		struct rdmachan_reg_mr reg_mr;
		struct rdmachan_create_cq create_cq;
		struct rdmachan_notify_cq notify_cq;
		struct rdmachan_poll_cq poll_cq;
		struct rdmachan_create_qp create_qp;
		struct rdmachan_modify_qp modify_qp;
		struct rdmachan_post post;
		struct rdmachan_create_srq create_srq;
		struct rdmachan_modify_srq modify_srq;
		struct rdmachan_create_ah create_ah;
		struct rdmachan_join_mcast join_mcast;
		struct rdmachan_open_async_fd open_async_fd;
		struct rdmachan_get_async_event get_async_event;
		struct rdmachan_ack_async_event ack_async_event;
		struct rdmachan_update_cq_ring update_cq_ring;
		struct rdmachan_bind_user_qp bind_user_qp;
		struct rdmachan_query_events query_events;
		struct rdmachan_query_async_events query_async_events;
	} a;
	u32 ksize;		/* sizeof the struct */
	u32 usize;		/* what the size field says */
	void *uptr;		/* where the kernel finds it */
	bool readback;		/* uptr is ours, readable, and a copy of a */
	u32 tail_off;		/* F_SIZE_LONG_TAIL: where the non-zero byte is */
	u32 dirty_lo, dirty_hi;	/* what place() wrote into the arena */
	u64 end_ns;		/* when the ioctl returned */
	struct errset ok;	/* allowed results, bit 0 = success */
	bool ran;		/* the handler ran (no pre-handler fault) */
	bool closing;		/* the file was closed around the call */
	bool no_kfault;		/* a call the model needs to succeed */
	const char *why;	/* what F_VALUE or F_PTR did, for the record */
	/* verbs objects it names: a destroy of one makes ENOENT right */
	u32 vnamed[6];
	int nvnamed;
	bool kfault;		/* fail-nth went off in the call */
	struct vchan *chan;	/* the completion channel it is made on */
	struct vasync *async;	/* the async event file it is made on */
	u32 start_seq;
	int ret, err;
	char desc[DESC_LEN];
};

/* rdmachan_fuzz.c */
u64 now_ns(void);
u32 rnd(struct thr *t, u32 n);
u64 rnd64(struct thr *t);
bool chance(struct thr *t, u32 pct);
void stat_add(int st, u64 n);
void fail(struct thr *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void record_failure(const char *msg);
void lock(struct worker *w);
void unlock(struct worker *w);
void journal(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void journal_dump(struct worker *w, int fi);
u32 hist_get(struct mfile *f, u32 h);
void hist_set(struct mfile *f, u32 h, u32 v);
void pin(struct mfile *f);
void unpin(struct mfile *f);
int pick_file(struct thr *t);
int pick_fd(struct thr *t, struct mfile *f);
struct mobj *pick_obj(struct thr *t, struct mfile *f, bool want_ctx,
		      u32 states, bool allow_dying);
void call_init(struct call *c, int cmd, int fi, int gen, int fd);
void inject(struct thr *t, struct call *c, struct mfile *hf);
void do_call(struct thr *t, struct call *c, int may_block, u64 timer_ns);
void es_add(struct errset *s, int e);
bool es_has(const struct errset *s, int e);
void es_del(struct errset *s, int e);
struct errset es_of(const int *list);
void es_merge(struct errset *s, struct errset o);

#define ES(...)	es_of((const int[]){ __VA_ARGS__, -1 })

struct thr *self_thr(struct worker *w);

/* verbs.c */
void verbs_step(struct thr *t);
int verbs_setup(int fd, u32 ctx);

/* verbs_model.c */
struct vobj *vobj_find(struct mfile *f, u32 h, int kind);
struct vobj *vobj_pick(struct thr *t, struct mfile *f, int kind, bool usable);
void name(struct call *c, struct vobj *o);
void unname(struct mfile *f, struct call *c);
void verbs_file_gone(struct mfile *f);
u32 vobj_pick_handle(struct thr *t, struct mfile *f, int hk, bool other);
bool vobj_raced(struct mfile *f, const struct call *c);

/* verbs_cq.c */
void check_wc(struct thr *t, struct call *c, int fi,
	      const struct rdmachan_wc *wc, const u8 *tail, u32 tlen);

/* async_events.c */
void open_async(struct thr *t, int fi, struct mobj *ctx, bool quiet);
void act_open_async(struct thr *t);
void act_close_async(struct thr *t);
void act_get_async(struct thr *t);
void act_ack_async(struct thr *t);
void async_ack_due(struct thr *t);
bool async_owed(struct mfile *f);
int async_settle(struct thr *t, int fi, struct mfile *f, struct vobj *o);
void async_check_destroyed(struct thr *t, const struct call *c,
			   const struct vobj *o);
void async_child(struct thr *t, u64 *calls, int *bad);
bool ctx_live(struct mfile *f, u32 h);

/* cq_ring.c */
void ring_map(struct thr *t, const struct call *c, struct mfile *f,
	      struct vobj *o, const struct rdmachan_create_cq *a);
void ring_unmap(struct thr *t, struct vobj *o, const char *why);
void act_read_ring(struct thr *t);

/* names.c */
extern const char *const fault_names[NFAULTS];
extern const char *const stat_names[NSTATS];
extern const char *const state_names[NSTATES];

/* errsets.c */
void es_str(const struct errset *s, char *buf, size_t len);
struct errset cm_errs(int cmd);

/* report.c */
void sleep_ns(u64 ns);
u64 splitmix(u64 *s);
void put_str(int fd, const char *s);
void dump_ring(struct slot *s, const char *who);

/* model.c */
bool hist_gone(struct mfile *f, u32 h);
struct mobj *obj_find(struct mfile *f, u32 h);
struct mobj *obj_add(struct worker *w, struct mfile *f, u32 h, bool ctx);
void obj_gone(struct worker *w, struct mfile *f, struct mobj *o,
		     bool migrated);
struct mev *ev_find(struct mfile *f, u32 h);
bool acked_recently(struct mfile *f, u32 h);
void ev_acked(struct mfile *f, struct mev *e);
int nevents(struct mfile *f, int state, u32 id_handle);
int free_ev_slots(struct mfile *f);
void file_finish_close(struct mfile *f);

/* calls.c */
void slot_begin(struct thr *t, struct call *c, int may_block);
void slot_end(struct thr *t);
u32 field32(struct call *c, size_t off);
bool destructive(int cmd);
bool benign(const struct call *c);
void mark_dying(struct mobj *o);

/* cm_events.c */
const char *ev_name(u32 type);
bool all_zero(const void *p, size_t len);
void take_event(struct thr *t, struct call *c, int fi, const u8 *raw,
		       u32 stride);
void check_orphans(struct thr *t);

/* file_actions.c */
void act_open(struct thr *t);
void act_close(struct thr *t);
void act_nonblock(struct thr *t);
void act_get_info(struct thr *t);
void act_list_devices(struct thr *t);
void act_open_device(struct thr *t);
void act_query(struct thr *t);

/* cm_actions.c */
void act_create_id(struct thr *t, int role);
void act_bind(struct thr *t);
u16 listener_port(struct thr *t, u32 ps);
void act_resolve_addr(struct thr *t);
void act_id_cmd(struct thr *t, int cmd);
void act_connect(struct thr *t, int cmd);
void act_reject(struct thr *t);
void act_set_option(struct thr *t);
void act_bind_user_qp(struct thr *t);
void act_query_events(struct thr *t);
void act_init_qp_attr(struct thr *t);

/* cm_event_actions.c */
u32 claim_events(struct thr *t, struct mfile *f, u32 *handles, u32 max,
			u32 id_handle, bool due_only);
void release_claims(struct mfile *f, const u32 *handles, u32 n,
			   bool acked);
void act_get_events(struct thr *t, bool deferred_only);
void act_ack(struct thr *t, bool deferred_only);
void act_destroy(struct thr *t);
void act_migrate(struct thr *t);

/* odd_calls.c */
void act_unknown(struct thr *t);
void act_fork(struct thr *t);

/* worker.c */
void worker_main(int index, int gen, u64 seed, int nthr, u64 end_ns);

#endif /* RDMACHAN_FUZZ_H */
