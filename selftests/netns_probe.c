// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a process sees of RDMA devices from its network namespace, for
 * selftests/netns_test.sh:
 *
 *   netns_probe INDEX ADDR
 *
 * prints "devices N" (ibv_get_device_list through librdmachan), "open E"
 * (errno of RDMACHAN_IOC_OPEN_DEVICE on device INDEX, 0 when it worked)
 * and "bind E" (errno of rdma_bind_addr to ADDR, 0 when it worked).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdmachan.h"

static int open_device(unsigned int index)
{
	struct rdmachan_open_device cmd = {
		.size = sizeof(cmd), .device_index = index,
	};
	int fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, RDMACHAN_IOC_OPEN_DEVICE, &cmd))
		err = errno;
	close(fd);
	return err;
}

static int bind_addr(const char *addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	int err = 0;

	if (!ch)
		return errno;
	inet_pton(AF_INET, addr, &sin.sin_addr);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		err = errno;
	} else {
		if (rdma_bind_addr(id, (struct sockaddr *)&sin))
			err = errno;
		rdma_destroy_id(id);
	}
	rdma_destroy_event_channel(ch);
	return err;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	int n = -1;

	if (argc != 3) {
		fprintf(stderr, "usage: %s INDEX ADDR\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	printf("devices %d\n", list ? n : -errno);
	printf("open %d\n", open_device((unsigned int)strtoul(argv[1], NULL, 0)));
	printf("bind %d\n", bind_addr(argv[2]));
	return 0;
}
