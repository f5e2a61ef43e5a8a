/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's IPv6 cases of the matches compiled for IPv6 beside tcp, udp
 * and icmp6 (included after cghost_ip6_cls.h, whose helpers they use;
 * kmod only): multiport, whose ports lie at the transport header
 * ipv6_find_hdr() found, and state/conntrack --ctstate, the state the
 * module computes for IPv6 packets as for IPv4 ones (cb[EBPF_CB_CTSTATE]).
 * Each table's packets have their verdict and counted rule written down
 * from ip6_packet_match() and the xt_* match functions; every one is also
 * run through the reference (ref.c, ref_pkt_from6()), which must say the
 * same, and every rule must be compiled, not the kernel's (a rule left to
 * the module's walk would hand its packets over, and no case expects
 * that but the ones the prologue hands over).
 */

#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_state.h>

#include "cgen/abi.h"

/* one packet of a hand-written IPv6 case */
struct p6_case {
	const char *name;
	unsigned char src;	/* 2001:db8::@src */
	const int *hdrs;	/* p6_build()'s extension headers */
	int proto;
	__u16 sport, dport;	/* icmpv6: dport is the type */
	unsigned int l4len;
	__u32 ct;		/* IR_CT_* bits, as the module gives them */
	int want, rule;		/* verdict, the rule counted (-1: none) */
	/* the entry counted after @rule, + 1 (0: none): a RETURN's policy,
	 * a goto's chain */
	unsigned int then;
	/* 2001:db8:0:@snet::@src instead (0: net 0), to 2001:db8:0:@dnet::@dst
	 * (@dst 0: 2001:db8::1) */
	unsigned char snet, dnet, dst;
};

/* the reference's verdict for @pkt (in "eth0", no output device, @ct),
 * its counters into @ctr, its record into @w */
static int p6_ref(const struct ir_table *ir, const unsigned char *pkt, unsigned int n,
		  __u32 ct, struct cg_counter *ctr, struct ebpf_resume *w)
{
	struct ref_pkt rp;

	memset(&rp, 0, sizeof(rp));
	memset(ctr, 0, ir->nrules * sizeof(*ctr));
	memset(w, 0, sizeof(*w));
	if (ref_pkt_from6(&rp, pkt, n, CG_IP6_MAX_EXT) < 0) {
		/* the module's walk of the whole hook, nothing counted */
		w->entry = ir->rules[ir->hook_entry[NF_INET_LOCAL_IN]].off;
		return P6_WALK;
	}
	strcpy(rp.in, "eth0");
	rp.ctstate = ct;
	return ref_eval(ir, NF_INET_LOCAL_IN, &rp, ctr, w);
}

/* the packet of @pc into @pkt: p6_build()'s, with both ports written for
 * any protocol (p6_build() writes tcp's and udp's destination port) */
static unsigned int p6_case_pkt(const struct p6_case *pc, unsigned char *pkt)
{
	unsigned int n = p6_build(pkt, pc->src, pc->hdrs, pc->proto, pc->dport,
				  pc->l4len);
	unsigned char *l4 = pkt + n - pc->l4len;

	c6_addr(pkt + 8, pc->snet, pc->src);
	if (pc->dst)
		c6_addr(pkt + 24, pc->dnet, pc->dst);

	if (pc->proto != IPPROTO_ICMPV6 && pc->l4len >= 2) {
		l4[0] = (unsigned char)(pc->sport >> 8);
		l4[1] = (unsigned char)pc->sport;
	}
	if (pc->proto != IPPROTO_ICMPV6 && pc->l4len >= 4) {
		l4[2] = (unsigned char)(pc->dport >> 8);
		l4[3] = (unsigned char)pc->dport;
	}
	return n;
}

/* one case: wholly linear and only the IPv6 header linear; the program
 * and the reference must both give the written-down verdict and count */
static void p6_case_run(const struct flavor *f, const char *what, struct shared *sh,
			const struct hprog *h, const struct ir_table *ir,
			const struct p6_case *pc)
{
	struct cg_counter *ctr = calloc(ir->nrules, sizeof(*ctr));
	unsigned char pkt[512];
	unsigned int n = p6_case_pkt(pc, pkt);
	struct ebpf_resume w, rw;
	char err[1024] = "", name[160];
	int got, want, k;

	snprintf(name, sizeof(name), "%s: %s", what, pc->name);
	if (!ctr) {
		result(false, f->name, name, "out of memory");
		return;
	}
	want = p6_ref(ir, pkt, n, pc->ct, ctr, &rw);
	k = -1;
	for (unsigned int e = 0; e < ir->nrules && k < 0; e++) {
		__u64 c = ((int)e == pc->rule) + (e + 1 == pc->then);

		if (ctr[e].pkts != c || ctr[e].bytes != c * n)
			k = (int)e;
	}
	if (want != pc->want || k >= 0) {
		result(false, f->name, name, "the reference says %s (entry %d counted), the case %s",
		       verdict_name(want), k, verdict_name(pc->want));
		goto out;
	}
	for (unsigned int hl = 0; hl <= 40; hl += 40) {
		shared_zero_counters(sh);
		got = p6_run_ct(sh, h, pkt, n, hl, pc->ct, err, sizeof(err));
		memset(&w, 0, sizeof(w));
		if (got == P6_WALK && !shared_resume(sh, &w))
			got = -ERANGE;
		if (got != pc->want) {
			result(false, f->name, name, "headlen %u: %s, expected %s%s%s", hl,
			       verdict_name(got), verdict_name(pc->want),
			       got == -EFAULT ? ": " : "", got == -EFAULT ? err : "");
			goto out;
		}
		if (got == P6_WALK && memcmp(&w, &rw, sizeof(w))) {
			result(false, f->name, name, "headlen %u: handed over at %u, not %u",
			       hl, w.entry, rw.entry);
			goto out;
		}
		k = host_ref_counters(sh, ctr, ir->nrules);
		if (k >= 0) {
			result(false, f->name, name, "headlen %u: entry %d counted %llu", hl,
			       k, (unsigned long long)shared_counter(sh, (unsigned int)k).pkts);
			goto out;
		}
	}
	result(true, f->name, name, NULL);
out:
	free(ctr);
}

/* @t compiled for LOCAL_IN (c6_compile()), every rule the program's,
 * with @nmaps maps called @map (if @map); then @pc's packets */
static void p6_table_cases(const struct flavor *f, const char *what, struct tb *t,
			   const struct p6_case *pc, size_t npc, const char *map,
			   unsigned int nmaps)
{
	struct hprog h;
	struct shared sh;
	struct ir_table ir;
	char err[1024] = "", name[160];
	int r, kernel = -1;

	memset(&h, 0, sizeof(h));
	memset(&sh, 0, sizeof(sh));
	memset(&ir, 0, sizeof(ir));
	r = c6_compile(f, t, &ir, false, &h, &sh, err, sizeof(err));
	for (unsigned int k = 0; !r && k < ir.nrules && kernel < 0; k++)
		if (ir.rules[k].kernel)
			kernel = (int)k;
	for (unsigned int k = 0; !r && map && k < h.cg.nmaps; k++)
		nmaps -= !strcmp(h.cg.maps[k].name, map);
	if (!r && map && nmaps) {
		snprintf(err, sizeof(err), "%u %s maps too few (or too many)", nmaps, map);
		r = -1;
	}
	snprintf(name, sizeof(name), "%s: compiled, no rule the kernel's", what);
	if (r)
		result(false, f->name, name, "%s", err);
	else
		result(kernel < 0, f->name, name, "rule %d is the kernel's", kernel);
	for (size_t i = 0; !r && kernel < 0 && i < npc; i++)
		p6_case_run(f, what, &sh, &h, &ir, &pc[i]);
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
}

/* -p @proto [-s 2001:db8::@src] -m multiport @mode @ports [!] -j @verdict */
static void p6_multiport_rule(struct tb *t, int proto, unsigned char src, __u8 mode,
			      const char *spec, bool inv, int verdict)
{
	struct ip6t_ip6 ip = { .proto = (__u16)proto, .flags = IP6T_F_PROTO };
	struct xt_multiport_v1 mp = { .flags = mode, .invert = inv };
	const char *s = spec;

	if (src) {
		c6_addr(ip.src.s6_addr, 0, src);
		c6_prefix(ip.smsk.s6_addr, 128);
	}
	/* "22,80:90": a range takes two slots, the first flagged */
	while (*s && mp.count < XT_MULTI_PORTS) {
		char *end;

		mp.ports[mp.count++] = (__u16)strtoul(s, &end, 10);
		if (*end == ':') {
			mp.pflags[mp.count - 1] = 1;
			mp.ports[mp.count++] = (__u16)strtoul(end + 1, &end, 10);
		}
		s = *end ? end + 1 : end;
	}
	tb_begin6(t, &ip);
	tb_match(t, "multiport", 1, &mp, sizeof(mp));
	tb_std(t, verdict);
}

static void ip6_multiport_cases(const struct flavor *f)
{
	static const int hbh_dst[] = { 0, 60, 0 }, rt[] = { 43, 0 },
		later[] = { P6_FRAG_LATER, 0 },
		nine[] = { 60, 60, 60, 60, 60, 60, 60, 60, 60, 0 };
	/* rules: 0 -p tcp --dports 22,80:90 DROP, 1 -p udp --sports 53,123
	 * ACCEPT, 2 -p sctp --ports 5000 DROP, 3 -p tcp ! --dports 1:1000
	 * ACCEPT, 4 -s ::9 -p udp --dports 7 DROP; the DROP policy is 5 */
	static const struct p6_case pc[] = {
		{ "tcp 22", 2, NULL, IPPROTO_TCP, 1, 22, 20, 0, 0, 0 },
		{ "tcp 85 in 80:90", 2, NULL, IPPROTO_TCP, 1, 85, 20, 0, 0, 0 },
		{ "tcp 2000 ! in 1:1000", 2, NULL, IPPROTO_TCP, 1, 2000, 20, 0, 1, 3 },
		{ "tcp 500: the policy", 2, NULL, IPPROTO_TCP, 1, 500, 20, 0, 0, 5 },
		{ "hbh, dstopts, tcp 90", 2, hbh_dst, IPPROTO_TCP, 1, 90, 20, 0, 0, 0 },
		{ "udp source 123", 2, NULL, IPPROTO_UDP, 123, 9, 8, 0, 1, 1 },
		{ "udp destination 53 is no source", 2, NULL, IPPROTO_UDP, 9, 53, 8, 0, 0, 5 },
		{ "udp 4 bytes: ports, no hotdrop", 2, NULL, IPPROTO_UDP, 53, 9, 4, 0, 1, 1 },
		{ "routing, sctp source 5000", 2, rt, 132, 5000, 1, 12, 0, 0, 2 },
		{ "sctp destination 5000", 2, NULL, 132, 1, 5000, 12, 0, 0, 2 },
		{ "sctp 3 bytes: hotdrop", 2, NULL, 132, 5000, 1, 3, 0, 0, -1 },
		{ "tcp 2 bytes: hotdrop", 2, NULL, IPPROTO_TCP, 1, 22, 2, 0, 0, -1 },
		{ "later fragment: no match, ! not applied", 2, later, IPPROTO_TCP, 1, 2000,
		  20, 0, 0, 5 },
		{ "source ::9, udp 7", 9, NULL, IPPROTO_UDP, 1, 7, 8, 0, 0, 4 },
		{ "source ::8, udp 7", 8, NULL, IPPROTO_UDP, 1, 7, 8, 0, 0, 5 },
		{ "udp 53 after 9 headers: the walk", 2, nine, IPPROTO_UDP, 53, 9, 8, 0,
		  P6_WALK, -1 },
	};
	struct tb t;

	if (f->mech != CG_KMOD || (filter && !strstr("ip6 multiport", filter)))
		return;
	tb_init6(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	p6_multiport_rule(&t, IPPROTO_TCP, 0, XT_MULTIPORT_DESTINATION, "22,80:90", false,
			  V_DROP);
	p6_multiport_rule(&t, IPPROTO_UDP, 0, XT_MULTIPORT_SOURCE, "53,123", false, V_ACCEPT);
	p6_multiport_rule(&t, 132, 0, XT_MULTIPORT_EITHER, "5000", false, V_DROP);
	p6_multiport_rule(&t, IPPROTO_TCP, 0, XT_MULTIPORT_DESTINATION, "1:1000", true,
			  V_ACCEPT);
	p6_multiport_rule(&t, IPPROTO_UDP, 9, XT_MULTIPORT_DESTINATION, "7", false, V_DROP);
	tb_policy(&t, NF_INET_LOCAL_IN, V_DROP);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	p6_table_cases(f, "ip6 multiport", &t, pc, sizeof(pc) / sizeof(pc[0]), NULL, 0);
	tb_free(&t);

	/* -p icmpv6 -m multiport: the kernel's check refuses it; were it
	 * ever taken, its rule is the kernel's (no ports to read) */
	{
		struct ipt_table_view v;
		struct ir_table ir;
		char err[256] = "";
		bool kernel;

		tb_init6(&t);
		tb_hook(&t, NF_INET_LOCAL_IN);
		p6_multiport_rule(&t, IPPROTO_ICMPV6, 0, XT_MULTIPORT_DESTINATION, "22", false,
				  V_DROP);
		tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
		tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_finish(&t);
		p6_view(&t, &v);
		memset(&ir, 0, sizeof(ir));
		kernel = !ir_build_ext(&v, IR_KERNEL_WALKS, &ir, err, sizeof(err)) &&
			 ir.rules[0].kernel;
		result(kernel, f->name, "ip6 multiport: without a port protocol, the kernel's",
		       "%s", err[0] ? err : "compiled");
		ir_free(&ir);
		tb_free(&t);
	}
}

/* [-p @proto] -m state --state @mask (@state) or -m conntrack [!] --ctstate
 * @mask (revision 3) -j @verdict */
static void p6_ct_rule(struct tb *t, int proto, bool state, __u32 mask, bool inv,
		       int verdict)
{
	struct ip6t_ip6 ip = { .proto = (__u16)proto,
			       .flags = proto ? IP6T_F_PROTO : 0 };
	struct xt_state_info si = { .statemask = mask };
	struct xt_conntrack_mtinfo3 ci = {
		.match_flags = XT_CONNTRACK_STATE, .state_mask = (__u16)mask,
		.invert_flags = inv ? XT_CONNTRACK_STATE : 0 };

	tb_begin6(t, &ip);
	if (state)
		tb_match(t, "state", 0, &si, sizeof(si));
	else
		tb_match(t, "conntrack", 3, &ci, sizeof(ci));
	tb_std(t, verdict);
}

static void ip6_ctstate_cases(const struct flavor *f)
{
	static const int hbh[] = { 0, 0 }, later[] = { P6_FRAG_LATER, 0 };
	/* rules: 0 -m state --state ESTABLISHED,RELATED ACCEPT, 1 --ctstate
	 * INVALID DROP, 2 -p tcp ! --ctstate NEW DROP, 3 -m state --state
	 * UNTRACKED ACCEPT, 4 --ctstate DNAT DROP; the ACCEPT policy is 5.
	 * The states as the module computes them (xt_conntrack's bits:
	 * INVALID 1, ESTABLISHED 2, RELATED 4, NEW 8, SNAT 64, DNAT 128,
	 * UNTRACKED 256) */
	static const struct p6_case pc[] = {
		{ "established", 2, NULL, IPPROTO_UDP, 1, 53, 8, IR_CT_EST, 1, 0 },
		{ "related, hbh", 2, hbh, IPPROTO_ICMPV6, 0, 1, 8, IR_CT_REL, 1, 0 },
		{ "snat, established", 2, NULL, IPPROTO_TCP, 1, 80, 20,
		  IR_CT_SNAT | IR_CT_EST, 1, 0 },
		{ "invalid", 2, NULL, IPPROTO_TCP, 1, 80, 20, IR_CT_INVALID, 0, 1 },
		{ "new tcp: the policy", 2, NULL, IPPROTO_TCP, 1, 80, 20, IR_CT_NEW, 1, 5 },
		{ "new udp, dnat", 2, NULL, IPPROTO_UDP, 1, 53, 8, IR_CT_NEW | IR_CT_DNAT,
		  0, 4 },
		{ "new tcp, dnat", 2, NULL, IPPROTO_TCP, 1, 80, 20, IR_CT_NEW | IR_CT_DNAT,
		  0, 4 },
		{ "untracked tcp: ! new", 2, NULL, IPPROTO_TCP, 1, 80, 20, IR_CT_UNTRACKED,
		  0, 2 },
		{ "untracked udp", 2, NULL, IPPROTO_UDP, 1, 53, 8, IR_CT_UNTRACKED, 1, 3 },
		{ "untracked, later tcp fragment: ! new", 2, later, IPPROTO_TCP, 1, 80, 20,
		  IR_CT_UNTRACKED, 0, 2 },
	};
	struct tb t;

	if (f->mech != CG_KMOD || (filter && !strstr("ip6 ctstate", filter)))
		return;
	tb_init6(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	p6_ct_rule(&t, 0, true, XT_STATE_BIT(IP_CT_ESTABLISHED) | XT_STATE_BIT(IP_CT_RELATED),
		   false, V_ACCEPT);
	p6_ct_rule(&t, 0, false, XT_CONNTRACK_STATE_INVALID, false, V_DROP);
	p6_ct_rule(&t, IPPROTO_TCP, false, XT_CONNTRACK_STATE_BIT(IP_CT_NEW), true, V_DROP);
	p6_ct_rule(&t, 0, true, XT_STATE_UNTRACKED, false, V_ACCEPT);
	p6_ct_rule(&t, 0, false, XT_CONNTRACK_STATE_DNAT, false, V_DROP);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	p6_table_cases(f, "ip6 ctstate", &t, pc, sizeof(pc) / sizeof(pc[0]), NULL, 0);
	tb_free(&t);
}
