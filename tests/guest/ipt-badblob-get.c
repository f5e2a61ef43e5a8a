// SPDX-License-Identifier: GPL-2.0
/*
 * ipt-badblob's cases of the read side and the counters: GET_INFO,
 * GET_ENTRIES, the revision queries and ADD_COUNTERS on the filter table
 * (see ipt-badblob.c for what is printed and compared).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "ipt-badblob.h"

int add_counters(const char *table, unsigned int n, socklen_t len,
		 uint64_t pcnt)
{
	struct buf req = { 0 };
	int err;

	tb_counters(&req, table, n, pcnt, pcnt * 100);
	err = setsockopt(sock, sol, IPT_SO_SET_ADD_COUNTERS, req.data,
			 len ? len : req.len) ? errno : 0;
	buf_free(&req);
	return err;
}

void run_counter_cases(void)
{
	unsigned int n = cur_entries();

	report("add_counters_len_header_only", add_counters("filter", 0, 0, 1));
	report("add_counters_len_short", add_counters("filter", n, 40 + 16 * n - 1, 1));
	report("add_counters_len_long", add_counters("filter", n, 40 + 16 * n + 16, 1));
	report("add_counters_fewer", add_counters("filter", n - 1, 0, 1));
	report("add_counters_more", add_counters("filter", n + 1, 0, 1));
	report("add_counters_unknown", add_counters("nosuchtable", n, 0, 1));
	/* accepted: counters are not part of the comparison */
	report("add_counters_ok", add_counters("filter", n, 0, 7));
}

void print_info(const char *label, const struct ipt_getinfo *info)
{
	printf("%s: valid_hooks %#x entries %u size %u hooks %d/%d/%d/%d/%d underflows %d/%d/%d/%d/%d\n",
	       label, info->valid_hooks, info->num_entries, info->size,
	       (int)info->hook_entry[0], (int)info->hook_entry[1],
	       (int)info->hook_entry[2], (int)info->hook_entry[3],
	       (int)info->hook_entry[4], (int)info->underflow[0],
	       (int)info->underflow[1], (int)info->underflow[2],
	       (int)info->underflow[3], (int)info->underflow[4]);
}

void run_get_cases(void)
{
	struct ipt_getinfo info;
	struct {
		struct ipt_get_entries g;
		unsigned char room[8192];
	} ge;
	socklen_t len;
	unsigned int size;

	report("get_info_len_short", get_info("filter", &info, sizeof(info) - 1));
	report("get_info_len_long", get_info("filter", &info, sizeof(info) + 1));
	report("get_info_unknown", get_info("nosuchtable", &info, sizeof(info)));
	report("get_info_empty_name", get_info("", &info, sizeof(info)));
	get_info("filter", &info, sizeof(info));
	size = info.size;
	print_info("get_info_filter", &info);

	memset(&ge, 0, sizeof(ge));
	strcpy(ge.g.name, "filter");
#define GET(label, sz, l) do {						\
		ge.g.size = (sz);					\
		len = (l);						\
		report(label, getsockopt(sock, sol, IPT_SO_GET_ENTRIES, \
					 &ge, &len) ? errno : 0);	\
	} while (0)
	GET("get_entries_ok", size, sizeof(ge.g) + size);
	GET("get_entries_len_short", size, sizeof(ge.g) + size - 1);
	GET("get_entries_len_long", size, sizeof(ge.g) + size + 1);
	GET("get_entries_len_header_short", size, sizeof(ge.g) - 1);
	GET("get_entries_size_smaller", size - 8, sizeof(ge.g) + size - 8);
	GET("get_entries_size_larger", size + 8, sizeof(ge.g) + size + 8);
	GET("get_entries_size_zero", 0, sizeof(ge.g));
	strcpy(ge.g.name, "nosuchtable");
	GET("get_entries_unknown", size, sizeof(ge.g) + size);
	memset(ge.g.name, 'f', sizeof(ge.g.name));
	GET("get_entries_name_unterminated", size, sizeof(ge.g) + size);
#undef GET
}

/* The revision queries' option names: IPv6's are two further on. */
static int revision_opt(bool target)
{
	if (sol == SOL_IPV6)
		return target ? IP6T_SO_GET_REVISION_TARGET : IP6T_SO_GET_REVISION_MATCH;
	return target ? IPT_SO_GET_REVISION_TARGET : IPT_SO_GET_REVISION_MATCH;
}

static void revision(const char *name, int rev, bool target)
{
	struct xt_get_revision r;
	socklen_t len = sizeof(r);
	int ret;

	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.revision = rev;
	ret = getsockopt(sock, sol, revision_opt(target), &r, &len);
	printf("revision_%s_%s_%d: %s\n", target ? "target" : "match",
	       name[0] ? name : "standard", rev, ret < 0 ? err_name(errno) : "ok");
}

void run_revision_cases(void)
{
	static const struct { const char *n; int rev; } m[] = {
		{ "tcp", 0 }, { "tcp", 1 }, { "udp", 0 }, { "icmp", 0 },
		{ "icmp", 1 }, { "multiport", 0 }, { "multiport", 1 },
		{ "multiport", 2 }, { "iprange", 0 }, { "iprange", 1 },
		{ "comment", 0 }, { "comment", 1 }, { "conntrack", 0 },
		{ "conntrack", 1 }, { "conntrack", 2 }, { "conntrack", 3 },
		{ "conntrack", 4 }, { "state", 0 }, { "state", 1 },
		{ "nosuchmatch", 0 },
	};
	/* IPv6's own matches, asked through SOL_IPV6 only */
	static const struct { const char *n; int rev; } m6[] = {
		{ "icmp6", 0 }, { "icmp6", 1 }, { "rt", 0 }, { "frag", 0 },
		{ "hbh", 0 }, { "dst", 0 }, { "ipv6header", 0 }, { "hl", 0 },
		{ "eui64", 0 }, { "mh", 0 },
	};
	static const struct { const char *n; int rev; } t[] = {
		{ "", 0 }, { "", 1 }, { "ERROR", 0 }, { "ERROR", 1 },
		{ "NOSUCHTARGET", 0 },
	};
	struct xt_get_revision r = { .name = "tcp" };
	socklen_t len = sizeof(r) - 1;
	unsigned int i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		revision(m[i].n, m[i].rev, false);
	for (i = 0; sol == SOL_IPV6 && i < sizeof(m6) / sizeof(m6[0]); i++)
		revision(m6[i].n, m6[i].rev, false);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		revision(t[i].n, t[i].rev, true);
	if (sol == SOL_IPV6) {
		revision("REJECT", 0, true);
		revision("REJECT", 1, true);
	}
	printf("revision_len_short: %s\n",
	       getsockopt(sock, sol, revision_opt(false), &r, &len) < 0 ?
	       err_name(errno) : "ok");
}
