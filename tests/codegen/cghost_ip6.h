/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's IPv6 cases (included by it; kmod only, the one flavor that
 * compiles IPv6 tables): an ip6t_entry table through the real front and
 * back end, run in the interpreter on IPv6 packets with extension
 * headers, each verdict (and the deciding rule's counter) written down
 * from ip6_tables.c's ip6_packet_match() and exthdrs_core.c's
 * ipv6_find_hdr(), not from the code generator: the headers skipped, a
 * later fragment (no port match), type 255 of icmp6 (no "any"), a short
 * transport header (hotdrop), and the packets the program must hand to
 * the module's walk of the whole hook (a resume record of the hook's
 * entry): more than CG_IP6_MAX_EXT headers, a truncated one, a later
 * fragment followed by another extension header (ip6_tables' hotdrop).
 */
#include <netinet/in.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include <ebpfilter/proto.h>

#include "cgen/abi.h"
#include "ipt_builder.h"

#define P6_FRAG_LATER	1044	/* a fragment header, offset 8 */
#define P6_WALK		2	/* host_run()'s EBPF_PROG_WALK */

/* an IPv6 packet from 2001:db8::@src to 2001:db8::1: the extension
 * headers @hdrs (0-terminated list, P6_FRAG_LATER for a later fragment;
 * -1 first: none), then @proto with @l4len bytes (tcp/udp: dport @port;
 * icmpv6: type @port); returns its length */
static unsigned int p6_build(unsigned char *b, unsigned char src, const int *hdrs,
			     int proto, int port, unsigned int l4len)
{
	unsigned int n = 40, k;
	unsigned char *nh = b + 6;

	memset(b, 0, 512);
	b[0] = 0x60;
	b[7] = 64;
	b[8] = 0x20, b[9] = 0x01, b[10] = 0x0d, b[11] = 0xb8, b[23] = src;
	b[24] = 0x20, b[25] = 0x01, b[26] = 0x0d, b[27] = 0xb8, b[39] = 1;
	for (k = 0; hdrs && hdrs[k] > 0; k++) {
		int h = hdrs[k] == P6_FRAG_LATER ? 44 : hdrs[k];
		unsigned int len = h == 51 ? 12 : 8;

		*nh = (unsigned char)h;
		nh = b + n;
		if (h == 51)
			b[n + 1] = 1;	/* (1 + 2) * 4 */
		if (h == 43)
			b[n + 2] = 4;	/* segment routing, segments left 0 */
		if (hdrs[k] == P6_FRAG_LATER)
			b[n + 3] = 8;	/* offset 8 bytes (1 << 3) */
		n += len;
	}
	*nh = (unsigned char)proto;
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		b[n + 2] = (unsigned char)(port >> 8);
		b[n + 3] = (unsigned char)port;
		if (proto == IPPROTO_TCP)
			b[n + 12] = 0x50, b[n + 13] = 0x02;	/* SYN */
	} else if (proto == IPPROTO_ICMPV6) {
		b[n] = (unsigned char)port;
	}
	n += l4len;
	b[4] = (unsigned char)((n - 40) >> 8);
	b[5] = (unsigned char)(n - 40);
	return n;
}

/* @p as the module gives it to a program at LOCAL_IN, with the conntrack
 * state @ct (IR_CT_* bits, as xt_conntrack computes them): 1, 0, P6_WALK */
static int p6_run_ct(struct shared *sh, const struct hprog *h, unsigned char *p,
		     unsigned int n, unsigned int headlen, __u32 ct, char *err,
		     size_t len)
{
	struct ip_env e;
	__u64 r = 0;

	memset(&e, 0, sizeof(e));
	e.budget = 20000000;
	e.ctx = IP_CTX_TC;
	e.skb.protocol = htons(0x86dd);
	e.skb.cb[EBPF_CB_IN_IFINDEX] = 1;
	e.skb.cb[EBPF_CB_CTSTATE] = ct;
	e.skb.cb[EBPF_CB_HOOK] = NF_INET_LOCAL_IN;
	e.pkt = p;
	e.pkt_len = n;
	e.headlen = headlen && headlen < n ? headlen : n;
	if (ip_run(&e, &h->ip, &r)) {
		snprintf(err, len, "%s", e.err);
		return -EFAULT;
	}
	if (r == EBPF_PROG_WALK) {	/* as p6_ref() sees it */
		struct ref_pkt rp;

		memset(&rp, 0, sizeof(rp));
		if (ref_pkt_from6(&rp, p, n, CG_IP6_MAX_EXT) < 0)
			return P6_WALK;
		strcpy(rp.in, "eth0");
		rp.ctstate = ct;
		return shared_module_walk(sh, NF_INET_LOCAL_IN, &rp);
	}
	return r == EBPF_PROG_ACCEPT ? 1 : r == EBPF_PROG_DROP ? 0 : -ERANGE;
}

/* the same without a conntrack state (0: no IR_CT_* bit) */
static int p6_run(struct shared *sh, const struct hprog *h, unsigned char *p,
		  unsigned int n, unsigned int headlen, char *err, size_t len)
{
	return p6_run_ct(sh, h, p, n, headlen, 0, err, len);
}

/* @t's filter table as the module hands it to the helper */
static void p6_view(const struct tb *t, struct ipt_table_view *v)
{
	memset(v, 0, sizeof(*v));
	v->name = "filter";
	v->netns = EBPF_NETNS_INIT;
	v->family = NFPROTO_IPV6;
	v->entries = t->b.data;
	v->size = t->b.len;
	v->num_entries = t->num_entries;
	v->valid_hooks = FILTER_HOOKS;
	for (int k = 0; k < NF_INET_NUMHOOKS; k++) {
		v->hook_entry[k] = (FILTER_HOOKS & (1u << k)) ? t->hook_entry[k] : ~0u;
		v->underflow[k] = (FILTER_HOOKS & (1u << k)) ? t->underflow[k] : ~0u;
	}
}

/* Did entry @rule (-1: none) count one packet of @n bytes and every other
 * entry nothing?  -1 if so, else the first entry that did not (its packets
 * in @pkts). */
static int p6_wrong_counter(const struct shared *sh, const struct ir_table *ir,
			    int rule, unsigned int n, __u64 *pkts)
{
	for (unsigned int k = 0; k < ir->nrules; k++) {
		struct cg_counter cn = shared_counter(sh, k);
		__u64 want = (int)k == rule;

		if (cn.pkts != want || cn.bytes != want * n) {
			*pkts = cn.pkts;
			return (int)k;
		}
	}
	return -1;
}

static void ip6_cases(const struct flavor *f)
{
	static const struct ip6t_ip6 src1 = {
		.src.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		.smsk.s6_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	static const struct ip6t_ip6 tcp = { .proto = IPPROTO_TCP, .flags = IP6T_F_PROTO },
		udp = { .proto = IPPROTO_UDP, .flags = IP6T_F_PROTO },
		icmp6 = { .proto = IPPROTO_ICMPV6, .flags = IP6T_F_PROTO },
		none = { .proto = 59, .flags = IP6T_F_PROTO },
		notudp = { .proto = IPPROTO_UDP, .flags = IP6T_F_PROTO,
			   .invflags = IP6T_INV_PROTO };
	struct xt_tcp t22 = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct xt_udp u53 = { .spts = { 0, 0xffff }, .dpts = { 53, 53 } };
	struct ip6t_icmp i255 = { .type = 255, .code = { 0, 255 } },
		i128 = { .type = 128, .code = { 0, 255 } };
	static const int hbh_dst[] = { 0, 60, 0 }, rt[] = { 43, 0 }, ah[] = { 51, 0 },
		first[] = { 44, 0 }, later[] = { P6_FRAG_LATER, 0 },
		later_ext[] = { P6_FRAG_LATER, 60, 0 },
		eight[] = { 60, 60, 60, 60, 60, 60, 60, 60, 0 },
		nine[] = { 60, 60, 60, 60, 60, 60, 60, 60, 60, 0 };
	/* rules: 0 -s ::1 DROP, 1 tcp 22 DROP, 2 udp 53 ACCEPT,
	 * 3 icmp6 255 DROP, 4 icmp6 128 DROP, 5 -p 59 DROP, 6 ! -p udp DROP,
	 * then the ACCEPT policy */
	static const struct {
		const char *name;
		unsigned char src;
		const int *hdrs;
		int proto, port;
		unsigned int l4len;
		int want, rule;		/* verdict, the rule counted (-1) */
	} pc[] = {
		{ "ip6: source address", 1, NULL, IPPROTO_UDP, 9, 8, 0, 0 },
		{ "ip6: tcp 22", 2, NULL, IPPROTO_TCP, 22, 20, 0, 1 },
		{ "ip6: tcp 80", 2, NULL, IPPROTO_TCP, 80, 20, 0, 6 },
		{ "ip6: udp 53", 2, NULL, IPPROTO_UDP, 53, 8, 1, 2 },
		{ "ip6: udp 54: policy", 2, NULL, IPPROTO_UDP, 54, 8, 1, 7 },
		{ "ip6: hbh, dstopts, tcp 22", 2, hbh_dst, IPPROTO_TCP, 22, 20, 0, 1 },
		{ "ip6: routing, udp 53", 2, rt, IPPROTO_UDP, 53, 8, 1, 2 },
		{ "ip6: AH, tcp 22", 2, ah, IPPROTO_TCP, 22, 20, 0, 1 },
		{ "ip6: first fragment, udp 53", 2, first, IPPROTO_UDP, 53, 8, 1, 2 },
		{ "ip6: later fragment of udp 53: no port match", 2, later, IPPROTO_UDP,
		  53, 8, 1, 7 },
		{ "ip6: later fragment of tcp: ! -p udp", 2, later, IPPROTO_TCP, 22, 20, 0, 6 },
		{ "ip6: later fragment, then dstopts: the walk", 2, later_ext,
		  IPPROTO_UDP, 53, 8, P6_WALK, -1 },
		{ "ip6: 8 extension headers, udp 53", 2, eight, IPPROTO_UDP, 53, 8, 1, 2 },
		{ "ip6: 9 extension headers: the walk", 2, nine, IPPROTO_UDP, 53, 8,
		  P6_WALK, -1 },
		{ "ip6: icmp6 type 255", 2, NULL, IPPROTO_ICMPV6, 255, 8, 0, 3 },
		{ "ip6: icmp6 type 128", 2, NULL, IPPROTO_ICMPV6, 128, 8, 0, 4 },
		{ "ip6: icmp6 type 129: no type matches it", 2, NULL, IPPROTO_ICMPV6,
		  129, 8, 0, 6 },
		{ "ip6: no next header", 2, NULL, 59, 0, 0, 0, 5 },
		{ "ip6: short tcp header: hotdrop", 2, NULL, IPPROTO_TCP, 22, 10, 0, -1 },
		{ "ip6: truncated hop-by-hop header: the walk", 2, NULL, 0, 0, 1,
		  P6_WALK, -1 },
	};
	struct tb t;
	struct ipt_table_view v;
	struct ir_table ir;
	struct shared sh;
	struct hprog h;
	unsigned char pkt[512];
	char err[1024] = "";
	size_t i;
	int r;

	if (f->mech != CG_KMOD || (filter && !strstr(filter, "ip6")))
		return;
	tb_init6(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin6(&t, &src1);
	tb_std(&t, V_DROP);
	tb_begin6(&t, &tcp);
	tb_match(&t, "tcp", 0, &t22, sizeof(t22));
	tb_std(&t, V_DROP);
	tb_begin6(&t, &udp);
	tb_match(&t, "udp", 0, &u53, sizeof(u53));
	tb_std(&t, V_ACCEPT);
	tb_begin6(&t, &icmp6);
	tb_match(&t, "icmp6", 0, &i255, sizeof(i255));
	tb_std(&t, V_DROP);
	tb_begin6(&t, &icmp6);
	tb_match(&t, "icmp6", 0, &i128, sizeof(i128));
	tb_std(&t, V_DROP);
	tb_begin6(&t, &none);
	tb_std(&t, V_DROP);
	tb_begin6(&t, &notudp);
	tb_std(&t, V_DROP);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	p6_view(&t, &v);
	memset(&sh, 0, sizeof(sh));
	memset(&h, 0, sizeof(h));
	if (ir_build_ext(&v, IR_KERNEL_WALKS, &ir, err, sizeof(err))) {
		result(false, f->name, "ip6: table", "rules: %s", err);
		tb_free(&t);
		return;
	}
	r = gen_hook(f, &ir, CG_INPUT, false, &h, &sh, "ip6", err, sizeof(err));
	result(r == 0, f->name, "ip6: compiled", "codegen: %s", err);
	for (i = 0; !r && i < sizeof(pc) / sizeof(pc[0]); i++) {
		unsigned int n = p6_build(pkt, pc[i].src, pc[i].hdrs, pc[i].proto,
					  pc[i].port, pc[i].l4len);
		bool ok = true;

		/* wholly linear, and only the IPv6 header linear */
		for (unsigned int hl = 0; hl <= 40 && ok; hl += 40) {
			struct ebpf_resume w;
			int got;

			shared_zero_counters(&sh);
			got = p6_run(&sh, &h, pkt, n, hl, err, sizeof(err));
			if (got != pc[i].want) {
				result(false, f->name, pc[i].name, "headlen %u: %s, expected %s%s%s",
				       hl, verdict_name(got), verdict_name(pc[i].want),
				       got == -EFAULT ? ": " : "", got == -EFAULT ? err : "");
				ok = false;
			} else if (got == P6_WALK &&
				   (!shared_resume(&sh, &w) || w.depth ||
				    w.entry != ir.rules[ir.hook_entry[NF_INET_LOCAL_IN]].off)) {
				result(false, f->name, pc[i].name,
				       "not handed over at the hook's entry");
				ok = false;
			}
			if (ok) {
				__u64 pkts;
				int k = p6_wrong_counter(&sh, &ir, pc[i].rule, n, &pkts);

				if (k >= 0) {
					result(false, f->name, pc[i].name,
					       "headlen %u: entry %d counted %llu", hl, k,
					       (unsigned long long)pkts);
					ok = false;
				}
			}
		}
		if (ok)
			result(true, f->name, pc[i].name, NULL);
	}
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
	tb_free(&t);
}
