// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel-owned mode's verbs for the CM: librdmachan's own, called by
 * their internal names so that an interposed ibv_* export is not taken.
 */
#include "mode.h"
#include "verbs_internal.h"

const struct cm_verbs kernel_cm_verbs = {
	.get_device_list = rdmachan_get_device_list,
	.free_device_list = rdmachan_free_device_list,
	.device_index = rdmachan_device_index,
	.open_device = rdmachan_open_device,
	.close_device = rdmachan_close_device,
	.query_device = rdmachan_query_device,
	.alloc_pd = vb_alloc_pd,
	.create_comp_channel = vb_create_comp_channel,
	.destroy_comp_channel = vb_destroy_comp_channel,
	.create_cq = vb_create_cq,
	.destroy_cq = vb_destroy_cq,
	.create_qp = vb_create_qp,
	.unbind_qp = vb_unbind_qp,
	.destroy_qp = vb_destroy_qp,
	.attach_mcast = vb_attach_mcast,
	.detach_mcast = vb_detach_mcast,
	.create_srq = vb_create_srq,
	.destroy_srq = vb_destroy_srq,
};
