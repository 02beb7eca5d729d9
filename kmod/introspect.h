/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: introspection, what a file's events wait for. One walk of the
 * file (introspect_walk.c) and two printers: records for the QUERY
 * ioctls (introspect.c), text for fdinfo and the file's debugfs entry
 * (introspect_text.c).
 */
#ifndef RDMACHAN_INTROSPECT_H
#define RDMACHAN_INTROSPECT_H

#include "rdmachan.h"

struct seq_file;

/* The walk */
void rdmachan_walk_cm_events(struct rdmachan_file *file,
			     void (*visit)(void *arg,
					   const struct rdmachan_cm_event_entry *entry,
					   u32 event_handle),
			     void *arg);
int rdmachan_walk_objects(struct rdmachan_file *file,
			  int (*visit)(void *arg, unsigned long handle,
				       struct rdmachan_object *obj),
			  void *arg);

/*
 * The CM events of a file as RDMACHAN_IOC_QUERY_EVENTS has them: the
 * totals count every event, @states holds the first @max_states.
 */
struct rdmachan_event_records {
	/* only this id's events; 0 for all */
	u32 id_handle;
	bool id_seen;
	struct rdmachan_event_state *states;
	u32 max_states;
	u32 num_states;
	u32 queued;
	u32 unacked;
	u32 destroy_waiting;
	/* ktime_get_ns() when the walk began, which the ages count to */
	u64 now;
};

/* The records */
void rdmachan_event_records_fill(struct rdmachan_file *file,
				 struct rdmachan_event_records *r);
void rdmachan_async_record_fill(struct rdmachan_object *obj,
				struct rdmachan_query_async_events *rec);

/* The text */
void rdmachan_show_fdinfo(struct seq_file *m, struct file *filp);
void rdmachan_debugfs_show_unacked(struct seq_file *s,
				   struct rdmachan_file *file);

#endif /* RDMACHAN_INTROSPECT_H */
