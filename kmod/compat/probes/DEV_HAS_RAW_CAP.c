// SPDX-License-Identifier: GPL-2.0
/* CAP_NET_RAW is asked in the user namespace that owns the device's netns. */
#include <rdma/ib_verbs.h>

bool rdmachan_probe(const struct ib_device *dev);
bool rdmachan_probe(const struct ib_device *dev)
{
	return rdma_dev_has_raw_cap(dev);
}
