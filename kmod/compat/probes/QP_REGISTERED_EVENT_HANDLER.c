// SPDX-License-Identifier: GPL-2.0
/* The core calls its own QP event handler and keeps its creator's aside. */
#include <rdma/ib_verbs.h>

bool rdmachan_probe(const struct ib_qp *qp);
bool rdmachan_probe(const struct ib_qp *qp)
{
	return qp->registered_event_handler;
}
