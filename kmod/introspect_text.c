// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: what a file's events wait for, as text. An operator reads
 * every process's in /proc/<pid>/fdinfo/<fd>, which procfs shows to
 * whoever may read the process (its user, or root), as rdmachan-stat
 * does; tests read the lines of a file's debugfs entry, after its
 * counters (debugfs.c).
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib.h>

#include "introspect.h"

/* At most this many events per file in fdinfo; the totals count all. */
#define RDMACHAN_FDINFO_MAX_EVENTS	256

static void rdmachan_show_addr(struct seq_file *m, const char *key,
			       const struct sockaddr_storage *ss)
{
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)ss;

	switch (ss->ss_family) {
	case AF_INET:
	case AF_INET6:
		seq_printf(m, " %s=%pISpc", key, ss);
		break;
	case AF_IB:
		seq_printf(m, " %s=ib:%pI6c", key, &sib->sib_addr);
		break;
	default:
		seq_printf(m, " %s=-", key);
		break;
	}
}

/*
 * The QP of @id: who owns it, its number and its state. Under id->lock,
 * which a bound QP's teardown takes to unbind it first.
 */
static void rdmachan_show_id_qp(struct seq_file *m, struct rdmachan_cm_id *id)
{
	enum ib_qp_state state;

	lockdep_assert_held(&id->lock);
	if (id->qp && id->qp->ib) {
		seq_printf(m, " qp=rdmachan qp_num=%u", id->qp->ib->qp_num);
		if (!rdmachan_qp_query_state(id->qp->ib, &state))
			seq_printf(m, " qp_state=%s",
				   rdmachan_qp_state_name(state));
	} else if (id->user_qp_file) {
		seq_printf(m, " qp=uverbs qp_num=%u", id->user_qp_num);
		if (!rdmachan_user_qp_state(id, &state))
			seq_printf(m, " qp_state=%s",
				   rdmachan_qp_state_name(state));
	} else {
		seq_puts(m, " qp=-");
	}
}

static void rdmachan_show_id(struct seq_file *m, struct rdmachan_cm_id *id)
{
	struct rdma_cm_id *cm_id = id->cm_id;

	seq_printf(m, "cm_id:\thandle=%u state=%s", id->handle,
		   rdmachan_cm_id_state_name(READ_ONCE(id->state)));
	if (cm_id) {
		seq_printf(m, " ps=%s qp_type=%s",
			   rdmachan_port_space_name(cm_id->ps),
			   cm_id->qp_type == IB_QPT_UD ? "UD" : "RC");
		seq_printf(m, " device=%s port=%u",
			   cm_id->device ? dev_name(&cm_id->device->dev) : "-",
			   cm_id->port_num);
		rdmachan_show_addr(m, "src", &cm_id->route.addr.src_addr);
		rdmachan_show_addr(m, "dst", &cm_id->route.addr.dst_addr);
	}
	rdmachan_show_id_qp(m, id);
	spin_lock(&id->ack_lock);
	seq_printf(m, " unacked=%u\n", id->unacked);
	spin_unlock(&id->ack_lock);
}

/* A CM id, locked as a CM call locks it. */
static int rdmachan_show_cm_id_obj(void *arg, unsigned long handle,
				   struct rdmachan_object *obj)
{
	struct rdmachan_cm_id *id;

	if (obj->type != RDMACHAN_OBJ_CM_ID)
		return 0;
	id = container_of(obj, struct rdmachan_cm_id, obj);
	if (mutex_lock_killable(&id->lock))
		return -EINTR;
	rdmachan_show_id(arg, id);
	mutex_unlock(&id->lock);
	return 0;
}

static void rdmachan_show_events(struct seq_file *m, struct rdmachan_file *file)
{
	struct rdmachan_event_records r = { .max_states = RDMACHAN_FDINFO_MAX_EVENTS };
	struct rdmachan_event_state *st;
	u32 i;

	r.states = kvcalloc(r.max_states, sizeof(*r.states), GFP_KERNEL);
	if (!r.states)
		r.max_states = 0;
	rdmachan_event_records_fill(file, &r);
	seq_printf(m, "cm_events:\tqueued=%u unacked=%u destroy_waiting=%u\n",
		   r.queued, r.unacked, r.destroy_waiting);
	for (i = 0; i < r.num_states; i++) {
		st = &r.states[i];
		seq_printf(m, "cm_event:\tid=%u event=%s state=%s handle=%u age_ms=%llu%s\n",
			   st->id_handle, rdmachan_cm_event_name(st->event),
			   st->flags & RDMACHAN_EVENT_STATE_UNACKED ?
			   "unacked" : "queued", st->event_handle,
			   div_u64(st->age_ns, NSEC_PER_MSEC),
			   st->flags & RDMACHAN_EVENT_STATE_DESTROY_WAITING ?
			   " destroy_waiting" : "");
	}
	kvfree(r.states);
}

/* A live QP, CQ or SRQ with what its events wait for: its record. */
static int rdmachan_show_verbs_obj(void *arg, unsigned long handle,
				   struct rdmachan_object *obj)
{
	struct rdmachan_async_obj *ao = rdmachan_async_obj_of(obj);
	struct rdmachan_query_async_events q = {};
	struct seq_file *m = arg;
	enum ib_qp_state state;
	struct rdmachan_qp *qp;

	if (!ao)
		return 0;
	lockdep_assert_held(&ao->v->file->verbs_lock);
	if (!ao->v->live)
		return 0;
	seq_printf(m, "%s:\thandle=%lu", rdmachan_async_element_name(ao->element),
		   handle);
	if (obj->type == RDMACHAN_OBJ_QP) {
		qp = container_of(obj, struct rdmachan_qp, v.obj);
		seq_printf(m, " qp_num=%u", qp->ib->qp_num);
		if (!rdmachan_qp_query_state(qp->ib, &state))
			seq_printf(m, " state=%s",
				   rdmachan_qp_state_name(state));
	}
	rdmachan_async_record_fill(obj, &q);
	seq_printf(m, " async_queued=%u async_unacked=%u", q.out_queued,
		   q.out_unacked);
	if (q.out_unacked)
		seq_printf(m, " async_types=0x%llx async_age_ms=%llu",
			   q.out_unacked_types,
			   div_u64(q.out_unacked_age_ns, NSEC_PER_MSEC));
	if (obj->type == RDMACHAN_OBJ_CQ)
		seq_printf(m, " comp_unacked=%u", q.out_comp_unacked);
	seq_printf(m, "%s\n",
		   q.out_flags & RDMACHAN_ASYNC_STATE_DESTROY_WAITING ?
		   " destroy_waiting" : "");
	return 0;
}

void rdmachan_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct rdmachan_file *file = filp->private_data;

	seq_printf(m, "rdmachan_owner:\t%d\n", pid_vnr(file->owner));
	rdmachan_walk_objects(file, rdmachan_show_cm_id_obj, m);
	rdmachan_show_events(m, file);
	rdmachan_walk_objects(file, rdmachan_show_verbs_obj, m);
}

/*
 * "unacked <event handle> <type> cm_id <handle>" per event read and not
 * acknowledged, also for ids that are being destroyed.
 */
static void rdmachan_show_unacked_event(void *arg,
					const struct rdmachan_cm_event_entry *entry,
					u32 event_handle)
{
	if (event_handle)
		seq_printf(arg, "unacked %u %s cm_id %u\n", event_handle,
			   rdmachan_cm_event_name(entry->uevent.event),
			   entry->uevent.id_handle);
}

/* "cq_unacked <cq handle> <count>" per CQ with completion events taken. */
static int rdmachan_show_cq_unacked(void *arg, unsigned long handle,
				    struct rdmachan_object *obj)
{
	unsigned int n;

	if (obj->type != RDMACHAN_OBJ_CQ)
		return 0;
	n = READ_ONCE(container_of(obj, struct rdmachan_cq,
				   v.obj)->events_unacked);
	if (n)
		seq_printf(arg, "cq_unacked %lu %u\n", handle, n);
	return 0;
}

/*
 * "async_unacked <TYPE> <qp|cq|srq> <handle> <count>" per object and type
 * of async events read and not acknowledged; "async_queue <context>
 * <queued> <dropped>" per context with events waiting or dropped.
 */
static int rdmachan_show_async_unacked(void *arg, unsigned long handle,
				       struct rdmachan_object *obj)
{
	struct rdmachan_async_queue *q;
	struct rdmachan_async_obj *ao;
	struct seq_file *s = arg;
	unsigned int n;
	u32 type;

	if (obj->type == RDMACHAN_OBJ_DEVICE_CONTEXT) {
		q = container_of(obj, struct rdmachan_context, obj)->async;
		if (READ_ONCE(q->queued) || READ_ONCE(q->dropped))
			seq_printf(s, "async_queue %lu %u %lu\n", handle,
				   READ_ONCE(q->queued), READ_ONCE(q->dropped));
		return 0;
	}
	ao = rdmachan_async_obj_of(obj);
	if (!ao || !ao->queue)
		return 0;
	for (type = 0; type < RDMACHAN_ASYNC_EVENT_TYPES; type++) {
		n = READ_ONCE(ao->unacked_by_type[type]);
		if (n)
			seq_printf(s, "async_unacked %s %s %lu %u\n",
				   rdmachan_async_event_name(type),
				   rdmachan_async_element_name(ao->element),
				   handle, n);
	}
	return 0;
}

/*
 * The lines of a file's debugfs entry after its counters; every CQ's
 * before any async line, as they always came.
 */
void rdmachan_debugfs_show_unacked(struct seq_file *s,
				   struct rdmachan_file *file)
{
	rdmachan_walk_cm_events(file, rdmachan_show_unacked_event, s);
	if (!rdmachan_walk_objects(file, rdmachan_show_cq_unacked, s))
		rdmachan_walk_objects(file, rdmachan_show_async_unacked, s);
}
