// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: what a file's events wait for. The process asks for its own
 * (RDMACHAN_IOC_QUERY_EVENTS, RDMACHAN_IOC_QUERY_ASYNC_EVENTS); an operator
 * reads every process's in /proc/<pid>/fdinfo/<fd>, which procfs shows to
 * whoever may read the process (its user, or root), as rdmachan-stat does.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_addr.h>
#include <rdma/ib.h>

#include "introspect.h"

static bool rdmachan_event_destroy_waiting(const struct rdmachan_cm_event_entry *entry)
{
	return READ_ONCE(entry->id->destroy_waiting) ||
	       (entry->mcast && READ_ONCE(entry->mcast->destroy_waiting));
}

/* One event into the records; @event_handle is 0 for a queued one. */
static void rdmachan_event_record_add(void *arg,
				      const struct rdmachan_cm_event_entry *entry,
				      u32 event_handle)
{
	struct rdmachan_event_records *r = arg;
	struct rdmachan_event_state *st;
	bool waiting = false;

	if (r->id_handle && READ_ONCE(entry->id->handle) != r->id_handle)
		return;
	r->id_seen = true;
	if (event_handle) {
		r->unacked++;
		waiting = rdmachan_event_destroy_waiting(entry);
		if (waiting)
			r->destroy_waiting++;
	} else {
		r->queued++;
	}
	if (r->num_states >= r->max_states)
		return;
	st = &r->states[r->num_states++];
	st->id_handle = READ_ONCE(entry->id->handle);
	st->event = entry->uevent.event;
	st->event_handle = event_handle;
	st->user_context = READ_ONCE(entry->id->user_context);
	st->flags = 0;
	if (event_handle)
		st->flags |= RDMACHAN_EVENT_STATE_UNACKED;
	if (waiting)
		st->flags |= RDMACHAN_EVENT_STATE_DESTROY_WAITING;
	st->age_ns = r->now - (event_handle ? entry->read_ns : entry->queued_ns);
}

/* The events read and not acknowledged, by handle, then the queued ones. */
void rdmachan_event_records_fill(struct rdmachan_file *file,
				 struct rdmachan_event_records *r)
{
	r->now = ktime_get_ns();
	rdmachan_walk_cm_events(file, rdmachan_event_record_add, r);
}

int rdmachan_cmd_query_events(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_events *cmd = arg;
	struct rdmachan_event_records r = {
		.id_handle = cmd->id_handle,
		.max_states = cmd->max_states,
	};
	void __user *ustates = u64_to_user_ptr(cmd->states);
	size_t stride = cmd->state_size, len;
	struct rdmachan_object *obj;
	int ret = 0;
	u32 i;

	if (cmd->__reserved || cmd->max_states > RDMACHAN_MAX_EVENT_STATES ||
	    (cmd->max_states && stride < sizeof(*r.states)))
		return -EINVAL;
	if (r.max_states) {
		r.states = kvcalloc(r.max_states, sizeof(*r.states),
				    GFP_KERNEL_ACCOUNT);
		if (!r.states)
			return -ENOMEM;
	}
	rdmachan_event_records_fill(call->file, &r);
	/* An id whose destroy waits is out of the table: its events name it. */
	if (r.id_handle && !r.id_seen) {
		obj = rdmachan_object_get(call->file, r.id_handle,
					  RDMACHAN_OBJ_CM_ID);
		if (!obj) {
			ret = -ENOENT;
			goto out;
		}
		rdmachan_object_put(obj);
	}
	len = min(stride, sizeof(*r.states));
	for (i = 0; i < r.num_states; i++) {
		if (copy_to_user(ustates + i * stride, &r.states[i], len) ||
		    (stride > len && clear_user(ustates + i * stride + len,
						stride - len))) {
			ret = -EFAULT;
			goto out;
		}
	}
	cmd->out_num_states = r.num_states;
	cmd->out_queued = r.queued;
	cmd->out_unacked = r.unacked;
	cmd->out_destroy_waiting = r.destroy_waiting;
out:
	kvfree(r.states);
	return ret;
}

/*
 * What the async events of @obj, a QP, CQ or SRQ, wait for, and for a CQ
 * the completion events taken and not acknowledged: every out_ field of
 * @rec. @obj is held.
 */
void rdmachan_async_record_fill(struct rdmachan_object *obj,
				struct rdmachan_query_async_events *rec)
{
	rec->out_queued = 0;
	rec->out_unacked = 0;
	rec->out_unacked_types = 0;
	rec->out_unacked_age_ns = 0;
	rec->out_flags = 0;
	rec->out_comp_unacked = 0;
	rdmachan_async_obj_query(rdmachan_async_obj_of(obj), rec);
	if (obj->type == RDMACHAN_OBJ_CQ)
		rec->out_comp_unacked =
			READ_ONCE(container_of(obj, struct rdmachan_cq,
					       v.obj)->events_unacked);
}

int rdmachan_cmd_query_async_events(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_async_events *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdmachan_async_obj *ao = NULL;
	struct rdmachan_object *obj;

	if (cmd->__reserved)
		return -EINVAL;
	xa_lock(&file->objects);
	obj = xa_load(&file->objects, cmd->handle);
	if (obj)
		ao = rdmachan_async_obj_of(obj);
	if (ao)
		kref_get(&obj->ref);
	xa_unlock(&file->objects);
	if (!ao)
		return -ENOENT;

	rdmachan_async_record_fill(obj, cmd);
	rdmachan_object_put(obj);
	return 0;
}

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
