// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: files and devices: open, close, non-blocking, the ABI
 * version, the device list, device contexts and their queries.
 */
#include "fuzz.h"

void act_open(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *f = NULL;
	int i, fd, flags = O_RDWR;

	for (i = 0; i < MAX_FILES && !f; i++)
		if (w->files[i].state == FS_CLOSED)
			f = &w->files[i];
	if (!f)
		return;
	if (chance(t, 20))
		flags |= O_NONBLOCK;
	fd = open(DEV_PATH, flags);
	if (fd < 0) {
		fail(t, "open %s: %s", DEV_PATH, strerror(errno));
		return;
	}
	f->state = FS_OPEN;
	f->fds[0] = fd;
	f->nfds = 1;
	f->nonblock = flags & O_NONBLOCK;
	for (i = rnd(t, MAX_DUPS); i > 0; i--) {
		fd = dup(f->fds[0]);
		if (fd >= 0)
			f->fds[f->nfds++] = fd;
	}
	journal(w, "t%d open f%d gen %d fds %d %d %d", t->idx, (int)(f - w->files),
		f->gen, f->fds[0], f->nfds > 1 ? f->fds[1] : -1,
		f->nfds > 2 ? f->fds[2] : -1);
	stat_add(ST_FILES_OPENED, 1);
}

/*
 * Closes a file, maybe while other threads are in calls on it: every fd
 * becomes /dev/null at once (dup2), so the file's release comes with the
 * last call's reference, and the fd numbers stay taken until no thread
 * can use them.
 */
void act_close(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *f;
	struct call c;
	int fi, i;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &w->files[fi];
	/* destroys waiting on this file's acks now wait forever */
	for (i = 0; i < w->nthr; i++) {
		struct thr *o = &w->thr[i];

		if (o != t && (o->cur_fi == fi || o->cur_src_fi == fi) &&
		    destructive(o->cur_cmd) && o->slot->in_call &&
		    (nevents(f, -1, 0) || async_owed(f))) {
			o->slot->kill_after_ns = rnd(t, 2000) * MSEC;
			o->slot->may_block = 2;
		}
	}
	f->state = FS_CLOSING;
	if (f->pins)
		stat_add(ST_CLOSE_DURING_CALL, 1);
	/* the release may run here: watched like a call */
	snprintf(c.desc, DESC_LEN, "#%llu close of f%d (%d fds, %d calls in it)",
		 (unsigned long long)++t->ncalls, fi, f->nfds, f->pins);
	c.cmd = -1;
	slot_begin(t, &c, 0);
	for (i = 0; i < f->nfds; i++)
		dup2(w->nullfd, f->fds[i]);
	slot_end(t);
	if (!f->pins)
		file_finish_close(f);
}

void act_nonblock(struct thr *t)
{
	struct mfile *f;
	int fi, fl;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &t->w->files[fi];
	fl = fcntl(f->fds[0], F_GETFL);
	if (fl < 0)
		return;
	f->nonblock = !f->nonblock;
	f->nb_seq++;
	fcntl(f->fds[0], F_SETFL, f->nonblock ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

void act_get_info(struct thr *t)
{
	struct call c;
	int fi = pick_file(t);
	struct mfile *f;

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_GET_INFO, fi, f->gen, pick_fd(t, f));
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback &&
	    (c.a.get_info.out_abi_version != RDMACHAN_ABI_VERSION ||
	     (c.a.get_info.out_features & 3) != 3))
		fail(t, "%s: abi %u features %#llx", c.desc,
		     c.a.get_info.out_abi_version,
		     (unsigned long long)c.a.get_info.out_features);
	unpin(f);
}

void act_list_devices(struct thr *t)
{
	static const u32 esizes[] = { 80, 88, 96, 128, 200 };
	struct rdmachan_device_entry *ent;
	struct mfile *f;
	struct call c;
	u8 *buf = t->bufmap + 4096;
	int fi = pick_file(t);
	u32 i, n, es;

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_LIST_DEVICES, fi, f->gen, pick_fd(t, f));
	es = esizes[rnd(t, ARRAY_SIZE(esizes))];
	c.a.list_devices.entry_size = es;
	c.a.list_devices.max_entries = rnd(t, 5);
	c.a.list_devices.entries = (uintptr_t)buf;
	memset(buf, POISON, 8 * 200);
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		c.a.list_devices.entry_size = rnd(t, 80);
		c.ok = ES(EINVAL);
	} else if (chance(t, 8) && c.a.list_devices.max_entries) {
		c.fault = F_PTR;
		c.a.list_devices.entries = chance(t, 50) ? 0 :
			(uintptr_t)(t->bufmap + ARENA_LEN);
		c.ok = ES(EFAULT);
	}
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback && c.fault != F_PTR && c.a.list_devices.entries) {
		n = c.a.list_devices.out_num_devices;
		if (n < 1)
			fail(t, "%s: %u devices", c.desc, n);
		if (n > c.a.list_devices.max_entries)
			n = c.a.list_devices.max_entries;
		for (i = 0; i < n; i++) {
			ent = (void *)(buf + i * es);
			if (ent->__reserved || !memchr(ent->name, 0, sizeof(ent->name)) ||
			    !all_zero(ent->name + strlen(ent->name),
				      sizeof(ent->name) - strlen(ent->name)))
				fail(t, "%s: entry %u: reserved or name bytes", c.desc, i);
			if (es > sizeof(*ent) &&
			    (buf[i * es + sizeof(*ent)] != POISON ||
			     buf[i * es + es - 1] != POISON))
				fail(t, "%s: entry %u: wrote past the known entry",
				     c.desc, i);
		}
		if (buf[n * es] != POISON)
			fail(t, "%s: wrote past max_entries", c.desc);
	}
	unpin(f);
}

void act_open_device(struct thr *t)
{
	struct mfile *f;
	struct call c;
	struct mobj *o;
	int fi = pick_file(t);

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	if (f->nctx >= MAX_CTXS)
		return;
	call_init(&c, RDMACHAN_CMD_OPEN_DEVICE, fi, f->gen, pick_fd(t, f));
	c.a.open_device.device_index = cfg.dev_index;
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		c.a.open_device.device_index = 1000 + rnd(t, 0x7fffffff);
		c.ok = ES(ENODEV);
	}
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback) {
		u32 h = c.a.open_device.out_handle;

		if (!h || hist_get(f, h))
			fail(t, "%s: new handle %u is not fresh", c.desc, h);
		o = obj_add(t->w, f, h, true);
		(void)o;
	}
	unpin(f);
}

void act_query(struct thr *t)
{
	static const int q[] = { RDMACHAN_CMD_QUERY_DEVICE,
				 RDMACHAN_CMD_QUERY_PORT,
				 RDMACHAN_CMD_QUERY_GID };
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi = pick_file(t), cmd = q[rnd(t, 3)];

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	o = pick_obj(t, f, true, 0, true);
	if (!o)
		return;
	call_init(&c, cmd, fi, f->gen, pick_fd(t, f));
	c.a.query_port.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	if (cmd == RDMACHAN_CMD_QUERY_PORT) {
		c.a.query_port.port_num = 1;
		if (chance(t, 10)) {
			c.fault = F_VALUE;
			c.a.query_port.port_num = chance(t, 50) ? 0 : 2 + rnd64(t) % 0xfffffff0u;
			c.ok = ES(EINVAL);
		}
	} else if (cmd == RDMACHAN_CMD_QUERY_GID) {
		c.a.query_gid.port_num = 1;
		c.a.query_gid.index = rnd(t, 4);
		es_add(&c.ok, ENODATA);
		if (chance(t, 10)) {
			c.fault = F_VALUE;
			c.a.query_gid.index = chance(t, 50) ?
				cfg.gid_tbl_len + rnd(t, 1000) :
				0x80000000u + rnd(t, 1000);
			c.ok = ES(EINVAL);
		}
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback && cmd == RDMACHAN_CMD_QUERY_DEVICE &&
	    (c.a.query_device.out_phys_port_cnt != 1 ||
	     !memchr(c.a.query_device.out_fw_str, 0,
		     sizeof(c.a.query_device.out_fw_str))))
		fail(t, "%s: ports %u or fw_str not terminated", c.desc,
		     c.a.query_device.out_phys_port_cnt);
	unpin(f);
}
