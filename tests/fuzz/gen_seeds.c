// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seed corpus of fuzz_replace into the directory given as
 * argv[1]: request sequences (see fuzz_replace.c for the format) around
 * real-looking tables built with tests/lib/ipt_builder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "ipt_builder.h"

static const char *dir;
static unsigned int nseeds;

static void put(struct buf *seq, int op, int fix, const struct buf *payload)
{
	unsigned char h[4] = { op, fix, payload->len & 0xff, payload->len >> 8 };

	if (payload->len > 0xffff)
		abort();
	buf_append(seq, h, 4);
	buf_append(seq, payload->data, payload->len);
}

static void write_seed(const struct buf *seq)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%03u", dir, nseeds++);
	f = fopen(path, "wb");
	if (!f || fwrite(seq->data, 1, seq->len, f) != seq->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* the fuzzer's OP_IPV6: the request is served in the IPv6 tables */
#define OP_IPV6	0x80

/* REPLACE @t, read it back, add counters, count packets, restore. */
static void seed_table(struct tb *t)
{
	int fam = t->ip6 ? OP_IPV6 : 0;

	struct buf seq = { 0 }, p = { 0 };
	struct ipt_get_entries g = { .name = "filter" };
	unsigned char pkt[8] = { 1 };

	tb_replace(t, &p, "filter", FILTER_HOOKS, 4);
	put(&seq, fam | 0, 0x07, &p);
	write_seed(&seq);

	buf_reset(&p);
	buf_append(&p, &g, sizeof(g));
	put(&seq, fam | 3, 0x09, &p);
	tb_counters(&p, "filter", t->num_entries, 5, 500);
	put(&seq, fam | 1, 0x05, &p);
	buf_reset(&p);
	buf_append(&p, pkt, sizeof(pkt));
	put(&seq, 7, 0, &p);
	/* a second replace of the same table (libiptc's -Z) */
	tb_replace(t, &p, "filter", FILTER_HOOKS, t->num_entries);
	put(&seq, fam | 0, 0x07, &p);
	write_seed(&seq);
	buf_free(&seq);
	buf_free(&p);
}

static void seed_small_requests(void)
{
	struct buf seq = { 0 }, p = { 0 };
	struct xt_get_revision r = { .name = "conntrack", .revision = 3 };
	char name[32] = "filter";

	buf_append(&p, name, sizeof(name));
	put(&seq, 2, 0, &p);
	buf_reset(&p);
	buf_append(&p, &r, sizeof(r));
	put(&seq, 4, 0, &p);
	strcpy(r.name, "ERROR");
	r.revision = 0;
	buf_reset(&p);
	buf_append(&p, &r, sizeof(r));
	put(&seq, 5, 0, &p);
	write_seed(&seq);
	buf_free(&seq);
	buf_free(&p);
}

int main(int argc, char **argv)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { 53, 53 } };
	struct ipt_icmp icmp = { .type = 8, .code = { 0, 0xff } };
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_EITHER, .count = 3,
				      .ports = { 80, 1000, 2000 },
				      .pflags = { 0, 1, 0 } };
	struct xt_iprange_mtinfo ipr = { .flags = IPRANGE_DST | IPRANGE_DST_INV };
	struct xt_comment_info com = { .comment = "seed" };
	struct xt_conntrack_mtinfo3 ct = { .match_flags = XT_CONNTRACK_STATE,
		.state_mask = XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED) };
	struct xt_state_info st = { .statemask = XT_STATE_BIT(IP_CT_NEW) };
	struct ipt_ip net10 = { .src.s_addr = htonl(0x0a000000),
				.smsk.s_addr = htonl(0xff000000),
				.iniface = "eth+", .iniface_mask = { 0xff, 0xff, 0xff } };
	struct tb t;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];

	tb_filter_initial(&t);
	seed_table(&t);
	tb_free(&t);

	/* the ABI notes' table */
	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, &ip_tcp);
	tb_match(&t, "tcp", 0, &tcp, sizeof(tcp));
	tb_jump(&t, "MYCHAIN", false);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_DROP);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(&t, "MYCHAIN");
	tb_begin(&t, &net10);
	tb_std(&t, V_DROP);
	tb_begin(&t, NULL);
	tb_std(&t, XT_RETURN);
	tb_chain_end(&t);
	tb_finish(&t);
	seed_table(&t);
	tb_free(&t);

	/* every extension */
	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, &ip_tcp);
	tb_match(&t, "tcp", 0, &tcp, sizeof(tcp));
	tb_match(&t, "comment", 0, &com, sizeof(com));
	tb_match(&t, "multiport", 1, &mp, sizeof(mp));
	tb_std(&t, V_ACCEPT);
	tb_begin(&t, &ip_udp);
	tb_match(&t, "udp", 0, &udp, sizeof(udp));
	tb_jump(&t, "a", true);
	tb_begin(&t, &ip_icmp);
	tb_match(&t, "icmp", 0, &icmp, sizeof(icmp));
	tb_jump(&t, "b", false);
	tb_policy(&t, NF_INET_LOCAL_IN, V_DROP);
	tb_hook(&t, NF_INET_FORWARD);
	tb_begin(&t, NULL);
	tb_match(&t, "conntrack", 3, &ct, sizeof(ct));
	tb_std(&t, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_DROP);
	tb_hook(&t, NF_INET_LOCAL_OUT);
	tb_begin(&t, NULL);
	tb_match(&t, "state", 0, &st, sizeof(st));
	tb_match(&t, "iprange", 1, &ipr, sizeof(ipr));
	tb_jump(&t, "a", false);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(&t, "a");
	tb_begin(&t, &net10);
	tb_jump(&t, "b", false);
	tb_chain_end(&t);
	tb_chain(&t, "b");
	tb_begin(&t, &ip_tcp);
	tb_std(&t, V_QUEUE);
	tb_chain_end(&t);
	tb_finish(&t);
	seed_table(&t);
	tb_free(&t);

	/* ip6_tables: the initial table, and the notes' (tb_notes6()) */
	tb_filter_initial6(&t);
	seed_table(&t);
	tb_free(&t);
	tb_notes6(&t);
	seed_table(&t);
	tb_free(&t);

	seed_small_requests();
	printf("%u seeds in %s\n", nseeds, dir);
	return 0;
}
