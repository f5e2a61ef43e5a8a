// SPDX-License-Identifier: GPL-2.0
/*
 * ipt-badblob's requests (ipt-badblob.c says what it does): the socket,
 * GET_INFO, GET_ENTRIES and SET_REPLACE, the table the cases start from
 * (install()) and the check after each case that it is still there
 * (report()), and the runner of SET_REPLACE cases.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "ipt-badblob.h"

int sock;
int sol = SOL_IP;	/* the sockopt level: SOL_IPV6 with -6 */
static struct buf baseline;	/* GET_ENTRIES of the installed table */
static unsigned int base_entries;
static void (*base_build)(struct tb *t);

int get_info(const char *name, struct ipt_getinfo *info, socklen_t len)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	return getsockopt(sock, sol, IPT_SO_GET_INFO, info, &len) ? errno : 0;
}

/* Table @table's entries, counters zeroed; 0 or errno. */
int read_named(const char *table, struct buf *out)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g;
	socklen_t len;
	unsigned int off;
	int err;

	err = get_info(table, &info, sizeof(info));
	if (err)
		return err;
	len = sizeof(*g) + info.size;
	g = calloc(1, len);	/* zeroed: the kernel leaves name tails alone */
	if (!g)
		return ENOMEM;
	snprintf(g->name, sizeof(g->name), "%s", table);
	g->size = info.size;
	if (getsockopt(sock, sol, IPT_SO_GET_ENTRIES, g, &len)) {
		err = errno;
		free(g);
		return err;
	}
	for (off = 0; off < g->size;) {
		unsigned char *e = (unsigned char *)g->entrytable + off;
		uint16_t next;

		/* the heads differ in size, the fields are in the same order */
		if (sol == SOL_IPV6) {
			memset(e + offsetof(struct ip6t_entry, counters), 0,
			       sizeof(struct xt_counters));
			memcpy(&next, e + offsetof(struct ip6t_entry, next_offset),
			       sizeof(next));
		} else {
			memset(e + offsetof(struct ipt_entry, counters), 0,
			       sizeof(struct xt_counters));
			memcpy(&next, e + offsetof(struct ipt_entry, next_offset),
			       sizeof(next));
		}
		if (next == 0)
			break;
		off += next;
	}
	buf_reset(out);
	buf_append(out, g->entrytable, g->size);
	free(g);
	return 0;
}

/* The filter table's entries, counters zeroed; 0 or errno. */
static int read_table(struct buf *out)
{
	return read_named("filter", out);
}

uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

unsigned int named_entries(const char *table)
{
	struct ipt_getinfo info;

	return get_info(table, &info, sizeof(info)) ? 0 : info.num_entries;
}

unsigned int cur_entries(void)
{
	return named_entries("filter");
}

/*
 * SET_REPLACE of @req (a struct ipt_replace + entries), optlen @len.  The
 * old counters go to a fresh buffer large enough for what the request
 * claims, unless the case asked for a bad pointer.
 */
int send_replace(struct buf *req, socklen_t len)
{
	struct ipt_replace *r = (void *)req->data;
	struct xt_counters *old = NULL;
	int err;

	if (r->counters != BAD_COUNTERS_PTR) {
		old = calloc(r->num_counters < 100000 ? r->num_counters + 1 : 1,
			     sizeof(*old));
		r->counters = r->num_counters < 100000 ? old : NULL;
	}
	err = setsockopt(sock, sol, IPT_SO_SET_REPLACE, req->data, len) ?
		errno : 0;
	if (old)
		r->counters = NULL;
	free(old);
	return err;
}

int install(void (*build)(struct tb *t), const char *label)
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	build(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
	err = send_replace(&req, req.len);
	if (!err)
		err = read_table(&baseline);
	if (!err) {
		base_entries = t.num_entries;
		base_build = build;
		printf("%s: installed, %u entries, %zu bytes, entries hash %016llx\n",
		       label, t.num_entries, baseline.len,
		       (unsigned long long)fnv1a(baseline.data, baseline.len));
	} else {
		printf("%s: install failed: %s\n", label, err_name(err));
	}
	buf_free(&req);
	tb_free(&t);
	return err;
}

/* After a case: is the table the baseline?  Put it back if not. */
static const char *check_intact(void)
{
	struct buf now = { 0 };
	const char *verdict = "intact";

	if (read_table(&now) || now.len != baseline.len ||
	    memcmp(now.data, baseline.data, now.len)) {
		verdict = "CHANGED";
		install(base_build, "  reinstall");
	}
	buf_free(&now);
	return verdict;
}

void report(const char *name, int err)
{
	printf("%s: %s %s\n", name, err_name(err), check_intact());
	fflush(stdout);
}

/*
 * IPT_BADBLOB_DUMP=NAME (a case's name with its prefix): its GET_ENTRIES
 * bytes in hex, 16 a line, for telling which bytes differ between the
 * backends where only the hashes are compared.
 */
static void dump_if_asked(const char *prefix, const char *name,
			  const struct buf *b)
{
	const char *want = getenv("IPT_BADBLOB_DUMP");
	char full[96];
	size_t i;

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	if (!want || (strcmp(want, full) && strcmp(want, name)))
		return;
	for (i = 0; i < b->len; i++)
		printf("%s%s%02x", i % 16 ? "" : i ? "\n  dump " : "  dump ",
		       i % 16 && !(i % 4) ? " " : "", b->data[i]);
	printf("\n");
}

void run_blob_cases(const struct blob_case *cases, unsigned int n,
		    void (*build)(struct tb *t), const char *prefix,
		    void (*skip)(struct buf *req))
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct buf req = { 0 };
		struct tb t;
		int err;

		if (cases[i].mutate == skip)
			continue;
		build(&t);
		tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
		cases[i].mutate(&req);
		dump_if_asked("sent ", cases[i].name, &req);
		err = send_replace(&req, req.len);
		if (!err) {
			/* accepted: the table must now be the one sent */
			struct buf now = { 0 };

			read_table(&now);
			printf("%s%s: ok, now %u entries", prefix, cases[i].name,
			       cur_entries());
			printf(", entries hash %016llx\n", (unsigned long long)
			       fnv1a(now.data, now.len));
			dump_if_asked(prefix, cases[i].name, &now);
			buf_free(&now);
			install(base_build, "  reinstall");
		} else {
			char name[96];

			snprintf(name, sizeof(name), "%s%s", prefix, cases[i].name);
			report(name, err);
		}
		buf_free(&req);
		tb_free(&t);
	}
}

/* optlen lies about the buffer (a request of the installed table) */
void run_length_cases(void)
{
	struct buf req = { 0 };
	struct tb t;

	base_build(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
	report("replace_optlen_header_short", send_replace(&req, 95));
	report("replace_optlen_zero", send_replace(&req, 0));
	report("replace_optlen_blob_short", send_replace(&req, req.len - 1));
	buf_append_zero(&req, 64);
	report("replace_optlen_long", send_replace(&req, req.len));
	buf_free(&req);
	tb_free(&t);
}
