// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: what a file's events wait for, as records. The process asks
 * for its own (RDMACHAN_IOC_QUERY_EVENTS, RDMACHAN_IOC_QUERY_ASYNC_EVENTS);
 * fdinfo prints the same records as text (introspect_text.c).
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

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
