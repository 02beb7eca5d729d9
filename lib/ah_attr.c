// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: address vectors between struct ibv_ah_attr and the
 * module's struct rdmachan_ah_attr. Shared by librdmachan and bypass
 * mode's librdmacm, so it defines no ibv_* function.
 */
#include <string.h>

#include "internal.h"
#include "verbs_internal.h"

void vb_ah_attr_to_kern(struct rdmachan_ah_attr *dst,
			const struct ibv_ah_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid, src->grh.dgid.raw, sizeof(dst->dgid));
	dst->flow_label = src->grh.flow_label;
	dst->sgid_index = src->grh.sgid_index;
	dst->hop_limit = src->grh.hop_limit;
	dst->traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

void vb_ah_attr_from_kern(struct ibv_ah_attr *dst,
			  const struct rdmachan_ah_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->grh.dgid.raw, src->dgid, sizeof(dst->grh.dgid.raw));
	dst->grh.flow_label = src->flow_label;
	dst->grh.sgid_index = src->sgid_index;
	dst->grh.hop_limit = src->hop_limit;
	dst->grh.traffic_class = src->traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}
