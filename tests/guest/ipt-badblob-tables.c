// SPDX-License-Identifier: GPL-2.0
/*
 * ipt-badblob's cases for every table beside filter: nat, mangle, raw,
 * security (see ipt-badblob.c for what is printed and compared).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ipt_TTL.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/xt_CHECKSUM.h>
#include <linux/netfilter/xt_CLASSIFY.h>
#include <linux/netfilter/xt_CONNSECMARK.h>
#include <linux/netfilter/xt_CT.h>
#include <linux/netfilter/xt_TCPMSS.h>
#include <linux/netfilter/xt_mark.h>

#include "ipt-badblob.h"

/*
 * ---- every table: nat, mangle, raw, security beside filter ----
 *
 * Each table is first used by GET_INFO (ip_tables creates it then, with
 * its built-in chains and ACCEPT policies), then replaced by its initial
 * table, the baseline its cases are compared with: layouts the table's
 * hooks refuse, counters and GET_ENTRIES lengths that do not fit, and
 * targets in tables and hooks that do or do not allow them.  Every errno
 * is compared with ip_tables' in the same guest, none is written here.
 */
#define NAT_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_IN) | \
		   (1 << NF_INET_LOCAL_OUT) | (1 << NF_INET_POST_ROUTING))
#define MANGLE_HOOKS ((1 << NF_INET_NUMHOOKS) - 1)
#define RAW_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_OUT))

struct named_table {
	const char *name;
	unsigned int hooks;
	struct buf base;	/* GET_ENTRIES of its initial table */
};

static struct named_table tables[] = {
	{ .name = "filter", .hooks = FILTER_HOOKS },
	{ .name = "nat", .hooks = NAT_HOOKS },
	{ .name = "mangle", .hooks = MANGLE_HOOKS },
	{ .name = "raw", .hooks = RAW_HOOKS },
	{ .name = "security", .hooks = FILTER_HOOKS },
};

/* One rule's target, or none. */
struct tgt {
	const char *name;
	uint8_t rev;
	const void *data;
	unsigned int len;
	const struct ipt_ip *ip;
};

/* A table of @hooks' ACCEPT policies, @g the one rule at @rule_hook. */
static void tbl_build(struct tb *t, unsigned int hooks, int rule_hook,
		      const struct tgt *g)
{
	unsigned int h;

	tb_init(t);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(hooks & (1 << h)))
			continue;
		if (g && (int)h == rule_hook) {
			tb_hook(t, h);
			tb_begin(t, g->ip);
			tb_target(t, g->name, g->rev, g->data, g->len);
		}
		tb_policy(t, h, V_ACCEPT);
	}
	tb_finish(t);
}

static int tbl_install(struct named_table *d)
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	tbl_build(&t, d->hooks, -1, NULL);
	tb_replace(&t, &req, d->name, d->hooks, named_entries(d->name));
	err = send_replace(&req, req.len);
	buf_free(&req);
	tb_free(&t);
	return err;
}

static void tbl_report(struct named_table *d, const char *what, int err)
{
	struct buf now = { 0 };
	const char *verdict = "intact";

	if (read_named(d->name, &now) || now.len != d->base.len ||
	    memcmp(now.data, d->base.data, now.len)) {
		verdict = "CHANGED";
		tbl_install(d);
	}
	printf("%s_%s: %s %s\n", d->name, what, err_name(err), verdict);
	fflush(stdout);
	buf_free(&now);
}

/* Mutations of a table's request (its hooks from valid_hooks). */
static unsigned int first_hook(struct buf *q)
{
	return __builtin_ctz(REPL(q)->valid_hooks);
}
static unsigned int last_hook(struct buf *q)
{
	return 31 - __builtin_clz(REPL(q)->valid_hooks);
}
static void t_hook_not_entry(struct buf *q) { REPL(q)->hook_entry[first_hook(q)] = 8; }
static void t_underflow_error(struct buf *q)
{
	/* the ERROR tail: ipt_entry, target header, error name */
	REPL(q)->underflow[last_hook(q)] = REPL(q)->size -
		(sizeof(struct ipt_entry) + sizeof(struct xt_entry_target) +
		 XT_FUNCTION_MAXNAMELEN);
}
static void t_underflow_next(struct buf *q)
{
	REPL(q)->underflow[first_hook(q)] += sizeof(struct ipt_entry) +
		XT_ALIGN(sizeof(struct xt_standard_target));
}
static void t_hooks_swapped(struct buf *q)
{
	struct ipt_replace *r = REPL(q);
	unsigned int a = first_hook(q), b = last_hook(q), x;

	x = r->hook_entry[a], r->hook_entry[a] = r->hook_entry[b], r->hook_entry[b] = x;
	x = r->underflow[a], r->underflow[a] = r->underflow[b], r->underflow[b] = x;
}
static void t_valid_hooks_less(struct buf *q)
{
	REPL(q)->valid_hooks &= ~(1u << first_hook(q));
}
static void t_num_counters_stale(struct buf *q) { REPL(q)->num_counters += 1; }

/*
 * SET_REPLACE of @d with a table laid out for @hooks (one rule @g at
 * @rule_hook), @mutate applied.  Accepted: the table's hash, then the
 * initial table back.
 */
static void tbl_case(struct named_table *d, const char *what,
		     unsigned int hooks, int rule_hook, const struct tgt *g,
		     void (*mutate)(struct buf *q))
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	tbl_build(&t, hooks, rule_hook, g);
	tb_replace(&t, &req, d->name, hooks, named_entries(d->name));
	if (mutate)
		mutate(&req);
	err = send_replace(&req, req.len);
	if (!err) {
		struct buf now = { 0 };

		read_named(d->name, &now);
		printf("%s_%s: ok, now %u entries, entries hash %016llx\n",
		       d->name, what, named_entries(d->name),
		       (unsigned long long)fnv1a(now.data, now.len));
		buf_free(&now);
		printf("%s_%s_reinstall: %s\n", d->name, what,
		       err_name(tbl_install(d)));
	} else {
		tbl_report(d, what, err);
	}
	buf_free(&req);
	tb_free(&t);
}

static void tbl_get_entries(struct named_table *d, const char *what,
			    int size_delta, int len_delta)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g;
	socklen_t len;
	int err;

	get_info(d->name, &info, sizeof(info));
	len = sizeof(*g) + info.size + len_delta;
	g = calloc(1, sizeof(*g) + info.size + 64);
	if (!g)
		abort();
	snprintf(g->name, sizeof(g->name), "%s", d->name);
	g->size = info.size + size_delta;
	err = getsockopt(sock, SOL_IP, IPT_SO_GET_ENTRIES, g, &len) ? errno : 0;
	free(g);
	tbl_report(d, what, err);
}

/* Layout and counter cases, the same for every table. */
static void tbl_layout_cases(struct named_table *d)
{
	unsigned int other = d->hooks == FILTER_HOOKS ? RAW_HOOKS : FILTER_HOOKS;
	unsigned int n = named_entries(d->name);

	tbl_case(d, "initial_again", d->hooks, -1, NULL, NULL);
	tbl_case(d, "valid_hooks_other", other, -1, NULL, NULL);
	tbl_case(d, "valid_hooks_less", d->hooks, -1, NULL, t_valid_hooks_less);
	tbl_case(d, "hook_not_entry", d->hooks, -1, NULL, t_hook_not_entry);
	tbl_case(d, "underflow_error", d->hooks, -1, NULL, t_underflow_error);
	tbl_case(d, "underflow_next", d->hooks, -1, NULL, t_underflow_next);
	tbl_case(d, "hooks_swapped", d->hooks, -1, NULL, t_hooks_swapped);
	tbl_case(d, "num_counters_stale", d->hooks, -1, NULL, t_num_counters_stale);
	tbl_report(d, "add_counters_fewer", add_counters(d->name, n - 1, 0, 1));
	tbl_report(d, "add_counters_more", add_counters(d->name, n + 1, 0, 1));
	tbl_report(d, "add_counters_ok", add_counters(d->name, n, 0, 3));
	tbl_get_entries(d, "get_entries_ok", 0, 0);
	tbl_get_entries(d, "get_entries_size_smaller", -8, -8);
	tbl_get_entries(d, "get_entries_size_larger", 8, 8);
	tbl_get_entries(d, "get_entries_len_short", 0, -1);
	tbl_get_entries(d, "get_entries_len_long", 0, 1);
}

/* Target payloads as iptables-legacy 1.8.9 sends them. */
static struct nf_nat_range2 nat_to(uint32_t addr)
{
	struct nf_nat_range2 r = { .flags = NF_NAT_RANGE_MAP_IPS };

	r.min_addr.ip = r.max_addr.ip = htonl(addr);
	return r;
}

static void run_target_cases(struct named_table *filter, struct named_table *nat,
			     struct named_table *mangle, struct named_table *raw,
			     struct named_table *security)
{
	static const struct nf_nat_ipv4_multi_range_compat compat1 = { .rangesize = 1 };
	static const struct nf_nat_ipv4_multi_range_compat compat2 = { .rangesize = 2 };
	struct nf_nat_ipv4_multi_range_compat compat_ips = { .rangesize = 1 };
	struct nf_nat_ipv4_multi_range_compat redir = { .rangesize = 1 };
	struct nf_nat_range2 dnat = nat_to(0x01020304), snat = nat_to(0xc0000205);
	struct xt_ct_target_info_v1 notrack = { .flags = XT_CT_NOTRACK };
	struct xt_ct_target_info_v1 zone = { .zone = 5 };
	struct xt_ct_target_info_v1 helper = { .helper = "nosuchhelper" };
	struct xt_mark_tginfo2 mark = { .mark = 0x10, .mask = 0xffffffff };
	struct xt_classify_target_info classify = { .priority = 0x10010 };
	struct ipt_TTL_info ttl = { .mode = IPT_TTL_SET, .ttl = 64 };
	struct ipt_TTL_info ttl_mode = { .mode = 7, .ttl = 64 };
	struct xt_connsecmark_target_info csm0 = { .mode = 0 };
	struct xt_connsecmark_target_info csm = { .mode = CONNSECMARK_SAVE };
	struct xt_CHECKSUM_info csum = { .operation = XT_CHECKSUM_OP_FILL };
	struct xt_tcpmss_info mss = { .mss = XT_TCPMSS_CLAMP_PMTU };
	const struct tgt
		g_dnat = { "DNAT", 2, &dnat, sizeof(dnat), NULL },
		g_dnat_small = { "DNAT", 2, &dnat, sizeof(dnat) - 8, NULL },
		g_snat = { "SNAT", 2, &snat, sizeof(snat), NULL },
		g_snat0 = { "SNAT", 0, &compat1, sizeof(compat1), NULL },
		g_masq = { "MASQUERADE", 0, &compat1, sizeof(compat1), NULL },
		g_masq2 = { "MASQUERADE", 0, &compat2, sizeof(compat2), NULL },
		g_masq_ips = { "MASQUERADE", 0, &compat_ips, sizeof(compat_ips), NULL },
		g_redir = { "REDIRECT", 0, &redir, sizeof(redir), &ip_tcp },
		g_netmap = { "NETMAP", 0, &compat_ips, sizeof(compat_ips), NULL },
		g_notrack = { "CT", 2, &notrack, sizeof(notrack), NULL },
		g_zone = { "CT", 2, &zone, sizeof(zone), NULL },
		g_helper = { "CT", 2, &helper, sizeof(helper), &ip_tcp },
		g_NOTRACK = { "NOTRACK", 0, NULL, 0, NULL },
		g_mark = { "MARK", 2, &mark, sizeof(mark), NULL },
		g_classify = { "CLASSIFY", 0, &classify, sizeof(classify), NULL },
		g_ttl = { "TTL", 0, &ttl, sizeof(ttl), NULL },
		g_ttl_mode = { "TTL", 0, &ttl_mode, sizeof(ttl_mode), NULL },
		g_csm0 = { "CONNSECMARK", 0, &csm0, sizeof(csm0), NULL },
		g_csm = { "CONNSECMARK", 0, &csm, sizeof(csm), NULL },
		g_csum = { "CHECKSUM", 0, &csum, sizeof(csum), &ip_udp },
		g_mss_any = { "TCPMSS", 0, &mss, sizeof(mss), NULL };

	compat_ips.range[0].flags = NF_NAT_RANGE_MAP_IPS;
	compat_ips.range[0].min_ip = htonl(0x0a030000);
	compat_ips.range[0].max_ip = htonl(0x0a0300ff);
	redir.range[0].flags = NF_NAT_RANGE_PROTO_SPECIFIED;
	redir.range[0].min.tcp.port = redir.range[0].max.tcp.port = htons(3128);

	/* nat targets where ip_tables' hooks or tables refuse them */
	tbl_case(filter, "dnat_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_dnat, NULL);
	tbl_case(filter, "masquerade_in_forward", FILTER_HOOKS, NF_INET_FORWARD, &g_masq, NULL);
	tbl_case(filter, "snat_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_snat, NULL);
	tbl_case(filter, "redirect_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_redir, NULL);
	tbl_case(mangle, "dnat_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_dnat, NULL);
	tbl_case(nat, "masquerade_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_masq, NULL);
	tbl_case(nat, "redirect_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_redir, NULL);
	tbl_case(nat, "dnat_in_input", NAT_HOOKS, NF_INET_LOCAL_IN, &g_dnat, NULL);
	tbl_case(nat, "snat_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_snat, NULL);
	/* nat targets the checkentry refuses */
	tbl_case(nat, "masquerade_rangesize2", NAT_HOOKS, NF_INET_POST_ROUTING, &g_masq2, NULL);
	tbl_case(nat, "masquerade_map_ips", NAT_HOOKS, NF_INET_POST_ROUTING, &g_masq_ips, NULL);
	tbl_case(nat, "snat0_rangesize2", NAT_HOOKS, NF_INET_POST_ROUTING,
		 &(struct tgt){ "SNAT", 0, &compat2, sizeof(compat2), NULL }, NULL);
	tbl_case(nat, "dnat_size_small", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_dnat_small, NULL);
	/* nat targets where they belong */
	tbl_case(nat, "dnat_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_dnat, NULL);
	tbl_case(nat, "dnat_in_output", NAT_HOOKS, NF_INET_LOCAL_OUT, &g_dnat, NULL);
	tbl_case(nat, "snat_in_input", NAT_HOOKS, NF_INET_LOCAL_IN, &g_snat, NULL);
	tbl_case(nat, "snat0_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_snat0, NULL);
	tbl_case(nat, "masquerade_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_masq, NULL);
	tbl_case(nat, "redirect_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_redir, NULL);
	tbl_case(nat, "netmap_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_netmap, NULL);
	/* raw's targets */
	tbl_case(filter, "ct_notrack_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_notrack, NULL);
	tbl_case(filter, "NOTRACK_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_NOTRACK, NULL);
	tbl_case(mangle, "ct_notrack_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_notrack, NULL);
	tbl_case(raw, "ct_notrack_in_prerouting", RAW_HOOKS, NF_INET_PRE_ROUTING, &g_notrack, NULL);
	tbl_case(raw, "ct_zone_in_output", RAW_HOOKS, NF_INET_LOCAL_OUT, &g_zone, NULL);
	tbl_case(raw, "NOTRACK_in_output", RAW_HOOKS, NF_INET_LOCAL_OUT, &g_NOTRACK, NULL);
	tbl_case(raw, "ct_no_such_helper", RAW_HOOKS, NF_INET_PRE_ROUTING, &g_helper, NULL);
	tbl_case(raw, "dnat_in_prerouting", RAW_HOOKS, NF_INET_PRE_ROUTING, &g_dnat, NULL);
	/* mangle's targets, and MARK, which every table may use */
	tbl_case(filter, "mark_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_mark, NULL);
	tbl_case(mangle, "mark_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_mark, NULL);
	tbl_case(nat, "mark_in_output", NAT_HOOKS, NF_INET_LOCAL_OUT, &g_mark, NULL);
	tbl_case(filter, "ttl_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_ttl, NULL);
	tbl_case(mangle, "ttl_in_forward", MANGLE_HOOKS, NF_INET_FORWARD, &g_ttl, NULL);
	tbl_case(mangle, "ttl_bad_mode", MANGLE_HOOKS, NF_INET_FORWARD, &g_ttl_mode, NULL);
	tbl_case(filter, "checksum_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csum, NULL);
	tbl_case(mangle, "checksum_in_postrouting", MANGLE_HOOKS, NF_INET_POST_ROUTING, &g_csum, NULL);
	tbl_case(mangle, "classify_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_classify, NULL);
	tbl_case(mangle, "classify_in_postrouting", MANGLE_HOOKS, NF_INET_POST_ROUTING, &g_classify, NULL);
	tbl_case(mangle, "tcpmss_without_tcp", MANGLE_HOOKS, NF_INET_FORWARD, &g_mss_any, NULL);
	/* security's */
	tbl_case(security, "connsecmark_mode0", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csm0, NULL);
	tbl_case(security, "connsecmark_save", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csm, NULL);
	tbl_case(filter, "connsecmark_save", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csm, NULL);
	tbl_case(security, "masquerade_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_masq, NULL);
}

void run_table_cases(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct named_table *d = &tables[i];
		struct ipt_getinfo info;
		char label[64];
		int err;

		err = get_info(d->name, &info, sizeof(info));
		if (err) {
			printf("%s_get_info: %s\n", d->name, err_name(err));
			continue;
		}
		snprintf(label, sizeof(label), "%s_get_info", d->name);
		print_info(label, &info);
		err = tbl_install(d);
		if (!err)
			err = read_named(d->name, &d->base);
		printf("%s_initial: %s, %zu bytes, entries hash %016llx\n",
		       d->name, err_name(err), d->base.len,
		       (unsigned long long)fnv1a(d->base.data, d->base.len));
		if (!err)
			tbl_layout_cases(d);
	}
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (!tables[i].base.len)
			return;		/* reported above */
	run_target_cases(&tables[0], &tables[1], &tables[2], &tables[3],
			 &tables[4]);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		buf_free(&tables[i].base);
}
