// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* struct ibv_device_attr_ex's 32-bit port count (rdma-core 34). */
#include <infiniband/verbs.h>

unsigned int probe(const struct ibv_device_attr_ex *attr);
unsigned int probe(const struct ibv_device_attr_ex *attr)
{
	return attr->phys_port_cnt_ex;
}
