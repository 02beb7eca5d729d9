// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: the names the log gives faults, statistics and id states, and the
 * table of commands: each one's struct, size, output and handle kind.
 */
#include "fuzz.h"

const char *const fault_names[NFAULTS] = {
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

const char *const stat_names[NSTATS] = {
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

const char *const state_names[NSTATES] = {
	"new", "bound", "addr-query", "addr-resolved", "route-query",
	"route-resolved", "listen", "connecting", "request", "accepted",
	"responded", "connected", "disconnected", "failed",
};
