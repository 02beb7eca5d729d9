// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: sets of errnos: what a call may return, and the RDMA CM's own
 * errnos for a call its state refuses.
 */
#include "fuzz.h"

void es_add(struct errset *s, int e)
{
	if (e >= 0 && e < 192)
		s->b[e / 64] |= 1ull << (e % 64);
}

bool es_has(const struct errset *s, int e)
{
	return e >= 0 && e < 192 && (s->b[e / 64] >> (e % 64) & 1);
}

void es_del(struct errset *s, int e)
{
	if (e >= 0 && e < 192)
		s->b[e / 64] &= ~(1ull << (e % 64));
}

struct errset es_of(const int *list)
{
	struct errset s = {};

	for (; *list >= 0; list++)
		es_add(&s, *list);
	return s;
}

void es_merge(struct errset *s, struct errset o)
{
	int i;

	for (i = 0; i < 3; i++)
		s->b[i] |= o.b[i];
}

void es_str(const struct errset *s, char *buf, size_t len)
{
	size_t n = 0;
	int e;

	buf[0] = '\0';
	for (e = 0; e < 192 && n + 16 < len; e++) {
		if (!es_has(s, e))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
			      e ? errno_name(e) : "0");
	}
}

/* The RDMA CM's own errnos for a call its state or its input refuses. */
struct errset cm_errs(int cmd)
{
	struct errset s = ES(EINVAL, ENOMEM);

	switch (cmd) {
	case RDMACHAN_CMD_BIND_ADDR:
		/* EPROTONOSUPPORT: no port space for the address (AF_IB) */
		es_merge(&s, ES(EADDRINUSE, EADDRNOTAVAIL, ENODEV, EAFNOSUPPORT,
				EPROTONOSUPPORT));
		break;
	case RDMACHAN_CMD_RESOLVE_ADDR:
		es_merge(&s, ES(EADDRINUSE, EADDRNOTAVAIL, ENODEV, EAFNOSUPPORT,
				EPROTONOSUPPORT, ENETUNREACH, EHOSTUNREACH));
		break;
	case RDMACHAN_CMD_RESOLVE_ROUTE:
		es_merge(&s, ES(ENOSYS, ENODEV));
		break;
	case RDMACHAN_CMD_LISTEN:
		es_merge(&s, ES(EADDRINUSE, EADDRNOTAVAIL, ENODEV, ENOSYS,
				EPROTONOSUPPORT));
		break;
	case RDMACHAN_CMD_CONNECT:
		/* EACCES: a QP number that names another process's QP */
		es_merge(&s, ES(ENOSYS, ENODEV, EACCES));
		break;
	case RDMACHAN_CMD_BIND_USER_QP:
		/* no uverbs QP here: every bind is refused, somehow */
		es_merge(&s, ES(EBADF, EACCES, ENOENT, ENODEV, EOPNOTSUPP));
		break;
	case RDMACHAN_CMD_NOTIFY:
		/* EISCONN: COMM_EST on an established connection */
		es_merge(&s, ES(ENOSYS, EISCONN));
		break;
	case RDMACHAN_CMD_INIT_QP_ATTR:
		/* ENODEV: an IPoIB id's Q_Key from the SA, which RoCE has not */
		es_merge(&s, ES(ENOSYS, ENODEV));
		break;
	case RDMACHAN_CMD_ACCEPT:
		es_merge(&s, ES(ENOSYS, EACCES));
		break;
	case RDMACHAN_CMD_REJECT:
	case RDMACHAN_CMD_ESTABLISH:
	case RDMACHAN_CMD_DISCONNECT:
		es_merge(&s, ES(ENOSYS));
		break;
	default:
		break;
	}
	return s;
}
