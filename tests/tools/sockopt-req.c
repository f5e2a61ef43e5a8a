// SPDX-License-Identifier: GPL-2.0
/*
 * sockopt-req: issue single iptables control requests and print the raw
 * result, for tests that need a request without iptables' own logic.
 *
 *   sockopt-req rev-match NAME [REV]   IPT_SO_GET_REVISION_MATCH
 *   sockopt-req rev-target NAME [REV]  IPT_SO_GET_REVISION_TARGET
 *   sockopt-req info [TABLE]           IPT_SO_GET_INFO
 *   sockopt-req replace-unknown NAME   IPT_SO_SET_REPLACE of the filter
 *                                      table with an INPUT rule using
 *                                      match NAME (no such extension: the
 *                                      request is refused, and logged)
 *   sockopt-req entries-hash [TABLE]   IPT_SO_GET_ENTRIES of TABLE (filter):
 *                                      an FNV-1a hash of every byte but the
 *                                      counters (what -C/-D compare), and
 *                                      the size
 *   sockopt-req replace-same TABLE FILE
 *                                      IPT_SO_SET_REPLACE of TABLE with its
 *                                      own entries, the old counters it
 *                                      returns written to FILE (the first
 *                                      half of iptables' commit)
 *   sockopt-req add-counters TABLE FILE
 *                                      IPT_SO_SET_ADD_COUNTERS of FILE's
 *                                      counters to TABLE (the second half)
 *   sockopt-req served                 IPT_SO_GET_INFO of filter, without
 *                                      the info line: a request the helper
 *                                      serves (revision queries are the
 *                                      kernel's own, as under ip_tables)
 *
 * Prints "ok <return value>" or "err <errno name> <errno>" and exits 0
 * when the request got an answer (either kind), 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "lib/ipt_builder.h"

static int report(int ret)
{
	if (ret < 0) {
		const char *name = strerrorname_np(errno);

		printf("err %s %d\n", name ? name : "?", errno);
	}
	else
		printf("ok %d\n", ret);
	return 0;
}

/* GET_INFO into @info and GET_ENTRIES of @table: the entries (free()),
 * or NULL with errno */
static struct ipt_get_entries *get_entries(int fd, const char *table,
					   struct ipt_getinfo *info)
{
	socklen_t len = sizeof(*info);
	struct ipt_get_entries *g;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", table);
	if (getsockopt(fd, SOL_IP, IPT_SO_GET_INFO, info, &len))
		return NULL;
	len = sizeof(*g) + info->size;
	g = calloc(1, len);
	if (!g)
		return NULL;
	snprintf(g->name, sizeof(g->name), "%s", table);
	g->size = info->size;
	if (getsockopt(fd, SOL_IP, IPT_SO_GET_ENTRIES, g, &len)) {
		free(g);
		return NULL;
	}
	return g;
}

/* SET_REPLACE of @table with its own entries; old counters to @path */
static int replace_same(int fd, const char *table, const char *path)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g = get_entries(fd, table, &info);
	struct ipt_replace *r;
	struct xt_counters *old;
	FILE *f;
	int ret;

	if (!g)
		return report(-1);
	r = calloc(1, sizeof(*r) + info.size);
	old = calloc(info.num_entries ? info.num_entries : 1, sizeof(*old));
	if (!r || !old)
		return 1;
	snprintf(r->name, sizeof(r->name), "%s", table);
	r->valid_hooks = info.valid_hooks;
	r->num_entries = info.num_entries;
	r->size = info.size;
	memcpy(r->hook_entry, info.hook_entry, sizeof(r->hook_entry));
	memcpy(r->underflow, info.underflow, sizeof(r->underflow));
	r->num_counters = info.num_entries;
	r->counters = old;
	memcpy(r->entries, g->entrytable, info.size);
	ret = setsockopt(fd, SOL_IP, IPT_SO_SET_REPLACE, r,
			 sizeof(*r) + info.size);
	if (!ret) {
		f = fopen(path, "w");
		if (!f || fwrite(old, sizeof(*old), info.num_entries, f) !=
			  info.num_entries || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	free(g);
	free(r);
	free(old);
	return report(ret);
}

/* ADD_COUNTERS of @path's counters (replace_same()'s) to @table */
static int add_counters(int fd, const char *table, const char *path)
{
	struct xt_counters_info *ci;
	size_t n;
	FILE *f = fopen(path, "r");
	int ret;

	ci = calloc(1, sizeof(*ci) + 65536 * sizeof(struct xt_counters));
	if (!f || !ci) {
		perror(path);
		return 1;
	}
	n = fread(ci->counters, sizeof(struct xt_counters), 65536, f);
	fclose(f);
	snprintf(ci->name, sizeof(ci->name), "%s", table);
	ci->num_counters = (unsigned int)n;
	ret = setsockopt(fd, SOL_IP, IPT_SO_SET_ADD_COUNTERS, ci,
			 sizeof(*ci) + n * sizeof(struct xt_counters));
	free(ci);
	return report(ret);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		goto usage;
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (!strcmp(argv[1], "rev-match") || !strcmp(argv[1], "rev-target")) {
		struct xt_get_revision rev = { 0 };
		socklen_t len = sizeof(rev);
		int opt = argv[1][4] == 'm' ? IPT_SO_GET_REVISION_MATCH :
					      IPT_SO_GET_REVISION_TARGET;

		if (argc < 3)
			goto usage;
		snprintf(rev.name, sizeof(rev.name), "%s", argv[2]);
		rev.revision = argc > 3 ? atoi(argv[3]) : 0;
		return report(getsockopt(fd, SOL_IP, opt, &rev, &len));
	}
	if (!strcmp(argv[1], "replace-unknown") && argc > 2) {
		struct buf q = { 0 };
		struct tb t;
		int ret;

		tb_init(&t);
		tb_hook(&t, NF_INET_LOCAL_IN);
		tb_begin(&t, NULL);
		tb_match(&t, argv[2], 0, NULL, 0);
		tb_std(&t, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
		tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_finish(&t);
		tb_replace(&t, &q, "filter", FILTER_HOOKS, 4);
		ret = setsockopt(fd, SOL_IP, IPT_SO_SET_REPLACE, q.data, q.len);
		buf_free(&q);
		tb_free(&t);
		return report(ret);
	}
	if (!strcmp(argv[1], "entries-hash")) {
		struct ipt_getinfo info;
		struct ipt_get_entries *g;
		unsigned long long h = 1469598103934665603ull;
		unsigned int off;
		size_t i;

		g = get_entries(fd, argc > 2 ? argv[2] : "filter", &info);
		if (!g)
			return report(-1);
		for (off = 0; off < g->size;) {	/* counters are not the rule */
			struct ipt_entry *e = (void *)((char *)g->entrytable + off);

			memset(&e->counters, 0, sizeof(e->counters));
			if (e->next_offset < sizeof(*e))
				break;
			off += e->next_offset;
		}
		for (i = 0; i < g->size; i++)
			h = (h ^ ((unsigned char *)g->entrytable)[i]) * 1099511628211ull;
		printf("entries size=%u hash=%016llx\n", g->size, h);
		free(g);
		return report(0);
	}
	if (!strcmp(argv[1], "replace-same") && argc > 3)
		return replace_same(fd, argv[2], argv[3]);
	if (!strcmp(argv[1], "add-counters") && argc > 3)
		return add_counters(fd, argv[2], argv[3]);
	if (!strcmp(argv[1], "info") || !strcmp(argv[1], "served")) {
		struct ipt_getinfo info = { 0 };
		socklen_t len = sizeof(info);
		int ret;

		snprintf(info.name, sizeof(info.name), "%s",
			 argc > 2 ? argv[2] : "filter");
		ret = getsockopt(fd, SOL_IP, IPT_SO_GET_INFO, &info, &len);
		if (!ret && argv[1][0] == 'i')
			printf("info hooks=0x%x entries=%u size=%u\n",
			       info.valid_hooks, info.num_entries, info.size);
		return report(ret);
	}
usage:
	fprintf(stderr, "usage: sockopt-req rev-match|rev-target NAME [REV] | info [TABLE] | served | replace-unknown NAME | entries-hash [TABLE] | replace-same|add-counters TABLE FILE\n");
	return 2;
}
