// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-stat: every process's /dev/rdmachan files, their CM ids, the
 * events not yet acknowledged and the destroys that wait for them, as ss
 * shows sockets. It reads what the module writes into
 * /proc/<pid>/fdinfo/<fd>, which procfs shows to whoever may read the
 * process: a user sees their own processes, root all of them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_FIELDS 24

/* One line of fdinfo: "kind:\tkey=value key=value flag". */
struct record {
	char kind[16];
	int nfields;
	char *keys[MAX_FIELDS];
	char *values[MAX_FIELDS];	/* NULL for a bare flag */
	char line[512];
};

struct rdmachan_fd {
	int pid;
	int fd;
	char comm[64];
	int nrecords;
	struct record *records;
};

static bool json;

/* Splits r->line in place: only once the record no longer moves. */
static void parse_record(struct record *r)
{
	char *p, *tab, *tok, *save;

	r->line[strcspn(r->line, "\n")] = '\0';
	r->nfields = 0;
	tab = strchr(r->line, ':');
	if (!tab) {
		r->kind[0] = '\0';
		return;
	}
	*tab = '\0';
	if (strlen(r->line) >= sizeof(r->kind)) {
		r->kind[0] = '\0';
		return;
	}
	strcpy(r->kind, r->line);
	p = tab + 1;
	for (tok = strtok_r(p, " \t", &save); tok && r->nfields < MAX_FIELDS;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');

		r->keys[r->nfields] = tok;
		r->values[r->nfields] = NULL;
		if (eq) {
			*eq = '\0';
			r->values[r->nfields] = eq + 1;
		}
		r->nfields++;
	}
}

static const char *field(const struct record *r, const char *key)
{
	int i;

	for (i = 0; i < r->nfields; i++)
		if (!strcmp(r->keys[i], key))
			return r->values[i] ? r->values[i] : "";
	return NULL;
}

static const char *field_or(const struct record *r, const char *key,
			    const char *dflt)
{
	const char *v = field(r, key);

	return v ? v : dflt;
}

/* The module's device number, from sysfs; false when it is not loaded. */
static bool rdmachan_devt(dev_t *devt)
{
	unsigned int maj, min;
	FILE *f = fopen("/sys/class/misc/rdmachan/dev", "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	*devt = makedev(maj, min);
	return ok;
}

static bool read_fdinfo(struct rdmachan_fd *rf)
{
	char path[64], buf[512];
	struct record *grown;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", rf->pid, rf->fd);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, "rdmachan_owner:", 15) &&
		    strncmp(buf, "cm_", 3) && strncmp(buf, "qp:", 3) &&
		    strncmp(buf, "cq:", 3) && strncmp(buf, "srq:", 4))
			continue;
		grown = realloc(rf->records,
				(rf->nrecords + 1) * sizeof(*rf->records));
		if (!grown)
			break;
		rf->records = grown;
		snprintf(rf->records[rf->nrecords++].line,
			 sizeof(rf->records->line), "%s", buf);
	}
	fclose(f);
	for (i = 0; i < rf->nrecords; i++)
		parse_record(&rf->records[i]);
	return true;
}

static void read_comm(int pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	snprintf(comm, len, "?");
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

/* Every /dev/rdmachan file of @pid this user may look at. */
static int scan_process(int pid, dev_t devt, struct rdmachan_fd **out,
			int *nout)
{
	char path[64], fdpath[PATH_MAX];
	struct rdmachan_fd *grown;
	struct dirent *de;
	struct stat st;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, de->d_name);
		if (stat(fdpath, &st) || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != devt)
			continue;
		grown = realloc(*out, (*nout + 1) * sizeof(**out));
		if (!grown)
			break;
		*out = grown;
		memset(&grown[*nout], 0, sizeof(grown[*nout]));
		grown[*nout].pid = pid;
		grown[*nout].fd = atoi(de->d_name);
		read_comm(pid, grown[*nout].comm, sizeof(grown[*nout].comm));
		if (read_fdinfo(&grown[*nout]))
			(*nout)++;
	}
	closedir(dir);
	return 0;
}

static int cmp_fd(const void *a, const void *b)
{
	const struct rdmachan_fd *x = a, *y = b;

	return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) :
				  (x->fd > y->fd) - (x->fd < y->fd);
}

/* "12.345s" from milliseconds. */
static const char *age(const char *ms, char *buf, size_t len)
{
	unsigned long long v = ms ? strtoull(ms, NULL, 10) : 0;

	snprintf(buf, len, "%llu.%03llus", v / 1000, v % 1000);
	return buf;
}

static void print_human(const struct rdmachan_fd *rf)
{
	const struct record *r, *sum = NULL;
	char qpbuf[48], agebuf[32];
	int i, ids = 0;

	for (i = 0; i < rf->nrecords; i++) {
		if (!strcmp(rf->records[i].kind, "cm_events"))
			sum = &rf->records[i];
		if (!strcmp(rf->records[i].kind, "cm_id"))
			ids++;
	}
	printf("pid %d (%s) fd %d: %d CM id(s), %s queued, %s unacknowledged, %s waited for by a destroy\n",
	       rf->pid, rf->comm, rf->fd, ids,
	       sum ? field_or(sum, "queued", "0") : "?",
	       sum ? field_or(sum, "unacked", "0") : "?",
	       sum ? field_or(sum, "destroy_waiting", "0") : "?");
	if (ids)
		printf("  %-6s %-16s %-5s %-4s %-10s %-28s %-28s %-16s %s\n",
		       "ID", "STATE", "PS", "TYPE", "DEVICE", "LOCAL",
		       "REMOTE", "QP", "UNACKED");
	for (i = 0; i < rf->nrecords; i++) {
		r = &rf->records[i];
		if (strcmp(r->kind, "cm_id"))
			continue;
		snprintf(qpbuf, sizeof(qpbuf), "-");
		if (field(r, "qp_num"))
			snprintf(qpbuf, sizeof(qpbuf), "%s %s",
				 field(r, "qp_num"),
				 field_or(r, "qp_state", "?"));
		printf("  %-6s %-16s %-5s %-4s %-10s %-28s %-28s %-16s %s\n",
		       field_or(r, "handle", "?"), field_or(r, "state", "?"),
		       field_or(r, "ps", "-"), field_or(r, "qp_type", "-"),
		       field_or(r, "device", "-"), field_or(r, "src", "-"),
		       field_or(r, "dst", "-"), qpbuf,
		       field_or(r, "unacked", "0"));
	}
	for (i = 0; i < rf->nrecords; i++) {
		r = &rf->records[i];
		if (strcmp(r->kind, "cm_event"))
			continue;
		printf("  event %-16s id %-6s %-8s %10s%s\n",
		       field_or(r, "event", "?"), field_or(r, "id", "?"),
		       field_or(r, "state", "?"),
		       age(field(r, "age_ms"), agebuf, sizeof(agebuf)),
		       field(r, "destroy_waiting") ? "  destroy waiting" : "");
	}
	for (i = 0; i < rf->nrecords; i++) {
		r = &rf->records[i];
		if (strcmp(r->kind, "qp") && strcmp(r->kind, "cq") &&
		    strcmp(r->kind, "srq"))
			continue;
		printf("  %-3s %-6s", r->kind, field_or(r, "handle", "?"));
		if (!strcmp(r->kind, "qp"))
			printf(" qp_num %s %s", field_or(r, "qp_num", "?"),
			       field_or(r, "state", "?"));
		printf("  async: %s queued, %s unacknowledged",
		       field_or(r, "async_queued", "0"),
		       field_or(r, "async_unacked", "0"));
		if (field(r, "async_age_ms"))
			printf(" for %s (types %s)",
			       age(field(r, "async_age_ms"), agebuf,
				   sizeof(agebuf)),
			       field_or(r, "async_types", "?"));
		if (field(r, "comp_unacked"))
			printf(", %s completion event(s) unacknowledged",
			       field(r, "comp_unacked"));
		printf("%s\n",
		       field(r, "destroy_waiting") ? "  destroy waiting" : "");
	}
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A record's fields as a JSON object: numbers stay numbers, flags true. */
static void print_json_record(const struct record *r)
{
	int i;

	putchar('{');
	for (i = 0; i < r->nfields; i++) {
		if (i)
			putchar(',');
		print_json_string(r->keys[i]);
		putchar(':');
		if (!r->values[i])
			fputs("true", stdout);
		else if (is_number(r->values[i]))
			fputs(r->values[i], stdout);
		else
			print_json_string(r->values[i]);
	}
	putchar('}');
}

/* ,"NAME":[...] with the records of @kind. */
static void print_json_kind(const struct rdmachan_fd *rf, const char *kind,
			    const char *name)
{
	bool first = true;
	int i;

	printf(",\"%s\":[", name);
	for (i = 0; i < rf->nrecords; i++) {
		if (strcmp(rf->records[i].kind, kind))
			continue;
		if (!first)
			putchar(',');
		first = false;
		print_json_record(&rf->records[i]);
	}
	putchar(']');
}

static void print_json(const struct rdmachan_fd *rf, bool first)
{
	int i;

	printf("%s{\"pid\":%d,\"comm\":", first ? "" : ",", rf->pid);
	print_json_string(rf->comm);
	printf(",\"fd\":%d", rf->fd);
	for (i = 0; i < rf->nrecords; i++)
		if (!strcmp(rf->records[i].kind, "cm_events")) {
			printf(",\"cm_events_total\":");
			print_json_record(&rf->records[i]);
		}
	print_json_kind(rf, "cm_id", "cm_ids");
	print_json_kind(rf, "cm_event", "cm_events");
	print_json_kind(rf, "qp", "qps");
	print_json_kind(rf, "cq", "cqs");
	print_json_kind(rf, "srq", "srqs");
	putchar('}');
}

static int snapshot(dev_t devt, int only_pid)
{
	struct rdmachan_fd *fds = NULL;
	struct dirent *de;
	int i, n = 0;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc) {
		perror("rdmachan-stat: /proc");
		return 1;
	}
	while ((de = readdir(proc))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (only_pid && atoi(de->d_name) != only_pid)
			continue;
		scan_process(atoi(de->d_name), devt, &fds, &n);
	}
	closedir(proc);
	qsort(fds, n, sizeof(*fds), cmp_fd);

	if (json)
		putchar('[');
	for (i = 0; i < n; i++) {
		if (json)
			print_json(&fds[i], i == 0);
		else
			print_human(&fds[i]);
		free(fds[i].records);
	}
	if (json)
		puts("]");
	else if (!n)
		puts("no /dev/rdmachan file open (in processes this user may see)");
	free(fds);
	fflush(stdout);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rdmachan-stat [-j] [-w SECONDS] [-p PID]\n"
		"  -j          JSON: one array of files per snapshot\n"
		"  -w SECONDS  a new snapshot every SECONDS, until interrupted\n"
		"  -p PID      only this process\n");
}

int main(int argc, char **argv)
{
	long interval = 0, only_pid = 0;
	char *end;
	dev_t devt;
	int opt;

	while ((opt = getopt(argc, argv, "jw:p:h")) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'w':
			interval = strtol(optarg, &end, 10);
			if (*end || interval <= 0 || interval > 86400) {
				fprintf(stderr, "rdmachan-stat: -w takes 1 to 86400 seconds\n");
				return 2;
			}
			break;
		case 'p':
			only_pid = strtol(optarg, &end, 10);
			if (*end || only_pid <= 0 || only_pid > INT_MAX) {
				fprintf(stderr, "rdmachan-stat: -p takes a process id\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!rdmachan_devt(&devt)) {
		fprintf(stderr, "rdmachan-stat: the rdmachan module is not loaded\n");
		return 1;
	}
	for (;;) {
		if (interval && !json) {
			time_t now = time(NULL);
			char stamp[32];

			strftime(stamp, sizeof(stamp), "%F %T", localtime(&now));
			printf("--- %s\n", stamp);
		}
		if (snapshot(devt, (int)only_pid))
			return 1;
		if (!interval)
			return 0;
		sleep(interval);
	}
}
