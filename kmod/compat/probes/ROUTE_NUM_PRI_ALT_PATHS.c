// SPDX-License-Identifier: GPL-2.0
/* struct rdma_route counts its path records in num_pri_alt_paths (was num_paths). */
#include <rdma/rdma_cm.h>

int rdmachan_probe(struct rdma_route *route);
int rdmachan_probe(struct rdma_route *route)
{
	return route->num_pri_alt_paths;
}
