// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rpoll() for the drop-in librdmacm. rdmachan has no rsockets, so every
 * descriptor is an ordinary one, and librdmacm's rpoll() on ordinary
 * descriptors is poll(): the example programs (cmtime, ucmatose, udaddy,
 * mckey) wait on their event channel's fd with it.
 */
#include <poll.h>

__attribute__((visibility("default")))
int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}
