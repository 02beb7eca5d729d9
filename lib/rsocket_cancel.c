// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Thread cancellation in rsocket calls. A call is a cancellation point
 * only where it sleeps: everywhere else it may hold an rsocket's lock
 * while libibverbs or the provider make system calls (read, write) that
 * are cancellation points, and a thread cancelled there would leave the
 * lock held for good. So each exported call turns cancellation off for
 * its whole length (RS_CANCEL_OFF), and its sleeps turn it back on, if
 * the caller had it on, around the one call that sleeps, under a
 * cleanup handler that puts back what the sleep changed. The library is
 * built with -fexceptions, so the unwinding of a cancelled thread also
 * puts its held rsockets (RS_HELD) and the caller's cancel state.
 */
#include <pthread.h>

#include "internal.h"
#include "rsocket.h"

/* rsocket calls of this thread under way (one calls another: rselect) */
static __thread unsigned int calls;
/* the cancel state of the outermost call's caller */
static __thread int caller_state;
/* whether the outermost call's sleeps are cancellation points */
static __thread bool sleeps_cancellable;

int rs_cancel_off(bool cancellable)
{
	if (!calls++) {
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &caller_state);
		sleeps_cancellable = cancellable &&
				     caller_state == PTHREAD_CANCEL_ENABLE;
	}
	return 0;
}

void rs_cancel_restore(int *unused)
{
	(void)unused;
	if (!--calls)
		pthread_setcancelstate(caller_state, NULL);
}

bool rs_sleep_cancellable_begin(void)
{
	if (!calls || !sleeps_cancellable)
		return false;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	return true;
}

void rs_sleep_cancellable_end(bool began)
{
	if (began)
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
}
