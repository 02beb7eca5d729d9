// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: the model of a worker's files: their objects, events and
 * handle history, under the worker's lock.
 */
#include "fuzz.h"

void lock(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
}

void unlock(struct worker *w)
{
	pthread_mutex_unlock(&w->lock);
}

void journal(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->journal)
		return;
	va_start(ap, fmt);
	vsnprintf(w->journal[w->njournal++ % JOURNAL_LEN], JOURNAL_LINE, fmt, ap);
	va_end(ap);
}

/* The journal's lines about file @fi, once per worker. */
void journal_dump(struct worker *w, int fi)
{
	char tag[16], line[JOURNAL_LINE + 32];
	u32 i = w->njournal > JOURNAL_LEN ? w->njournal - JOURNAL_LEN : 0;

	if (w->journal_dumped || !w->journal)
		return;
	w->journal_dumped = true;
	snprintf(tag, sizeof(tag), " f%d", fi);
	put_str(2, "rdmachan-fuzz:   journal of the file:\n");
	for (; i < w->njournal; i++) {
		const char *l = w->journal[i % JOURNAL_LEN];

		(void)tag;
		snprintf(line, sizeof(line), "rdmachan-fuzz:     %s\n", l);
		put_str(2, line);
	}
	/* the calls other threads are still in: often the other half of a race */
	for (i = 0; i < (u32)w->nthr; i++) {
		const struct call *c = w->thr[i].cur_call;

		if (!c)
			continue;
		snprintf(line, sizeof(line),
			 "rdmachan-fuzz:     t%u seq %u- in flight: %s\n", i,
			 c->start_seq, c->desc);
		put_str(2, line);
	}
}

u32 hist_get(struct mfile *f, u32 h)
{
	return h < f->hist_len ? f->hist[h] : 0;
}

void hist_set(struct mfile *f, u32 h, u32 v)
{
	u32 len;
	u32 *n;

	if (h >= HIST_MAX)
		return;
	if (h >= f->hist_len) {
		len = f->hist_len ? f->hist_len : 256;
		while (len <= h)
			len *= 2;
		n = realloc(f->hist, len * sizeof(*n));
		if (!n)
			return;
		memset(n + f->hist_len, 0, (len - f->hist_len) * sizeof(*n));
		f->hist = n;
		f->hist_len = len;
	}
	f->hist[h] = v;
}

bool hist_gone(struct mfile *f, u32 h)
{
	u32 v = hist_get(f, h);

	return v && v != HIST_LIVE;
}

struct mobj *obj_find(struct mfile *f, u32 h)
{
	int i;

	if (!h)
		return NULL;
	for (i = 0; i < MAX_OBJS; i++)
		if (f->objs[i].used && f->objs[i].handle == h)
			return &f->objs[i];
	return NULL;
}

/* @h is a device context of @f that no destroy is after. */
bool ctx_live(struct mfile *f, u32 h)
{
	struct mobj *o = obj_find(f, h);

	return o && o->ctx && !o->dying;
}

static void model_dup(struct worker *w, struct mfile *f, u32 h, bool ctx);

struct mobj *obj_add(struct worker *w, struct mfile *f, u32 h, bool ctx)
{
	struct mobj *o = NULL;
	int i;

	if (obj_find(f, h))
		model_dup(w, f, h, ctx);
	journal(w, "model f%d: + %s %u (gen %d)", (int)(f - w->files),
		ctx ? "ctx" : "id", h, f->gen);
	hist_set(f, h, HIST_LIVE);
	for (i = 0; i < MAX_OBJS && !o; i++)
		if (!f->objs[i].used)
			o = &f->objs[i];
	if (!o) {
		stat_add(ST_MODEL_LOST, 1);
		return NULL;
	}
	(void)w;
	memset(o, 0, sizeof(*o));
	o->used = true;
	o->ctx = ctx;
	o->handle = h;
	if (ctx)
		f->nctx++;
	else
		f->nids++;
	return o;
}

void obj_gone(struct worker *w, struct mfile *f, struct mobj *o,
		     bool migrated)
{
	hist_set(f, o->handle, ++w->seq << 2 |
		 (migrated ? HIST_MIGRATED : HIST_DESTROYED));
	journal(w, "model f%d: - %u (%s) seq %u", (int)(f - w->files), o->handle,
		migrated ? "migrated" : "destroyed", w->seq);
	f->dead[f->ndead++ % DEAD_RING] = o->handle;
	if (o->ctx)
		f->nctx--;
	else
		f->nids--;
	o->used = false;
}

struct mev *ev_find(struct mfile *f, u32 h)
{
	int i;

	for (i = 0; i < MAX_EVS; i++)
		if (f->evs[i].state != E_FREE && f->evs[i].handle == h)
			return &f->evs[i];
	return NULL;
}

bool acked_recently(struct mfile *f, u32 h)
{
	u32 i, n = f->nacked < ACKED_RING ? f->nacked : ACKED_RING;

	for (i = 0; i < n; i++)
		if (f->acked[i] == h)
			return true;
	return false;
}

void ev_acked(struct mfile *f, struct mev *e)
{
	f->acked[f->nacked++ % ACKED_RING] = e->handle;
	e->state = E_FREE;
	stat_add(ST_ACKS, 1);
}

int nevents(struct mfile *f, int state, u32 id_handle)
{
	int i, n = 0;

	for (i = 0; i < MAX_EVS; i++)
		if (f->evs[i].state != E_FREE &&
		    (state < 0 || f->evs[i].state == state) &&
		    (!id_handle || f->evs[i].id_handle == id_handle))
			n++;
	return n;
}

int free_ev_slots(struct mfile *f)
{
	return MAX_EVS - nevents(f, -1, 0) - f->ev_reserved;
}

static void file_reset(struct mfile *f)
{
	struct worker *w = f->w;
	int gen = f->gen, idx = f->idx;

	verbs_file_gone(f);
	free(f->hist);
	memset(f, 0, sizeof(*f));
	f->w = w;
	f->idx = idx;
	f->gen = gen + 1;
	f->state = FS_CLOSED;
}

/* The last call pinning a closed file is gone: its fd numbers go too. */
void file_finish_close(struct mfile *f)
{
	int i;

	if (f->nfds)
		journal(f->w, "close f%d gen %d: fds %d %d %d closed", f->idx, f->gen,
			f->fds[0], f->nfds > 1 ? f->fds[1] : -1,
			f->nfds > 2 ? f->fds[2] : -1);
	for (i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	file_reset(f);
	stat_add(ST_FILES_CLOSED, 1);
}

void pin(struct mfile *f)
{
	f->pins++;
}

void unpin(struct mfile *f)
{
	if (--f->pins == 0 && f->state == FS_CLOSING)
		file_finish_close(f);
}

int pick_file(struct thr *t)
{
	struct worker *w = t->w;
	int i, n = 0, pick[MAX_FILES];

	for (i = 0; i < MAX_FILES; i++)
		if (w->files[i].state == FS_OPEN)
			pick[n++] = i;
	return n ? pick[rnd(t, n)] : -1;
}

int pick_fd(struct thr *t, struct mfile *f)
{
	return f->fds[rnd(t, f->nfds)];
}

/* A random object of @f: ids when @want_ctx is false, in @states if set. */
struct mobj *pick_obj(struct thr *t, struct mfile *f, bool want_ctx,
		      u32 states, bool allow_dying)
{
	struct mobj *pick[MAX_OBJS];
	int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct mobj *o = &f->objs[i];

		if (!o->used || o->ctx != want_ctx || (o->dying && !allow_dying))
			continue;
		if (!want_ctx && states && !(states & (1u << o->state)))
			continue;
		pick[n++] = o;
	}
	return n ? pick[rnd(t, n)] : NULL;
}

/* The calling thread, for a failure found where no thread is at hand. */
struct thr *self_thr(struct worker *w)
{
	int i;

	for (i = 0; i < w->nthr; i++)
		if (pthread_equal(w->thr[i].pt, pthread_self()))
			return &w->thr[i];
	return &w->thr[0];
}

static void model_dup(struct worker *w, struct mfile *f, u32 h, bool ctx)
{
	struct mobj *o = obj_find(f, h);

	fail(self_thr(w),
	     "model: file %d handle %u added as a new %s while the model has it as a live %s (state %s)",
	     (int)(f - w->files), h, ctx ? "context" : "id",
	     o->ctx ? "context" : "id", state_names[o->state]);
}

struct fz_cfg cfg;
