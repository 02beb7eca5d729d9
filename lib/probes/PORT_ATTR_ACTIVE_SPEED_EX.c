// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* struct ibv_port_attr's 32-bit speed (rdma-core 50). */
#include <infiniband/verbs.h>

uint32_t probe(const struct ibv_port_attr *attr);
uint32_t probe(const struct ibv_port_attr *attr)
{
	return attr->active_speed_ex;
}
