/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The two data-path modes of the library. Kernel-owned: verbs objects are
 * the module's (verbs_*.c). Bypass: they are the system libibverbs' and
 * its provider's, and the module only drives the QP of a CM id bound to it
 * (system_verbs.c). librdmachan picks one per process (mode.c); each
 * drop-in library is built for one.
 */
#ifndef RDMACHAN_LIB_MODE_H
#define RDMACHAN_LIB_MODE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdma_core_compat.h"

/* Whether this process's verbs are the system's (decided once). */
bool lib_bypass(void);

/*
 * The verbs the CM makes for its ids (rdma_get_devices, rdma_create_qp,
 * rdma_create_ep, ...), from the library that owns verbs in this mode. A
 * QP made with @cm_fd >= 0 is tied to the CM id @cm_id of that channel:
 * the module drives its state.
 */
struct cm_verbs {
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	/* the kernel's index of @device, which CM events name it by */
	uint32_t (*device_index)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	int (*close_device)(struct ibv_context *context);
	int (*query_device)(struct ibv_context *context,
			    struct ibv_device_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *context);
	int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    void *cq_context,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr,
				    int cm_fd, uint32_t cm_id);
	/* before a CM id's QP is destroyed: the module drives it no more */
	void (*unbind_qp)(int cm_fd, uint32_t cm_id);
	int (*destroy_qp)(struct ibv_qp *qp);
	/* a CM id's QP joins and leaves a multicast group */
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			     uint16_t lid);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
};

extern const struct cm_verbs kernel_cm_verbs;	/* verbs_cm.c */
extern const struct cm_verbs system_cm_verbs;	/* system_verbs.c */

/*
 * Whether a verbs destroy that failed with @err may be made again on the
 * same object. The module never soon hands a freed handle out again, but
 * uverbs gives a new object the lowest free one: after a destroy that
 * failed once uverbs had freed the object (its reply not copied out),
 * another thread's new object may hold that handle. In bypass mode only a
 * failed allocation, which comes before the destroy, is repeated.
 */
static inline bool verbs_destroy_may_repeat(int err)
{
	return !lib_bypass() || err == ENOMEM;
}

/* The CM's verbs in this process's mode (defined with lib_bypass()). */
const struct cm_verbs *cm_verbs(void);

/*
 * The system libibverbs' functions that librdmachan also exports, loaded
 * once (system_verbs.c). In bypass mode each export is the system's own,
 * so that objects the system made never reach librdmachan's verbs, even
 * when libibverbs or its provider calls an ibv_* function by name and the
 * dynamic loader hands it librdmachan's.
 */
/* exported by libibverbs, declared only in its private headers */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#define SYSTEM_VERBS(X)							\
	X(ibv_get_device_list) X(ibv_free_device_list)			\
	X(ibv_get_device_name) X(ibv_get_device_guid)			\
	X(ibv_get_device_index) X(ibv_open_device) X(ibv_close_device)	\
	X(ibv_query_device) X(ibv_query_port) X(ibv_query_gid)		\
	X(ibv_query_pkey) X(ibv_get_pkey_index)				\
	X(_ibv_query_gid_ex) X(_ibv_query_gid_table)			\
	X(ibv_get_async_event) X(ibv_ack_async_event)			\
	X(ibv_alloc_pd) X(ibv_dealloc_pd) X(ibv_reg_mr)			\
	X(ibv_reg_mr_iova) X(ibv_reg_mr_iova2) X(ibv_dereg_mr)		\
	X(ibv_create_comp_channel) X(ibv_destroy_comp_channel)		\
	X(ibv_create_cq) X(ibv_destroy_cq) X(ibv_get_cq_event)		\
	X(ibv_ack_cq_events)						\
	X(ibv_create_qp) X(ibv_modify_qp) X(ibv_query_qp)		\
	X(ibv_destroy_qp) X(ibv_attach_mcast) X(ibv_detach_mcast)	\
	X(ibv_create_srq) X(ibv_modify_srq) X(ibv_query_srq)		\
	X(ibv_destroy_srq)						\
	X(ibv_create_ah) X(ibv_destroy_ah) X(ibv_init_ah_from_wc)	\
	X(ibv_create_ah_from_wc)					\
	X(ibv_fork_init) X(ibv_dontfork_range) X(ibv_dofork_range)

/* Verbs some rdma-core releases lack: NULL when the system's has not. */
#define SYSTEM_VERBS_OPTIONAL(X)					\
	X(ibv_is_fork_initialized)					\
	X(ibv_alloc_buf) X(ibv_free_buf) X(ibv_reg_buf_mr)

#define SYSTEM_VERB_FIELD(fn) __typeof__(fn) *fn;
struct system_verbs {
	SYSTEM_VERBS(SYSTEM_VERB_FIELD)
	SYSTEM_VERBS_OPTIONAL(SYSTEM_VERB_FIELD)
};
#undef SYSTEM_VERB_FIELD

/* The system's libibverbs, or NULL when it cannot be loaded. */
const struct system_verbs *system_verbs(void);

/*
 * The first line of each verb librdmachan exports: in bypass mode the
 * call is the system's. The name is in parentheses so that a function-like
 * macro of <infiniband/verbs.h> of the same name is not expanded.
 */
#define RETURN_IF_BYPASS(fn, ...)					\
	do {								\
		if (lib_bypass())					\
			return (system_verbs()->fn)(__VA_ARGS__);	\
	} while (0)

#define RETURN_VOID_IF_BYPASS(fn, ...)					\
	do {								\
		if (lib_bypass()) {					\
			(system_verbs()->fn)(__VA_ARGS__);		\
			return;						\
		}							\
	} while (0)

#endif /* RDMACHAN_LIB_MODE_H */
