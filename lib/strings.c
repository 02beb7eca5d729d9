// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: names of verbs enum values, as libibverbs prints them.
 */
#include "internal.h"

RDMACHAN_EXPORT const char *ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const names[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type < IBV_NODE_CA || node_type > IBV_NODE_UNSPECIFIED)
		return "unknown";
	return names[node_type];
}

RDMACHAN_EXPORT const char *ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "no state change (NOP)",
		[IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init",
		[IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active",
		[IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	if (port_state < IBV_PORT_NOP || port_state > IBV_PORT_ACTIVE_DEFER)
		return "unknown";
	return names[port_state];
}
