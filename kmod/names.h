/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: the names that debugfs, fdinfo and the kernel log print for
 * the module's and the RDMA core's enums (names.c). Included by
 * rdmachan.h; the async event types' name is declared with them in
 * verbs.h, the CM id states' where they are kept (cm_id_state.c).
 */
#ifndef RDMACHAN_NAMES_H
#define RDMACHAN_NAMES_H

#include <linux/types.h>

const char *rdmachan_cm_event_name(u32 type);
const char *rdmachan_counter_name(u32 counter);
const char *rdmachan_async_element_name(u32 element);
const char *rdmachan_qp_state_name(u32 state);
const char *rdmachan_port_space_name(u32 ps);

#endif /* RDMACHAN_NAMES_H */
