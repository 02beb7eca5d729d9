/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * librdmachan: what the library's files share.
 */
#ifndef RDMACHAN_LIB_INTERNAL_H
#define RDMACHAN_LIB_INTERNAL_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdma_core_compat.h"
#include "rdmachan.h"

#define RDMACHAN_EXPORT __attribute__((visibility("default")))
#define RDMACHAN_DEV_PATH "/dev/rdmachan"

/*
 * Reads DIR/FILE (sysfs) into BUF as a string without its trailing newline
 * and returns its length; -1 with errno when it cannot be read or does not
 * fit (lib/sysfs.c).
 */
int rdmachan_read_sysfs(const char *dir, const char *file, char *buf,
			size_t size);

/* An ibv_device as the library hands it out; programs only see @ibv. */
struct rdmachan_ibv_device {
	struct ibv_device ibv;
	uint32_t index;
	__be64 node_guid;
	/* the device cache, every device list and every open context */
	unsigned int refcount;
};

struct rdmachan_ibv_context {
	uint32_t handle;
	/* verbs_context must end with the ibv_context programs see */
	struct verbs_context vctx;
};

static inline struct rdmachan_ibv_device *to_rdev(struct ibv_device *dev)
{
	return (struct rdmachan_ibv_device *)dev;
}

static inline struct rdmachan_ibv_context *to_rctx(struct ibv_context *ctx)
{
	struct verbs_context *vctx =
		(struct verbs_context *)((char *)ctx -
					 offsetof(struct verbs_context, context));

	return (struct rdmachan_ibv_context *)((char *)vctx -
		offsetof(struct rdmachan_ibv_context, vctx));
}

int rdmachan_open_fd(void);
int rdmachan_ioctl(int fd, unsigned long cmd, void *arg);
bool rdmachan_has_features(uint64_t bits);
void rdmachan_device_put(struct rdmachan_ibv_device *dev);

/* The bodies of ibv_get_device_list() and friends, for internal callers. */
struct ibv_device **rdmachan_get_device_list(int *num);
void rdmachan_free_device_list(struct ibv_device **list);
struct ibv_context *rdmachan_open_device(struct ibv_device *device);
/* The kernel's index of @device, which CM events name it by. */
uint32_t rdmachan_device_index(struct ibv_device *device);
int rdmachan_close_device(struct ibv_context *context);
int rdmachan_query_device(struct ibv_context *context,
			  struct ibv_device_attr *attr);

int rdmachan_query_device_ex_op(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr,
				size_t attr_size);
int rdmachan_query_port_op(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *port_attr, size_t attr_len);

#endif /* RDMACHAN_LIB_INTERNAL_H */
